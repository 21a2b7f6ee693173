package edit_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzEditMatchesReplace fuzzes Edit over random files and strings: an
// Edit that succeeds leaves exactly what strings.Replace makes (with
// old_string taken as written or, in a file with \r\n endings, matched
// line by line against the file's own endings, compared with those
// endings made \n and the text outside the replaced part byte for byte),
// one that is refused leaves the file as it was, and Edit refuses exactly
// the inputs the reference says cannot apply.
func FuzzEditMatchesReplace(f *testing.F) {
	f.Add("a\nb\nc\n", "b", "B", false)
	f.Add("x x x", "x", "y", true)
	f.Add("x x x", "x", "y", false)
	f.Add("one\r\ntwo\r\n", "one\ntwo", "1\n2", false)
	f.Add("no newline", "newline", "", false)
	f.Add("aaa", "aa", "b", true)
	f.Add("same", "same", "same", false)
	f.Add("caf\xe9", "caf", "tea", false)
	f.Add("a\r\nb\nc\r\nd\n", "a\nb\nc", "A\nB\nx\nC", false)
	f.Add("a\nb\r\na\r\nb\n", "a\nb", "z", false)
	f.Add("a\r\r\nb", "a\nb", "z", true)
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
		old, new = viaJSON(old), viaJSON(new)
		want, ok := reference(content, old, new, all)
		if res.Ok != ok {
			t.Fatalf("Edit ok=%v (%s), the reference says %v", res.Ok, res.Message, ok)
		}
		if !ok {
			if string(got) != content {
				t.Fatalf("a refused Edit changed the file: %q -> %q", content, got)
			}
			return
		}
		if !byLines(content, old) {
			if string(got) != want {
				t.Fatalf("Edit made %q, strings.Replace makes %q", got, want)
			}
			return
		}
		if lf := strings.ReplaceAll(string(got), "\r\n", "\n"); lf != want {
			t.Fatalf("Edit made %q, which with \\n endings is %q; strings.Replace makes %q", got, lf, want)
		}
		at := linesPattern(old).FindAllStringIndex(content, -1)
		last := at[0]
		if all {
			last = at[len(at)-1]
		}
		if !strings.HasPrefix(string(got), content[:at[0][0]]) || !strings.HasSuffix(string(got), content[last[1]:]) {
			t.Fatalf("Edit of %q in %q changed bytes outside the replaced part: %q", old, content, got)
		}
	})
}

func viaJSON(s string) string {
	b, _ := json.Marshal(s)
	var out string
	_ = json.Unmarshal(b, &out)
	return out
}

// byLines tells when old_string is matched line by line against the
// file's endings: the file has \r\n endings and old_string has lines and
// no \r (Read shows none).
func byLines(content, old string) bool {
	return strings.Contains(content, "\r\n") && strings.Contains(old, "\n") && !strings.Contains(old, "\r")
}

// linesPattern matches old with each \n standing for \n or \r\n.
func linesPattern(old string) *regexp.Regexp {
	segs := strings.Split(old, "\n")
	for i, s := range segs {
		segs[i] = regexp.QuoteMeta(s)
	}
	return regexp.MustCompile(strings.Join(segs, `\r?\n`))
}

// reference is what Edit must do, by strings.Replace; where old_string is
// matched by lines, the result is given with \n endings, and the
// occurrences are counted with a regular expression.
func reference(content, old, new string, all bool) (string, bool) {
	if old == "" || old == new || strings.IndexByte(content, 0) >= 0 || !utf8.ValidString(content) {
		return "", false
	}
	n := strings.Count(content, old)
	if byLines(content, old) {
		n = len(linesPattern(old).FindAllStringIndex(content, -1))
		lf := func(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }
		content, new = lf(content), lf(new)
	}
	if n == 0 || n > 1 && !all {
		return "", false
	}
	if all {
		return strings.ReplaceAll(content, old, new), true
	}
	return strings.Replace(content, old, new, 1), true
}
