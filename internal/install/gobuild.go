package install

import (
	"bytes"
	"context"
	"debug/buildinfo"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"golang.org/x/mod/module"
	"golang.org/x/mod/sumdb/dirhash"
)

// buildEnv is the environment of the Go toolchain for a plugin build: the
// user's (GOPROXY, GOFLAGS, GOPRIVATE and the rest are honoured) with cgo
// off, so the binary depends on no C library of this machine.
func buildEnv(req Request, extra ...string) []string {
	env := req.Env
	if env == nil {
		env = os.Environ()
	}
	out := make([]string, 0, len(env)+len(extra)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, "CGO_ENABLED=") && !strings.HasPrefix(kv, "GOBIN=") {
			out = append(out, kv)
		}
	}
	return append(append(out, "CGO_ENABLED=0"), extra...)
}

// goRun runs the go command; a failure shows its last lines.
func goRun(ctx context.Context, req Request, dir, what string, env []string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir, cmd.Env = dir, env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, failErr(fmt.Sprintf("%s was interrupted; nothing was installed", what))
		}
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			return nil, failErr(fmt.Sprintf("%s needs the go command, which cannot run (%v); install Go (https://go.dev/dl) or use a prebuilt binary's URL as the source", what, err))
		}
		return nil, failErr(fmt.Sprintf("%s failed; nothing was installed. The last lines of go %s:\n%s", what, args[0], indent(lastLines(stderr.String(), 12))))
	}
	return stdout.Bytes(), nil
}

func indent(s string) string { return "    " + strings.ReplaceAll(s, "\n", "\n    ") }

// goInstall builds a Go package at the version its constraint resolves to.
func goInstall(ctx context.Context, req Request) (*Got, error) {
	pkg := req.Source.Path
	c, err := ParseConstraint(req.Version)
	if err != nil {
		return nil, err
	}
	version := req.Pinned
	switch {
	case version != "":
	case c.Exact() != "":
		version = c.Exact()
	default:
		if version, err = resolve(ctx, req, pkg, c); err != nil {
			return nil, err
		}
	}
	gobin := filepath.Join(req.Scratch, "gobin")
	if err := os.MkdirAll(gobin, 0o700); err != nil {
		return nil, failErr(fmt.Sprintf("cannot make a build directory: %v", err))
	}
	fmt.Fprintf(req.Progress, "building %s@%s with go install\n", pkg, version)
	what := fmt.Sprintf("building %s@%s", pkg, version)
	if _, err := goRun(ctx, req, req.Scratch, what, buildEnv(req, "GOBIN="+gobin), "install", "-trimpath", pkg+"@"+version); err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(gobin)
	if err != nil || len(entries) != 1 {
		return nil, failErr(fmt.Sprintf("%s made no single binary; check that %s is a main package", what, pkg))
	}
	bin := filepath.Join(gobin, entries[0].Name())
	bi, err := buildinfo.ReadFile(bin)
	if err != nil || bi.Main.Path == "" || bi.Main.Version == "" {
		return nil, failErr(fmt.Sprintf("%s made a binary without Go build information; it cannot be locked", what))
	}
	sum, err := moduleSum(ctx, req, bi.Main.Path, bi.Main.Version)
	if err != nil {
		return nil, err
	}
	if bi.Main.Sum != "" && bi.Main.Sum != sum {
		return nil, failErr(fmt.Sprintf("the module %s@%s built with sum %s, but its zip in the module cache hashes to %s; nothing was installed. Clean the module cache (go clean -modcache) and install again.", bi.Main.Path, bi.Main.Version, bi.Main.Sum, sum))
	}
	if req.Sum != "" && sum != req.Sum {
		return nil, failErr(fmt.Sprintf("the module %s@%s has sum %s, but the lock records %s: the module proxy serves other code for that version than was locked. Nothing was installed; find out why before trusting it, and run `riot plugins upgrade %s` only if the new code is meant.", bi.Main.Path, bi.Main.Version, sum, req.Sum, req.Name))
	}
	return &Got{Binary: bin, Version: bi.Main.Version, Sum: sum}, nil
}

// moduleSum is the h1: hash of a module's zip as the go command downloaded
// it from the proxy: the go.sum line's hash, the same on every platform.
func moduleSum(ctx context.Context, req Request, mod, version string) (string, error) {
	out, err := goRun(ctx, req, req.Scratch, "finding the module cache", buildEnv(req), "env", "GOMODCACHE")
	if err != nil {
		return "", err
	}
	emod, err1 := module.EscapePath(mod)
	ever, err2 := module.EscapeVersion(version)
	if err1 != nil || err2 != nil {
		return "", failErr(fmt.Sprintf("module %s@%s has a path riot cannot look up", mod, version))
	}
	zip := filepath.Join(strings.TrimSpace(string(out)), "cache", "download", filepath.FromSlash(emod), "@v", ever+".zip")
	sum, err := dirhash.HashZip(zip, dirhash.Hash1)
	if err != nil {
		return "", failErr(fmt.Sprintf("cannot hash the module zip of %s@%s (%s)", mod, version, osText(err)))
	}
	return sum, nil
}

// resolve finds the newest version of pkg's module that c allows. The
// module is the longest prefix of pkg the proxy knows.
func resolve(ctx context.Context, req Request, pkg string, c Constraint) (string, error) {
	fmt.Fprintf(req.Progress, "resolving %s %s\n", pkg, c)
	for mod := pkg; mod != "." && strings.Contains(mod, "."); mod = path.Dir(mod) {
		out, err := goRun(ctx, req, req.Scratch, "listing the versions of "+mod, buildEnv(req), "list", "-m", "-json", "-versions", mod)
		if err != nil {
			continue
		}
		var m struct {
			Path     string
			Versions []string
			Error    *struct{ Err string }
		}
		if json.Unmarshal(out, &m) != nil || m.Error != nil || len(m.Versions) == 0 {
			continue
		}
		v := c.Newest(m.Versions)
		if v == "" {
			return "", usageErr(fmt.Sprintf("no version of %s meets %q; the versions are %s. Change [plugins.%s] version.", mod, c, strings.Join(m.Versions, ", "), req.Name))
		}
		return v, nil
	}
	return "", failErr(fmt.Sprintf("no module holding %s has tagged versions on the module proxy (GOPROXY); check the source, or pin an exact version or commit", pkg))
}

// goBuildDir builds the Go main package in a local directory.
func goBuildDir(ctx context.Context, req Request) (*Got, error) {
	dst := filepath.Join(req.Scratch, "riot-tool-"+req.Name)
	fmt.Fprintf(req.Progress, "building %s with go build\n", req.Source.Path)
	if _, err := goRun(ctx, req, req.Source.Path, "building "+req.Source.Path, buildEnv(req), "build", "-trimpath", "-o", dst, "."); err != nil {
		return nil, err
	}
	return &Got{Binary: dst, Version: "local"}, nil
}
