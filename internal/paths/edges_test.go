package paths

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// failFS fails Lstat or Readlink on one path with err.
type failFS struct {
	path         string
	lstat, rdlnk error
}

func (f failFS) Lstat(name string) (fs.FileInfo, error) {
	if name == f.path && f.lstat != nil {
		return nil, f.lstat
	}
	return os.Lstat(name)
}

func (f failFS) Readlink(name string) (string, error) {
	if name == f.path && f.rdlnk != nil {
		return "", f.rdlnk
	}
	return os.Readlink(name)
}

// TestErrorsOfTheFilesystem: a component that cannot be examined is an
// error for Resolve and, before a `..`, for Clean; never a guess.
func TestErrorsOfTheFilesystem(t *testing.T) {
	ws, _ := tree(t)
	eacces := failFS{path: ws + "/sub", lstat: syscall.EACCES}
	if _, err := Resolve(eacces, ws+"/sub/x"); !errors.Is(err, syscall.EACCES) {
		t.Errorf("Resolve through an unreadable directory: %v", err)
	}
	if _, err := Clean(eacces, ws+"/sub/../a.txt"); !errors.Is(err, syscall.EACCES) {
		t.Errorf("Clean through an unreadable directory: %v", err)
	}
	if got, err := Clean(eacces, ws+"/sub/x"); err != nil || got != ws+"/sub/x" {
		t.Errorf("Clean without a `..` examines nothing: %q, %v", got, err)
	}
	if _, err := Resolve(failFS{path: ws + "/lnk", rdlnk: syscall.EIO}, ws+"/lnk/y"); !errors.Is(err, syscall.EIO) {
		t.Errorf("a readlink error: %v", err)
	}
	// A link whose target's parent does not exist is broken.
	if err := os.Symlink(ws+"/none/deeper", ws+"/deep-broken"); err != nil {
		t.Fatal(err)
	}
	if _, err := Resolve(OS{}, ws+"/deep-broken"); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("a link into a missing directory: %v", err)
	}
}

// TestLinkLimit: MaxLinks links resolve, one more does not.
func TestLinkLimit(t *testing.T) {
	ws, _ := tree(t)
	prev := ws + "/sub"
	for i := range MaxLinks + 1 {
		l := filepath.Join(ws, "l", strings.Repeat("x", i%3)+string(rune('a'+i%26))+strings.Repeat("y", i/26))
		if err := os.MkdirAll(filepath.Dir(l), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(prev, l); err != nil {
			t.Fatal(err)
		}
		prev = l
	}
	if _, err := Resolve(OS{}, prev); err == nil || !strings.Contains(err.Error(), "too many levels") {
		t.Errorf("%d chained links resolve: %v", MaxLinks+1, err)
	}
	target, err := os.Readlink(prev)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := Resolve(OS{}, target); err != nil || got != ws+"/sub" {
		t.Errorf("%d chained links do not resolve: %q %v", MaxLinks, got, err)
	}
}

func TestIsProcess(t *testing.T) {
	for c, want := range map[string]bool{
		"self": true, "thread-self": true, "1": true, "9": true, "0": true, "4194304": true,
		"": false, "selfx": false, "9a": false, "a9": false, "/": false, ":": false, "sys": false,
	} {
		if got := isProcess(c); got != want {
			t.Errorf("isProcess(%q) = %v, want %v", c, got, want)
		}
	}
}

func TestHasDotDot(t *testing.T) {
	for p, want := range map[string]bool{
		"/a/../b": true, "/..": true, "/a/..": true, "/a/b": false, "/a..b/c": false, "/...": false, "/": false,
	} {
		if got := hasDotDot(p); got != want {
			t.Errorf("hasDotDot(%q) = %v, want %v", p, got, want)
		}
	}
}
