package edit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/riot-tools/riot/plugin/filestate"
	"github.com/riot-tools/riot/plugin/plugintest"
	"github.com/riot-tools/riot/plugins/edit"
)

// A change keeps everything else byte for byte: CRLF line endings (also
// when old_string and new_string are written with plain newlines), a
// missing final newline, the permission bits.
func TestEditRoundTrips(t *testing.T) {
	cases := []struct {
		name, content, old, new, want string
		mode                          os.FileMode
	}{
		{"CRLF, matched with LF", "one\r\ntwo\r\nthree\r\n", "two\nthree", "2\n3", "one\r\n2\r\n3\r\n", 0o644},
		{"CRLF, matched exactly", "one\r\ntwo\r\n", "two\r\n", "zwei\r\n", "one\r\nzwei\r\n", 0o644},
		{"CRLF, one line", "a = 1\r\nb = 2\r\n", "b = 2", "b = 3", "a = 1\r\nb = 3\r\n", 0o644},
		{"no final newline", "x\ny", "y", "z", "x\nz", 0o644},
		{"final newline kept", "x\ny\n", "x", "w", "w\ny\n", 0o644},
		{"executable", "#!/bin/sh\necho hi\n", "hi", "ho", "#!/bin/sh\necho ho\n", 0o755},
		{"private", "secret = 1\n", "1", "2", "secret = 2\n", 0o600},
		{"mixed endings untouched", "a\r\nb\nc\r\n", "b", "B", "a\r\nB\nc\r\n", 0o644},
		{"LF lines of a CRLF file matched as written", "a\r\nb\nc\r\n", "b\nc", "B\nC", "a\r\nB\nC\r\n", 0o644},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := serve(t)
			p := writeFile(t, c.Cwd, "f.txt", tc.content, tc.mode)
			markRead(t, c, p, true)
			res := c.Call("Edit", map[string]any{"file_path": p, "old_string": tc.old, "new_string": tc.new})
			if !res.Ok {
				t.Fatalf("Edit failed: %s", res.Message)
			}
			got, _ := os.ReadFile(p)
			if string(got) != tc.want {
				t.Errorf("file is %q, want %q", got, tc.want)
			}
			info, _ := os.Stat(p)
			if info.Mode().Perm() != tc.mode {
				t.Errorf("mode %v, want %v", info.Mode().Perm(), tc.mode)
			}
			entries, _ := os.ReadDir(c.Cwd)
			if len(entries) != 1 {
				t.Errorf("the directory holds %d entries, want only the file: a temporary file was left", len(entries))
			}
		})
	}
}

// After an Edit the file counts as read as it is: a second Edit needs no
// Read, and the confirmation shows the change in place.
func TestConsecutiveEditsAndSnippet(t *testing.T) {
	c := serve(t)
	p := writeFile(t, c.Cwd, "main.go", "package main\n\nfunc main() {\n\tprintln(1)\n}\n", 0o644)
	markRead(t, c, p, true)
	res := c.Call("Edit", map[string]any{"file_path": p, "old_string": "println(1)", "new_string": "println(2)"})
	if !res.Ok {
		t.Fatal(res.Message)
	}
	if !strings.Contains(res.Text, "Edited main.go: replaced 1 occurrence, now line 4") || !strings.Contains(res.Text, "     4\t\tprintln(2)\n") {
		t.Errorf("confirmation %q", res.Text)
	}
	res = c.Call("Edit", map[string]any{"file_path": p, "old_string": "println(2)", "new_string": "println(3)\n\tprintln(4)"})
	if !res.Ok {
		t.Fatalf("a second Edit without a Read failed: %s", res.Message)
	}
	if !strings.Contains(res.Text, "now lines 4–5") {
		t.Errorf("confirmation %q", res.Text)
	}
	var ui edit.UI
	if err := json.Unmarshal(res.UI, &ui); err != nil {
		t.Fatal(err)
	}
	if ui.Replacements != 1 || len(ui.Hunks) != 1 {
		t.Fatalf("UI %+v", ui)
	}
	h := ui.Hunks[0]
	var del, ins []string
	for _, l := range h.Lines {
		switch l.Kind {
		case "delete":
			del = append(del, l.Text)
		case "insert":
			ins = append(ins, l.Text)
		}
	}
	if strings.Join(del, "|") != "\tprintln(2)" || strings.Join(ins, "|") != "\tprintln(3)|\tprintln(4)" || h.OldStart != 1 || h.NewLines != h.OldLines+1 {
		t.Errorf("hunk %+v", h)
	}
}

