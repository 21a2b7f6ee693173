package core

import (
	"os"
	"runtime/debug"
	"strings"
	"testing"
)

func build(version string, settings ...string) *debug.BuildInfo {
	bi := &debug.BuildInfo{GoVersion: "go1.26.8", Path: "github.com/riot-tools/riot/cmd/riot",
		Main: debug.Module{Path: "github.com/riot-tools/riot", Version: version}}
	for i := 0; i+1 < len(settings); i += 2 {
		bi.Settings = append(bi.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
	}
	return bi
}

// TestCompareBuilds: a standalone builtin serves in riot's place only when
// both binaries say they come from the same clean source, and a refusal
// says which difference it found.
func TestCompareBuilds(t *testing.T) {
	const pseudo = "v0.0.0-20261129234844-3e5a02b53f4b"
	rev := []string{"vcs.revision", "3e5a02b53f4b512983c8f3254f7e8d5a08767de4", "vcs.modified", "false"}
	otherGo := build(pseudo, rev...)
	otherGo.GoVersion = "go1.25.0"
	otherModule := build(pseudo, rev...)
	otherModule.Main.Path = "example.com/fork"
	for _, tc := range []struct {
		name string
		a, b *debug.BuildInfo
		want string // "" means the same build
	}{
		{"same pseudo-version", build(pseudo, rev...), build(pseudo, rev...), ""},
		{"same release", build("v1.2.3"), build("v1.2.3"), ""},
		{"no version", build("(devel)"), build("(devel)"), "has no version"},
		{"empty version", build(""), build(pseudo, rev...), "has no version"},
		{"dirty suffix", build(pseudo + "+dirty"), build(pseudo + "+dirty"), "uncommitted changes"},
		{"modified setting", build("v1.2.3", "vcs.modified", "true"), build("v1.2.3"), "uncommitted changes"},
		{"second is dirty", build(pseudo, rev...), build(pseudo+"+dirty", rev...), "uncommitted changes"},
		{"versions differ", build("v1.2.3"), build("v1.2.4"), "different versions (v1.2.3, v1.2.4)"},
		{"modules differ", build(pseudo, rev...), otherModule, "different modules"},
		{"toolchains differ", build(pseudo, rev...), otherGo, "different Go toolchains"},
		{"commits differ", build("v1.2.3", "vcs.revision", "aaa"), build("v1.2.3", "vcs.revision", "bbb"), "different commits (aaa, bbb)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := compareBuilds(tc.a, tc.b)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused the same build: %v", err)
			case tc.want != "" && err == nil:
				t.Fatalf("accepted; want a refusal saying %q", tc.want)
			case tc.want != "" && !strings.Contains(err.Error(), tc.want):
				t.Fatalf("refusal %q does not say %q", err, tc.want)
			}
		})
	}
}

// TestSameBuildReadsBoth: either binary unreadable is a refusal naming
// it, and a real binary is judged by its build info (this test binary has
// no version).
func TestSameBuildReadsBoth(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ a, b, want string }{
		{"/nonexistent/riot", self, "read build info of /nonexistent/riot"},
		{self, "/nonexistent/riot-tool-grep", "read build info of /nonexistent/riot-tool-grep"},
		{self, self, "has no version"},
	} {
		err := SameBuild(tc.a, tc.b)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("SameBuild(%s, %s) = %v, want an error saying %q", tc.a, tc.b, err, tc.want)
		}
	}
}
