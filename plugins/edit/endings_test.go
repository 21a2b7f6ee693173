package edit_test

import (
	"os"
	"strings"
	"testing"
)

// A file that mixes \r\n and \n line endings: Read shows every line
// without its \r, so a multi-line old_string written with \n matches the
// file's own ending line by line, the replacement keeps each line's
// ending, and text that Read shows alike at two places is two
// occurrences, never one picked silently.
func TestEditMixedLineEndings(t *testing.T) {
	cases := []struct {
		name, content, old, new, want, says string
	}{
		{"each line keeps its ending", "a\r\nb\nc\r\nd\n", "b\nc\nd", "B\nC\nD", "a\r\nB\nC\r\nD\n",
			"each line keeping its own line ending (the file mixes \\r\\n and \\n)"},
		{"an inserted line takes the ending of the line at its place", "one\r\ntwo\nthree\r\n", "one\ntwo\n", "one\nmid\ntwo\n", "one\r\nmid\ntwo\nthree\r\n",
			"each line keeping its own line ending"},
		{"lines kept at the end keep theirs", "x\r\ny\nz\n", "x\ny\nz", "X\nY2\ny\nz", "X\r\nY2\ny\nz\n", "mixes"},
		{"lines added past the last take its ending", "p\r\nq\nr\n", "p\nq\n", "P\nQ\nR\nS\n", "P\r\nQ\nR\nS\nr\n", "mixes"},
		{"lines added before kept ones", "a\r\nb\nc\n", "a\nb\nc", "x\ny\na\nb\nc", "x\r\ny\na\r\nb\nc\n", "mixes"},
		{"lines removed before kept ones", "a\r\nb\nc\n", "a\nb\nc", "b\nc", "b\nc\n", "mixes"},
		{"blank lines with \\r\\n", "a\r\n\r\nb\nc\n", "a\n\nb", "A\n\nB", "A\r\n\r\nB\nc\n", "with the file's CRLF line endings"},
		{"a line added after the last", "a\r\nb\r\nc\n", "a\nb", "a\nb\nb2", "a\r\nb\r\nb2\r\nc\n", "with the file's CRLF line endings"},
		{"new_string written with \\r\\n gets the file's endings", "p\r\nq\nr\n", "p\nq\n", "P\r\nQ\r\n", "P\r\nQ\nr\n", "mixes"},
		{"a CRLF region of a mixed file", "lf\nc1\r\nc2\r\n", "c1\nc2", "C1\nC2", "lf\nC1\r\nC2\r\n", "with the file's CRLF line endings"},
		{"an LF region of a mixed file", "c\r\nl1\nl2\n", "l1\nl2", "L1\nL2", "c\r\nL1\nL2\n", "now lines 2–3."},
		{"old_string starting at a line end", "a\r\nb\nc\n", "\nb\n", "\nB\n", "a\r\nB\nc\n", "mixes"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := serve(t)
			p := writeFile(t, c.Cwd, "f.txt", tc.content, 0o644)
			markRead(t, c, p, true)
			res := c.Call("Edit", map[string]any{"file_path": p, "old_string": tc.old, "new_string": tc.new})
			if !res.Ok {
				t.Fatalf("Edit refused: %s", res.Message)
			}
			if got, _ := os.ReadFile(p); string(got) != tc.want {
				t.Errorf("file is %q, want %q", got, tc.want)
			}
			if !strings.Contains(res.Text, tc.says) {
				t.Errorf("confirmation %q lacks %q", res.Text, tc.says)
			}
		})
	}
}

func TestEditMixedLineEndingsAmbiguous(t *testing.T) {
	c := serve(t)
	content := "a\nb\r\nx\na\r\nb\n"
	p := writeFile(t, c.Cwd, "f.txt", content, 0o644)
	markRead(t, c, p, true)
	res := c.Call("Edit", map[string]any{"file_path": p, "old_string": "a\nb", "new_string": "z"})
	if res.Ok || !strings.Contains(res.Message, "old_string occurs 2 times in f.txt (at lines 1, 4)") {
		t.Fatalf("an old_string Read shows at two places was not refused as two: ok=%v %s%s", res.Ok, res.Message, res.Text)
	}
	if got, _ := os.ReadFile(p); string(got) != content {
		t.Fatalf("a refused Edit changed the file: %q", got)
	}
	res = c.Call("Edit", map[string]any{"file_path": p, "old_string": "a\nb", "new_string": "z", "replace_all": true})
	if !res.Ok {
		t.Fatalf("replace_all refused: %s", res.Message)
	}
	if got, _ := os.ReadFile(p); string(got) != "z\r\nx\nz\n" {
		t.Fatalf("file is %q", got)
	}
}
