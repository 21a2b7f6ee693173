package grep

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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

// TestReturnCap: even with head_limit 0, one call returns at most the
// return cap, says so, and names the offset of the next page; paging with
// that offset yields the rest, exactly once, in every mode.
func TestReturnCap(t *testing.T) {
	repo := fixtureRepo(t)
	for _, mode := range []string{"files_with_matches", "count", "content"} {
		for _, context := range []int{0, 1} {
			if context > 0 && mode != "content" {
				continue
			}
			full := serve(t, nil)
			full.Cwd = repo
			in := map[string]any{"pattern": "hello", "output_mode": mode, "head_limit": 0}
			if context > 0 {
				in["-C"] = context
			}
			want := full.Call("Grep", in)
			if !want.Ok {
				t.Fatal(want.Message)
			}
			g := testGrep(nil)
			g.maxReturnBytes = 100
			c := serve(t, g)
			c.Cwd = repo
			var pages []string
			for offset, n := 0, 0; ; n++ {
				in["offset"] = offset
				res := c.Call("Grep", in)
				if !res.Ok {
					t.Fatal(res.Message)
				}
				body, note, capped := strings.Cut(res.Text, "\n\nOutput stopped after ")
				if !capped {
					pages = append(pages, res.Text)
					break
				}
				if len(body) > 100 && strings.Contains(body, "\n") {
					t.Errorf("%s: a page of %d bytes and several entries under a 100-byte cap", mode, len(body))
				}
				if !strings.Contains(note, "at 100 bytes, the most Grep returns at once. Pass offset: ") || !uiOf(t, res.UI).Truncated {
					t.Fatalf("%s: the cap note is %q", mode, note)
				}
				_, next, _ := strings.Cut(note, "Pass offset: ")
				var off int
				if _, err := fmt.Sscanf(next, "%d", &off); err != nil || off <= offset {
					t.Fatalf("%s: the next offset in %q does not move on from %d", mode, note, offset)
				}
				pages = append(pages, body)
				offset = off
				if n > 1000 {
					t.Fatalf("%s: paging does not end", mode)
				}
			}
			if len(pages) < 2 {
				t.Fatalf("%s: the 100-byte cap never applied", mode)
			}
			// The last page's footer differs ("Showing 40–45 of 45"); compare
			// the entries.
			got := strings.Join(pages, "\n")
			if entries(got) != entries(want.Text) {
				t.Errorf("%s -C%d: the pages together differ from the whole:\n got %s\nwant %s", mode, context, entries(got), entries(want.Text))
			}
		}
	}
}

// entries are the lines of a Grep result that are entries, without the
// footers.
func entries(text string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if l == "" || strings.HasPrefix(l, "Showing ") || strings.Contains(l, " matching lines in ") {
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// TestDocsShowTheCutLineMarker: docs/tools/grep.md shows the marker of a
// cut line as the output spells it.
func TestDocsShowTheCutLineMarker(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "tools", "grep.md"))
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(doc), "`[…line truncated: ")
	if i < 0 {
		t.Fatal("docs/tools/grep.md does not show the cut-line marker")
	}
	shown := string(doc[i+1:])
	shown = shown[:strings.IndexByte(shown, '`')]
	marker := regexp.MustCompile(`^\[…line truncated: [0-9,]+ chars\]$`)
	if !marker.MatchString(shown) {
		t.Fatalf("the docs show the marker as %q", shown)
	}
	c := serve(t, nil)
	c.Cwd = fixtureRepo(t)
	res := c.Call("Grep", map[string]any{"pattern": "hello", "path": "long.txt", "output_mode": "content"})
	line := strings.Split(res.Text, "\n")[0]
	cut := strings.LastIndex(line, " [")
	if cut < 0 || !marker.MatchString(line[cut+1:]) || strings.Contains(line, "…[") || strings.Contains(line, "… [") {
		t.Fatalf("the output's cut line is %q; the docs show %q", line, shown)
	}
}
