//go:build linux

package bwrap

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// bwrap is resolved from the system directories only: a bwrap earlier on
// PATH, in a directory a command could write (~/bin), is never run.
func TestFindIgnoresPath(t *testing.T) {
	fake := t.TempDir()
	marker := filepath.Join(fake, "ran")
	if err := os.WriteFile(filepath.Join(fake, "bwrap"), []byte("#!/bin/sh\ntouch "+marker+"\nshift $#\nexec \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", fake+":"+os.Getenv("PATH"))
	path, err := Find()
	if err == nil && strings.HasPrefix(path, fake+"/") {
		t.Fatalf("bwrap was resolved from PATH: %s", path)
	}
	if err != nil {
		if os.Getenv("RIOT_REQUIRE_SANDBOX") != "" {
			t.Fatalf("RIOT_REQUIRE_SANDBOX is set but %v", err)
		}
		if !strings.Contains(err.Error(), "bubblewrap") {
			t.Fatalf("the error must say what to install: %v", err)
		}
		return
	}
	if !slices.ContainsFunc(trustedBwrapPaths(), func(c string) bool { p, _ := filepath.EvalSymlinks(c); return p == path }) {
		t.Fatalf("bwrap %s is not one of the trusted paths", path)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the bwrap on PATH ran")
	}
}

// A candidate that anyone but root could have written is refused, with
// the reason, and the next trusted one is taken.
func TestFindRefusesWritableCandidates(t *testing.T) {
	dir := t.TempDir()
	open := filepath.Join(dir, "open")
	if err := os.Mkdir(open, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil { // past the umask
		t.Fatal(err)
	}
	inOpen := filepath.Join(open, "bwrap")
	writable := filepath.Join(dir, "bwrap-writable")
	for _, f := range []string{inOpen, writable} {
		if err := os.WriteFile(f, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(writable, 0o777); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(writable, link); err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{inOpen, writable, link} {
		if _, err := find([]string{c}); err == nil || !strings.Contains(err.Error(), "can be trusted") ||
			!strings.Contains(err.Error(), "writable by others than root") && !strings.Contains(err.Error(), "not owned by root") {
			t.Errorf("%s: want refused as writable by others, got %v", c, err)
		}
	}
	if _, err := find([]string{filepath.Join(dir, "none")}); !errors.Is(err, ErrNotFound) {
		t.Errorf("no candidate: %v", err)
	}
	if os.Geteuid() == 0 {
		// Root's own file in root's own directories (/tmp is sticky).
		good := filepath.Join(dir, "good")
		if err := os.WriteFile(good, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if path, err := find([]string{writable, good}); err != nil || path != good {
			t.Errorf("the next trusted candidate: %q %v", path, err)
		}
	}
}
