package search

import (
	"bytes"
	"regexp"
	"testing"
)

// FuzzPrefilter checks, for any pattern and text, that the prefilter
// changes no result: the same matching lines and the same output as the
// regexp run on every line.
func FuzzPrefilter(f *testing.F) {
	for _, p := range prefilterPatterns {
		f.Add(p, "", false, false)
	}
	f.Add(`(?i)TiMeOuT`, "x timeout y\nTIMEOUT\n", true, false)
	f.Add(`a\nb`, "a\nb\nab\n", false, true)
	f.Add(`(?s)func.*\{`, "func f(\n) {\n}", false, true)
	f.Add(`[kK]elvin`, "\u212aelvin", false, false)
	f.Fuzz(func(t *testing.T, pattern, text string, ignoreCase, multiline bool) {
		if len(pattern) > 64 || len(text) > 4096 {
			return
		}
		with, err := Compile(pattern, PatternOptions{IgnoreCase: ignoreCase, Multiline: multiline})
		if err != nil {
			return
		}
		without, err := Compile(pattern, PatternOptions{IgnoreCase: ignoreCase, Multiline: multiline, NoPrefilter: true})
		if err != nil {
			t.Fatalf("compiles with the prefilter but not without: %v", err)
		}
		data := []byte(corpus + "\n" + text)
		for _, mode := range []Mode{FilesWithMatches, Content} {
			o := Options{Mode: mode, LineNumbers: true, Before: 1, After: 2}
			o.Pattern = with
			gotN, gotOut := scanMemory(o, data)
			o.Pattern = without
			wantN, wantOut := scanMemory(o, data)
			if gotN != wantN || gotOut != wantOut {
				t.Fatalf("pattern %q: with the prefilter %d matches, without %d\nwith:\n%s\nwithout:\n%s", pattern, gotN, wantN, gotOut, wantOut)
			}
		}
	})
}

// FuzzLineSemantics checks that the regexp the engine runs, with newline
// taken out of its classes and printed back from the parse tree, matches
// a line exactly when the pattern as written does.
func FuzzLineSemantics(f *testing.F) {
	for _, p := range prefilterPatterns {
		f.Add(p, "func NewServer(addr string)")
	}
	f.Add(`[^a]+`, "bbb")
	f.Add(`\s+x`, " \t x")
	f.Add(`(?i)ǅ`, "ǆ")
	f.Add(`(?U)a+`, "aaa")
	f.Fuzz(func(t *testing.T, pattern, line string) {
		if len(pattern) > 64 || bytes.IndexByte([]byte(line), '\n') >= 0 {
			return
		}
		plain, err := regexp.Compile("(?m:" + pattern + ")")
		if err != nil {
			return
		}
		p, err := Compile(pattern, PatternOptions{})
		if err != nil {
			return // a pattern that spells out a newline
		}
		if got, want := p.re.MatchString(line), plain.MatchString(line); got != want {
			t.Fatalf("pattern %q on %q: engine regexp %q says %v, Go says %v", pattern, line, p.re.String(), got, want)
		}
	})
}
