package paths

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tree makes ws/{a.txt,sub/x}, outside/{o.txt,sub/y} and links
// ws/lnk -> outside/sub, ws/olnk -> outside, ws/rel -> sub (relative),
// ws/broken -> nowhere, ws/loop -> ws/loop.
func tree(t testing.TB) (ws, outside string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, outside = filepath.Join(base, "ws"), filepath.Join(base, "outside")
	for _, d := range []string{ws + "/sub", outside + "/sub"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{ws + "/a.txt", ws + "/sub/x", outside + "/o.txt", outside + "/sub/y"} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"lnk": outside + "/sub", "olnk": outside, "rel": "sub", "broken": base + "/nowhere", "loop": ws + "/loop",
	} {
		if err := os.Symlink(target, filepath.Join(ws, link)); err != nil {
			t.Fatal(err)
		}
	}
	return ws, outside
}

func TestResolve(t *testing.T) {
	ws, outside := tree(t)
	for _, c := range []struct{ in, want string }{
		{ws + "/a.txt", ws + "/a.txt"},
		{ws + "/sub/../a.txt", ws + "/a.txt"},
		// `..` after a symlink is the parent of the target, not of the link.
		{ws + "/lnk/../o.txt", outside + "/o.txt"},
		{ws + "/lnk/y", outside + "/sub/y"},
		{ws + "/olnk", outside},
		{ws + "/rel/x", ws + "/sub/x"},
		{ws + "/rel/../a.txt", ws + "/a.txt"},
		// A tail that does not exist yet is appended as written.
		{ws + "/new/file", ws + "/new/file"},
		{ws + "/lnk/new", outside + "/sub/new"},
		{ws + "//./a.txt", ws + "/a.txt"},
		{"/", "/"},
		{"/..", "/"},
	} {
		got, err := Resolve(OS{}, c.in)
		if err != nil || got != c.want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

func TestResolveErrors(t *testing.T) {
	ws, _ := tree(t)
	for _, c := range []struct{ in, why string }{
		{"relative/path", "not an absolute path"},
		{"", "not an absolute path"},
		{ws + "/broken", "is broken"},
		{ws + "/broken/x", "is broken"},
		{ws + "/loop", "too many levels"},
		{ws + "/a.txt/x", "not a directory"},
		// Resolved in the process that opens them (issue 11, class 13).
		{"/proc/self/cwd/x", "a process's own view of the filesystem"},
		{"/proc/thread-self/root", "a process's own view of the filesystem"},
		{"/proc/1/cwd", "a process's own view of the filesystem"},
		{"/proc/./self/../self/fd/0", "a process's own view of the filesystem"},
		{"/dev/stdin", "a process's own view of the filesystem"}, // -> /proc/self/fd/0
	} {
		got, err := Resolve(OS{}, c.in)
		if err == nil || !strings.Contains(err.Error(), c.why) {
			t.Errorf("Resolve(%q) = %q, %v; want an error saying %q", c.in, got, err, c.why)
		}
	}
}

func TestMatch(t *testing.T) {
	globs := []string{"/ws/**/secret.txt", "/ws/private", "/data/*.key"}
	for _, c := range []struct {
		path string
		want bool
	}{
		{"/ws/secret.txt", true},
		{"/ws/a/b/secret.txt", true},
		{"/ws/secret.txt.bak", false},
		// A pattern naming a directory covers what it holds.
		{"/ws/private", true},
		{"/ws/private/deep/file", true},
		{"/ws/privateer", false},
		{"/data/x.key", true},
		{"/data/sub/x.key", false},
		{"/elsewhere/secret.txt", false},
		{"/", false},
	} {
		if got := Match(globs, c.path); got != c.want {
			t.Errorf("Match(%q) = %v, want %v", c.path, got, c.want)
		}
	}
	if !Match([]string{"/**"}, "/any/thing") || Match(nil, "/any") {
		t.Error("/** must match everything and no globs nothing")
	}
	if Match(globs, "relative/secret.txt") || !Match([]string{"relative/**"}, "relative/x") {
		t.Error("a relative path must end its walk upward at .")
	}
}

// FuzzResolve resolves arbitrary paths on the real filesystem: a relative
// path is refused, and what resolves is absolute and clean.
func FuzzResolve(f *testing.F) {
	f.Add("/a/../b/./c")
	f.Add("/../..//x")
	f.Fuzz(func(t *testing.T, p string) {
		if !strings.HasPrefix(p, "/") {
			if _, err := Resolve(OS{}, p); err == nil {
				t.Fatalf("relative %q resolved", p)
			}
			return
		}
		got, err := Resolve(OS{}, p)
		if err != nil {
			return
		}
		if !filepath.IsAbs(got) || filepath.Clean(got) != got {
			t.Fatalf("Resolve(%q) = %q: not absolute and clean", p, got)
		}
	})
}

// Other /proc names resolve as usual; only a process's own view is refused.
func TestProcOtherNamesResolve(t *testing.T) {
	if got, err := Resolve(OS{}, "/proc/cpuinfo"); err != nil || got != "/proc/cpuinfo" {
		t.Errorf("Resolve(/proc/cpuinfo) = %q, %v", got, err)
	}
}
