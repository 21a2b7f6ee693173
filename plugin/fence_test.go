package plugin

import (
	"os"
	"path/filepath"
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
