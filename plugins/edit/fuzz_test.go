package edit_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzEditMatchesReplace fuzzes Edit over random files and strings: an
// Edit that succeeds leaves exactly what strings.Replace makes (with
// old_string taken as written, or with the file's CRLF endings when only
// that matches), one that is refused leaves the file as it was, and Edit
// refuses exactly the inputs the reference says cannot apply.
func FuzzEditMatchesReplace(f *testing.F) {
	f.Add("a\nb\nc\n", "b", "B", false)
	f.Add("x x x", "x", "y", true)
	f.Add("x x x", "x", "y", false)
	f.Add("one\r\ntwo\r\n", "one\ntwo", "1\n2", false)
	f.Add("no newline", "newline", "", false)
	f.Add("aaa", "aa", "b", true)
	f.Add("same", "same", "same", false)
	f.Add("caf\xe9", "caf", "tea", false)
	f.Add("nul\x00", "nul", "x", false)
	f.Add("", "a", "b", false)
	c := serve(f)
	path := filepath.Join(c.Cwd, "f.txt")
	f.Fuzz(func(t *testing.T, content, old, new string, all bool) {
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		c := c.For(t)
		markRead(t, c, path, true)
		res := c.Call("Edit", map[string]any{"file_path": path, "old_string": old, "new_string": new, "replace_all": all})
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		// The input travels as JSON, which carries only valid UTF-8.
		want, ok := reference(content, viaJSON(old), viaJSON(new), all)
		if res.Ok != ok {
			t.Fatalf("Edit ok=%v (%s), the reference says %v", res.Ok, res.Message, ok)
		}
		if !ok {
			if string(got) != content {
				t.Fatalf("a refused Edit changed the file: %q -> %q", content, got)
			}
			return
		}
		if string(got) != want {
			t.Fatalf("Edit made %q, strings.Replace makes %q", got, want)
		}
	})
}

func viaJSON(s string) string {
	b, _ := json.Marshal(s)
	var out string
	_ = json.Unmarshal(b, &out)
	return out
}

// reference is what Edit must do, by strings.Replace.
func reference(content, old, new string, all bool) (string, bool) {
	if old == "" || old == new || strings.IndexByte(content, 0) >= 0 || !utf8.ValidString(content) {
		return "", false
	}
	if !strings.Contains(content, old) && strings.Contains(content, "\r\n") && strings.Contains(old, "\n") && !strings.Contains(old, "\r") {
		crlf := func(s string) string {
			return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
		}
		old, new = crlf(old), crlf(new)
	}
	n := strings.Count(content, old)
	if n == 0 || n > 1 && !all {
		return "", false
	}
	if all {
		return strings.ReplaceAll(content, old, new), true
	}
	return strings.Replace(content, old, new, 1), true
}
