package grep

import (
	"encoding/json"
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
	// The rules also reach a file searched by name through a link.
	res = c.Call("Grep", map[string]any{"pattern": "SECRET", "path": "alias.txt", "output_mode": "content"})
	if strings.Contains(res.Text, "denied file") || !strings.HasSuffix(res.Text, "Skipped 1 file "+note) {
		t.Errorf("a link to a denied file, searched by name:\n%s", res.Text)
	}
	// Without rules, everything is searched.
	c.DenyRead = nil
	if res := c.Call("Grep", map[string]any{"pattern": "SECRET", "output_mode": "count"}); !strings.Contains(res.Text, "5 matching lines in 5 files") {
		t.Errorf("without deny rules:\n%s", res.Text)
	}
}
