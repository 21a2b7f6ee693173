package plugin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestInFence(t *testing.T) {
	base := t.TempDir()
	ws, results, outside := filepath.Join(base, "ws"), filepath.Join(base, "results"), filepath.Join(base, "outside")
	for _, d := range []string{ws, results, outside, filepath.Join(ws, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(ws, "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(ws, "sub"), filepath.Join(outside, "back-in")); err != nil {
		t.Fatal(err)
	}
	env := &Env{Roots: []string{ws, ""}, ResultsDirs: []string{results}}
	for path, want := range map[string]bool{
		ws:                                     true,
		filepath.Join(ws, "sub", "f.go"):       true,
		filepath.Join(ws, "no", "such", "dir"): true,  // not there yet: judged by what exists
		filepath.Join(results, "s", "c.txt"):   true,  // results directories are in the fence
		filepath.Join(ws, "escape", "secret"):  false, // a symlink out of the root is outside
		filepath.Join(outside, "back-in", "x"): true,  // and one back into it is inside
		outside:                                false,
		ws + "-sibling":                        false, // a prefix of the name is not a parent
		filepath.Join(ws, "..", "outside"):     false,
		"relative/path":                        false,
		"/":                                    false,
	} {
		if got := env.InFence(path); got != want {
			t.Errorf("InFence(%q) = %v, want %v", path, got, want)
		}
	}
	if (&Env{}).InFence(ws) {
		t.Error("with no roots, nothing is in the fence")
	}
}

// FuzzInFence checks InFence against the lexical answer on a tree whose
// only symlink leads out: a path is in the fence if, cleaned, it lies under
// the root and does not pass through that link.
func FuzzInFence(f *testing.F) {
	for _, s := range []string{"a", "a/b", "..", "../ws/a", "link-out/x", "a/../link-out", "./a//b/", "link-outx", ""} {
		f.Add(s)
	}
	base := f.TempDir()
	ws, outside := filepath.Join(base, "ws"), filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(ws, "a"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			f.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(ws, "link-out")); err != nil {
		f.Fatal(err)
	}
	env := &Env{Roots: []string{ws}}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.ContainsRune(s, 0) {
			return
		}
		p := filepath.Join(ws, s)
		rel, err := filepath.Rel(ws, p)
		if err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(rel, string(filepath.Separator))
		want := first != ".." && first != "link-out"
		if got := env.InFence(p); got != want {
			t.Fatalf("InFence(%q) = %v, want %v", p, got, want)
		}
	})
}