// replace_all changes every occurrence and says how many.
func TestReplaceAll(t *testing.T) {
	c := serve(t)
	p := writeFile(t, c.Cwd, "a.go", "x := 1\nx++\nuse(x)\n", 0o644)
	markRead(t, c, p, true)
	res := c.Call("Edit", map[string]any{"file_path": p, "old_string": "x", "new_string": "count", "replace_all": true})
	if !res.Ok {
		t.Fatal(res.Message)
	}
	got, _ := os.ReadFile(p)
	if string(got) != "count := 1\ncount++\nuse(count)\n" || !strings.Contains(res.Text, "replaced all 3 occurrences") {
		t.Errorf("file %q, text %q", got, res.Text)
	}
}

// A string found several times is refused with how many and where.
func TestSeveralGivesLines(t *testing.T) {
	c := serve(t)
	p := writeFile(t, c.Cwd, "a.go", "x := 1\nx := 1\ny\nx := 1\n", 0o644)
	markRead(t, c, p, true)
	res := c.Call("Edit", map[string]any{"file_path": p, "old_string": "x := 1", "new_string": "x := 2"})
	if !strings.Contains(res.Message, "occurs 3 times in a.go (at lines 1, 2, 4)") || !strings.Contains(res.Message, "replace_all") {
		t.Errorf("message %q", res.Message)
	}
}

// The line numbers listed stop at 20, and the rest are counted.
func TestSeveralListsTwentyLines(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{
		{20, "(at lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20)"},
		{21, "(at lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20 and 1 more)"},
	} {
		c := serve(t)
		p := writeFile(t, c.Cwd, "a.txt", strings.Repeat("same\n", tc.n), 0o644)
		markRead(t, c, p, true)
		res := c.Call("Edit", map[string]any{"file_path": p, "old_string": "same", "new_string": "other"})
		if !strings.Contains(res.Message, fmt.Sprintf("occurs %d times in a.txt %s,", tc.n, tc.want)) {
			t.Errorf("%d occurrences: %q", tc.n, res.Message)
		}
	}
}

// The record after a change is dated by the tool's clock.
func TestRecordUsesTheClock(t *testing.T) {
	at := time.Date(2030, 1, 2, 3, 4, 5, 6, time.UTC)
	c := plugintest.Serve(t, edit.Tools(), plugintest.WithClock(fixedClock{at}))
	c.Shared = map[string]map[string]string{filestate.ReadPlugin: {}}
	p := writeFile(t, c.Cwd, "a.txt", "x\n", 0o644)
	markRead(t, c, p, true)
	res := c.Call("Edit", map[string]any{"file_path": p, "old_string": "x", "new_string": "y"})
	var rec filestate.Record
	if err := json.Unmarshal([]byte(res.State[filestate.Key(filestate.Canonical(p))]), &rec); err != nil || rec.At != at.UnixNano() || !rec.Whole {
		t.Errorf("record %+v (%v), want At %d", rec, err, at.UnixNano())
	}
}

type fixedClock struct{ t time.Time }

func (c fixedClock) Now() time.Time                             { return c.t }
func (c fixedClock) Sleep(context.Context, time.Duration) error { return nil }

