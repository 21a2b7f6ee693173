package core

import (
	"debug/buildinfo"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
)

// A builtin is served by re-executing riot, which pays riot's whole start
// (every package's init) before the plugin can answer. Its standalone
// riot-tool-NAME binary starts a little sooner and holds less private
// memory, so the host uses it when it lies beside riot and is the same
// build: otherwise an old binary left beside a new riot would serve its
// old tools behind the new riot's manifest.

// SameBuild reports whether the binaries at a and b were built from the
// same version of the same module with the same toolchain, or why not. A
// build without a version, as `go build -buildvcs=false` makes, or from a
// tree with uncommitted changes, is never the same as anything: nothing
// in it says what source it was built from.
func SameBuild(a, b string) error {
	ia, err := buildinfo.ReadFile(a)
	if err != nil {
		return fmt.Errorf("read build info of %s: %w", a, err)
	}
	ib, err := buildinfo.ReadFile(b)
	if err != nil {
		return fmt.Errorf("read build info of %s: %w", b, err)
	}
	return compareBuilds(ia, ib)
}

func compareBuilds(a, b *debug.BuildInfo) error {
	for _, bi := range []*debug.BuildInfo{a, b} {
		if err := identified(bi); err != nil {
			return err
		}
	}
	for _, c := range []struct{ differ, x, y string }{
		{"built from different modules", a.Main.Path, b.Main.Path},
		{"built from different versions", a.Main.Version, b.Main.Version},
		{"built with different Go toolchains", a.GoVersion, b.GoVersion},
		{"built from different commits", setting(a, "vcs.revision"), setting(b, "vcs.revision")},
	} {
		if c.x != c.y {
			return fmt.Errorf("%s (%s, %s)", c.differ, c.x, c.y)
		}
	}
	return nil
}

// identified fails for a build that does not say what source it came from.
func identified(bi *debug.BuildInfo) error {
	v := bi.Main.Version
	if v == "" || v == "(devel)" {
		return errors.New(bi.Path + " has no version: it was built without version control stamping (-buildvcs)")
	}
	if strings.HasSuffix(v, "+dirty") || setting(bi, "vcs.modified") == "true" {
		return errors.New(bi.Path + " was built from a tree with uncommitted changes")
	}
	return nil
}

func setting(bi *debug.BuildInfo, key string) string {
	for _, s := range bi.Settings {
		if s.Key == key {
			return s.Value
		}
	}
	return ""
}
