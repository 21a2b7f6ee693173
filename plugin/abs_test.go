package plugin

import (
	"os"
	"path/filepath"
	"testing"
)

// TestAbsAppliesDotDotAfterSymlinks: Abs never cleans a `..` away before
// the symlink in front of it is resolved, so the path a tool declares is
// the file the kernel opens; InFence agrees.
func TestAbsAppliesDotDotAfterSymlinks(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, outside := filepath.Join(base, "ws"), filepath.Join(base, "outside")
	for _, d := range []string{ws + "/sub", outside + "/sub"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{ws + "/x", outside + "/x"} {
		if err := os.WriteFile(f, []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{ws + "/lnk": outside + "/sub", ws + "/broken": base + "/nowhere", ws + "/cwd": "/proc/self/cwd"} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	env := &Env{Cwd: ws, Roots: []string{ws}}
	for _, c := range []struct {
		in, want string
		inFence  bool
	}{
		{"lnk/../x", outside + "/x", false},
		{ws + "/lnk/../x", outside + "/x", false},
		{"sub/../x", ws + "/x", true},
		{"./sub//../x", ws + "/x", true},
		{"lnk/y", ws + "/lnk/y", false}, // a link's name is kept when no `..` follows
		{"new/../x", ws + "/x", true},
		// A `..` that cannot be applied stays, for the host to refuse.
		// InFence judges it by ws, its longest prefix that resolves: the
		// kernel opens nothing through the broken link.
		{"broken/../x", ws + "/broken/../x", true},
		{"sub/x/deeper", ws + "/sub/x/deeper", true}, // x is a file: judged by sub/x
		{"/proc/self/cwd/x", "/proc/self/cwd/x", false},
		{"cwd/x", ws + "/cwd/x", false},
	} {
		got := env.Abs(c.in)
		if got != c.want {
			t.Errorf("Abs(%q) = %q, want %q", c.in, got, c.want)
		}
		if in := env.InFence(got); in != c.inFence {
			t.Errorf("InFence(%q) = %v, want %v", got, in, c.inFence)
		}
		// What Abs names is what opening the input opens.
		if data, err := os.ReadFile(ws + "/" + c.in); err == nil && !filepath.IsAbs(c.in) {
			if want, _ := os.ReadFile(got); string(data) != string(want) {
				t.Errorf("Abs(%q) = %q, but opening %q reads %q", c.in, got, c.in, data)
			}
		}
	}
	if got := (&Env{}).Abs("rel/../x"); got != "x" {
		t.Errorf("with no Cwd, Abs(rel/../x) = %q", got)
	}
}
