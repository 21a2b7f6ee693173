package grep

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDeniedFilesAreSkipped: through the real plugin process, a search
// never opens a file or enters a directory the deny rules cover, whatever
// the mode, and says how many it skipped and why.
func TestDeniedFilesAreSkipped(t *testing.T) {
	dir := t.TempDir()
	writeFixture(t, dir, []fixtureFile{
		{path: "secret.txt", content: "SECRET in the denied file\n"},
		{path: "a.txt", content: "SECRET is a word here too\n"},
		{path: "sub/secret.txt", content: "SECRET deeper\n"},
		{path: "private/notes.txt", content: "SECRET in a denied directory\n"},
		{path: "private/more/x.txt", content: "SECRET deeper in it\n"},
		{path: "alias.txt", link: "secret.txt"},
	})
	c := serve(t, nil)
	c.Cwd = dir
	c.DenyRead = []string{"/**/secret.txt", dir + "/private"}
	const note = "that the user's Read deny rules cover: they were not opened, and nothing in them is searched or shown. Do not try to read them another way."
	for _, in := range []map[string]any{
		{"pattern": "SECRET", "output_mode": "content"},
		{"pattern": "SECRET", "output_mode": "count"},
		{"pattern": "SECRET"},
		{"pattern": "SECRET", "output_mode": "content", "-i": true, "head_limit": 0},
		{"pattern": "SECRET", "output_mode": "content", "multiline": true},
	} {
		res := c.Call("Grep", in)
		if !res.Ok {
			t.Fatalf("%v: %s", in, res.Message)
		}
		if strings.Contains(res.Text, "denied") || strings.Contains(res.Text, "deeper") || strings.Contains(res.Text, "private/") || strings.Contains(res.Text, "secret.txt") {
			t.Errorf("%v shows a denied file:\n%s", in, res.Text)
		}
		if !strings.Contains(res.Text, "a.txt") || !strings.HasSuffix(res.Text, "Skipped 2 files and 1 directory "+note) {
			t.Errorf("%v: the skipped files are not reported:\n%s", in, res.Text)
		}
		var ui UI
		_ = json.Unmarshal(res.UI, &ui)
		if ui.FilesSearched != 1 {
			t.Errorf("%v: %d files searched, want only a.txt", in, ui.FilesSearched)
		}
	}
	// No match: the note still says what was skipped.
	res := c.Call("Grep", map[string]any{"pattern": "deeper"})
	if !strings.HasPrefix(res.Text, "No matches for /deeper/") || !strings.HasSuffix(res.Text, "Skipped 2 files and 1 directory "+note) {
		t.Errorf("no match:\n%s", res.Text)
	}
	// The rules also reach a file searched by name through a link: the
	// file opened is checked.
	res = c.Call("Grep", map[string]any{"pattern": "SECRET", "path": "alias.txt", "output_mode": "content"})
	if res.Ok || strings.Contains(res.Text+res.Message, "denied file") || res.Message != "alias.txt leads to a file the user's Read deny rules cover, so it was not read.\nDo not try to read it another way." {
		t.Errorf("a link to a denied file, searched by name: %+v", res)
	}
	// Without rules, everything is searched.
	c.DenyRead = nil
	if res := c.Call("Grep", map[string]any{"pattern": "SECRET", "output_mode": "count"}); !strings.Contains(res.Text, "5 matching lines in 5 files") {
		t.Errorf("without deny rules:\n%s", res.Text)
	}
}

// TestGrepChecksTheRootItOpened: a searched path that is a symlink, flipped
// between a directory inside and one outside while calls run, never shows
// the outside one: the root is opened once, the descriptor checked, and
// the walk opens files beneath it.
func TestGrepChecksTheRootItOpened(t *testing.T) {
	base := t.TempDir()
	ws, outside := filepath.Join(base, "ws"), filepath.Join(base, "outside")
	writeFixture(t, ws, []fixtureFile{{path: "in/a.txt", content: "needle inside\n"}})
	writeFixture(t, outside, []fixtureFile{{path: "a.txt", content: "needle OUTSIDE\n"}})
	link := filepath.Join(ws, "link")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	c := serve(t, nil)
	c.Cwd = ws
	c.AllowedReads = []string{filepath.Join(ws, "in")}
	// Checked while it led inside; swapped before the call.
	res := c.Call("Grep", map[string]any{"pattern": "needle", "path": "link", "output_mode": "content"})
	if res.Ok || !strings.HasPrefix(res.Message, "link changed after the permission check: it now leads outside what this call was allowed to read") {
		t.Fatalf("a swapped root: %+v", res)
	}
	stop := make(chan struct{})
	tmp := link + ".swap"
	flips := make(chan int, 1)
	go func() {
		n := 0
		defer func() { flips <- n }()
		targets := [2]string{filepath.Join(ws, "in"), outside}
		for {
			select {
			case <-stop:
				return
			default:
			}
			_ = os.Remove(tmp)
			if os.Symlink(targets[n%2], tmp) != nil || os.Rename(tmp, link) != nil {
				return
			}
			n++
		}
	}()
	found := 0
	for range 200 {
		res := c.Call("Grep", map[string]any{"pattern": "needle", "path": "link", "output_mode": "content"})
		if strings.Contains(res.Text+res.Message, "OUTSIDE") {
			close(stop)
			<-flips
			t.Fatalf("Grep showed the outside file while the link flipped: %+v", res)
		}
		if res.Ok && strings.Contains(res.Text, "needle inside") {
			found++
		}
	}
	close(stop)
	t.Logf("%d flips; %d of 200 searches found the inside file", <-flips, found)
}
