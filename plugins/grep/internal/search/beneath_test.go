package search

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestWalkOpensBeneathTheRoot: a directory the walk listed, swapped for a
// symlink out of the tree before its files are opened, leads nowhere: the
// files are opened beneath the root's descriptor, through no symlink, and
// the one that would have been read outside is counted unreadable.
func TestWalkOpensBeneathTheRoot(t *testing.T) {
	for _, opened := range []bool{true, false} {
		base := t.TempDir()
		ws, outside := filepath.Join(base, "ws"), filepath.Join(base, "outside")
		for p, body := range map[string]string{
			ws + "/0.txt": "needle inside\n", ws + "/b/2.txt": "needle inside too\n", outside + "/2.txt": "needle OUTSIDE\n",
		} {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		pat, err := Compile("needle", PatternOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var once sync.Once
		o := Options{Root: ws, Cwd: ws, Mode: Content, Pattern: pat, Workers: 1, PhysicalRoot: ws}
		// After the first file, 0.txt, which the walk searches while it
		// lists the root and so before it lists b, b becomes a link out.
		o.afterFile = func() {
			once.Do(func() {
				if err := os.Rename(ws+"/b", base+"/b.moved"); err != nil {
					t.Error(err)
				}
				if err := os.Symlink(outside, ws+"/b"); err != nil {
					t.Error(err)
				}
			})
		}
		if opened {
			f, err := os.Open(ws)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			o.Opened = f
		}
		res := Search(context.Background(), o)
		var out strings.Builder
		for _, f := range res.Files {
			out.Write(f.Out)
		}
		leaked := strings.Contains(out.String(), "OUTSIDE")
		switch {
		case opened && (leaked || res.Stats.Unreadable != 1):
			t.Errorf("opened beneath the root: output %q, %d unreadable; want no outside file and 1 unreadable", out.String(), res.Stats.Unreadable)
		case !opened && !leaked:
			// The test's own check: by path, the swap does lead outside.
			t.Errorf("opened by path, the swap did not lead outside (output %q): the test proves nothing", out.String())
		}
	}
}
