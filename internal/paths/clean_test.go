package paths

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestClean(t *testing.T) {
	ws, outside := tree(t)
	for _, c := range []struct{ in, want string }{
		{ws + "/a.txt", ws + "/a.txt"},
		{ws + "//sub/./x/", ws + "/sub/x"},
		{ws + "/sub/../a.txt", ws + "/a.txt"},
		// `..` after a link is the parent of the link's target.
		{ws + "/lnk/../o.txt", outside + "/o.txt"},
		{ws + "/lnk/../../ws/a.txt", ws + "/a.txt"},
		{ws + "/olnk/sub/../o.txt", outside + "/o.txt"},
		{ws + "/rel/../a.txt", ws + "/a.txt"},
		// A link not followed by `..` keeps its name.
		{ws + "/lnk/y", ws + "/lnk/y"},
		{ws + "/sub/../lnk/y", ws + "/lnk/y"},
		// What does not exist yet is cleaned as text.
		{ws + "/new/../a.txt", ws + "/a.txt"},
		{"/..", "/"},
		{"/", "/"},
	} {
		got, err := Clean(OS{}, c.in)
		if err != nil || got != c.want {
			t.Errorf("Clean(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, c := range []struct{ in, why string }{
		{"rel/../x", "not an absolute path"},
		{ws + "/broken/../a.txt", "is broken"},
		{ws + "/loop/../a.txt", "too many levels"},
		{"/proc/self/cwd/../x", "process's own view"},
	} {
		if got, err := Clean(OS{}, c.in); err == nil || !strings.Contains(err.Error(), c.why) {
			t.Errorf("Clean(%q) = %q, %v; want an error saying %q", c.in, got, err, c.why)
		}
	}
}

// TestResolveProcess: a path through a process's own directory under /proc
// is refused, however it is reached; the rest of /proc is not.
func TestResolveProcess(t *testing.T) {
	ws, _ := tree(t)
	if err := os.Symlink("/proc/self/cwd", filepath.Join(ws, "cwd")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/stdin", filepath.Join(ws, "in")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{
		"/proc/self/cwd/x", "/proc/self", "/proc/thread-self/root/etc/passwd", "/proc/1/root", "/proc/" + strconv.Itoa(os.Getpid()) + "/cwd",
		ws + "/cwd/a.txt", // a link to it
		"/dev/fd/0",       // /dev/fd -> /proc/self/fd
		ws + "/in",
		"/proc/../proc/self/cwd",
	} {
		if got, err := Resolve(OS{}, p); !errors.Is(err, ErrProcess) {
			t.Errorf("Resolve(%q) = %q, %v; want ErrProcess", p, got, err)
		}
	}
	for _, p := range []string{"/proc/cpuinfo", "/proc/sys/kernel", "/proc/selfish", "/proc/12a"} {
		if _, err := Resolve(OS{}, p); errors.Is(err, ErrProcess) {
			t.Errorf("Resolve(%q) refused as a process's path", p)
		}
	}
}

// FuzzClean: over a tree of links in, out, up and broken, Clean's answer
// is absolute and clean, and means what the path means: it resolves to
// the same physical path, or Clean refuses.
func FuzzClean(f *testing.F) {
	for _, s := range []string{"lnk/../o.txt", "olnk/sub/..", "rel/../a.txt", "sub/../lnk/y", "new/../../x", "broken/..", "lnk/../../ws/lnk/../sub", "./a.txt", "../.."} {
		f.Add(s)
	}
	ws, _ := tree(f)
	f.Fuzz(func(t *testing.T, s string) {
		if strings.ContainsRune(s, 0) || len(s) > 256 {
			return
		}
		p := ws + "/" + s
		got, err := Clean(OS{}, p)
		if err != nil {
			return
		}
		if !filepath.IsAbs(got) || filepath.Clean(got) != got {
			t.Fatalf("Clean(%q) = %q: not absolute and clean", p, got)
		}
		want, werr := Resolve(OS{}, p)
		have, herr := Resolve(OS{}, got)
		if (werr == nil) != (herr == nil) || want != have {
			t.Fatalf("Clean(%q) = %q, which resolves to %q (%v); the path itself to %q (%v)", p, got, have, herr, want, werr)
		}
	})
}
