package grep

import (
	"os/exec"
	"strings"
	"testing"
)

// TestOrderMatchesRipgrep: content and count modes list files in the order
// of `rg --sort path`, component by component, not as plain strings.
func TestOrderMatchesRipgrep(t *testing.T) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		t.Skip("rg (ripgrep) is not installed, so there is nothing to compare with; install ripgrep to run this test")
	}
	dir := t.TempDir()
	var files []fixtureFile
	for _, p := range []string{"sub-x/a.txt", "sub.txt", "sub/deep/d.go", "sub/a.txt", "sub0", "su", "a/b/c", "a-b", "a.b/c", "a/b-c/x", "a/b.c", "a/bb", "Z", "_", "é/x", "e/x"} {
		files = append(files, fixtureFile{path: p, content: "needle\n"})
	}
	writeFixture(t, dir, files)
	cmd := exec.Command(rg, "--no-config", "--sort", "path", "--count", "needle")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("rg: %v", err)
	}
	want := strings.TrimSpace(string(out))
	c := serve(t, nil)
	c.Cwd = dir
	res := c.Call("Grep", map[string]any{"pattern": "needle", "output_mode": "count", "head_limit": 0})
	got, _, _ := strings.Cut(res.Text, "\n\n")
	if got != want {
		t.Errorf("count order:\n got %s\nwant %s", got, want)
	}
	res = c.Call("Grep", map[string]any{"pattern": "needle", "output_mode": "content", "head_limit": 0, "-n": false})
	var paths []string
	for _, l := range strings.Split(strings.TrimSpace(res.Text), "\n") {
		if p, ok := strings.CutSuffix(l, ":needle"); ok {
			paths = append(paths, p+":1")
		}
	}
	if strings.Join(paths, "\n") != want {
		t.Errorf("content order:\n got %s\nwant %s", strings.Join(paths, "\n"), want)
	}
}