// A string not found shows the closest lines, and names a difference of
// whitespace as such.
func TestNotFoundShowsClosest(t *testing.T) {
	content := "package main\n\nfunc main() {\n\tfmt.Println(\"hello\")\n\treturn\n}\n"
	cases := []struct {
		name, old string
		want      []string
	}{
		{"indentation", "    fmt.Println(\"hello\")\n    return", []string{"Lines 4–5 match it except for indentation", "     4\t\tfmt.Println(\"hello\")"}},
		{"trailing whitespace", "func main() {  ", []string{"Lines 3–3 match it except for whitespace at the end of a line"}},
		{"a near line", "fmt.Println(\"hallo\")", []string{"The closest text is at lines 4–4", "\tfmt.Println(\"hello\")"}},
		{"nothing near", "completely unrelated text here", []string{"Read the part of the file you mean to change"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := serve(t)
			p := writeFile(t, c.Cwd, "main.go", content, 0o644)
			markRead(t, c, p, true)
			res := c.Call("Edit", map[string]any{"file_path": p, "old_string": tc.old, "new_string": "x"})
			if res.Ok {
				t.Fatal("Edit succeeded")
			}
			for _, w := range tc.want {
				if !strings.Contains(res.Message, w) {
					t.Errorf("message %q lacks %q", res.Message, w)
				}
			}
		})
	}
}

// A file read through a symlink and edited through it changes the target;
// the link stays a link.
func TestEditThroughSymlink(t *testing.T) {
	c := serve(t)
	target := writeFile(t, c.Cwd, "real.txt", "old\n", 0o644)
	link := filepath.Join(c.Cwd, "link.txt")
	if err := os.Symlink("real.txt", link); err != nil {
		t.Fatal(err)
	}
	markRead(t, c, link, true)
	if res := c.Call("Edit", map[string]any{"file_path": link, "old_string": "old", "new_string": "new"}); !res.Ok {
		t.Fatal(res.Message)
	}
	if got, _ := os.ReadFile(target); string(got) != "new\n" {
		t.Errorf("target %q", got)
	}
	if info, _ := os.Lstat(link); info.Mode()&os.ModeSymlink == 0 {
		t.Error("the link was replaced by a file")
	}
}

// Write creates a file with its parents, overwrites a file read whole and
// unchanged, keeping its mode, and leaves it counted as read for Edit.
func TestWrite(t *testing.T) {
	c := serve(t)
	p := filepath.Join(c.Cwd, "new", "deep", "file.txt")
	res := c.Call("Write", map[string]any{"file_path": p, "content": "one\ntwo\n"})
	if !res.Ok {
		t.Fatal(res.Message)
	}
	if got, _ := os.ReadFile(p); string(got) != "one\ntwo\n" || !strings.Contains(res.Text, "Created new/deep/file.txt (2 lines, 8 bytes)") {
		t.Errorf("file %q, text %q", got, res.Text)
	}
	if res := c.Call("Write", map[string]any{"file_path": "short.txt", "content": "x\ny"}); !strings.Contains(res.Text, "Created short.txt (2 lines, 3 bytes)") {
		t.Errorf("no final newline: %q", res.Text)
	}
	var ui edit.UI
	_ = json.Unmarshal(res.UI, &ui)
	if !ui.Created || len(ui.Hunks) != 1 || len(ui.Hunks[0].Lines) != 2 || ui.Hunks[0].Lines[0].Kind != "insert" {
		t.Errorf("UI %+v", ui)
	}
	if res := c.Call("Edit", map[string]any{"file_path": p, "old_string": "two", "new_string": "2"}); !res.Ok {
		t.Fatalf("Edit after Write without a Read: %s", res.Message)
	}

	x := writeFile(t, c.Cwd, "run.sh", "#!/bin/sh\n", 0o750)
	markRead(t, c, x, true)
	if res := c.Call("Write", map[string]any{"file_path": x, "content": "#!/bin/sh\necho\n"}); !res.Ok || !strings.Contains(res.Text, "Replaced the whole of run.sh") {
		t.Fatalf("overwrite: %s %s", res.Message, res.Text)
	}
	if info, _ := os.Stat(x); info.Mode().Perm() != 0o750 {
		t.Errorf("mode %v after an overwrite", info.Mode().Perm())
	}
}
