package search

import (
	"bytes"
	"errors"
	"regexp"
	"regexp/syntax"
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
// taken out of its classes, \b checked in Unicode's sense and printed back
// from the parse tree, matches a line exactly when the pattern as written
// does, with rg's Unicode classes: Go's regexp on the rewritten pattern,
// which is exact but for \b on a line that is not ASCII (there Go's \b is
// ASCII's, and FuzzBoundaryVM and the comparison with rg cover it).
func FuzzLineSemantics(f *testing.F) {
	for _, p := range prefilterPatterns {
		f.Add(p, "func NewServer(addr string)")
	}
	f.Add(`[^a]+`, "bbb")
	f.Add(`\s+x`, " \t x")
	f.Add(`(?i)ǅ`, "ǆ")
	f.Add(`(?U)a+`, "aaa")
	f.Add(`Gr\w+e`, "Grüße")
	f.Add(`\bna\b`, "naïve na")
	f.Add(`[\w-]+\W`, "a-b c")
	f.Fuzz(func(t *testing.T, pattern, line string) {
		if len(pattern) > 64 || bytes.IndexByte([]byte(line), '\n') >= 0 {
			return
		}
		rewritten, err := unicodeClasses(pattern)
		if err != nil {
			return
		}
		plain, err := regexp.Compile("(?m:" + rewritten + ")")
		if err != nil {
			return
		}
		if _, err := regexp.Compile("(?m:" + pattern + ")"); err != nil {
			return
		}
		p, err := Compile(pattern, PatternOptions{})
		if err != nil {
			return // a pattern that spells out a newline
		}
		if p.boundary != nil && !isASCII(line) {
			return
		}
		got := p.re.MatchString(line) && p.boundaryHolds([]byte(line))
		if want := plain.MatchString(line); got != want {
			t.Fatalf("pattern %q on %q: engine regexp %q says %v, Go says %v", pattern, line, p.re.String(), got, want)
		}
	})
}

// FuzzBoundaryVM: the matcher that gives \b its Unicode sense agrees with
// Go's regexp wherever the two senses agree: on a pattern without \b or
// \B, and on an ASCII line.
func FuzzBoundaryVM(f *testing.F) {
	for _, p := range prefilterPatterns {
		f.Add(p, "func NewServer(addr string)")
	}
	f.Add(`\bx\b`, "a x b")
	f.Add(`(?i)^\Bab|c$`, "xab c")
	f.Add(`a*?b+|[^c]`, "aaab")
	f.Fuzz(func(t *testing.T, pattern, line string) {
		if len(pattern) > 64 || len(line) > 256 {
			return
		}
		tree, err := syntax.Parse(pattern, syntax.Perl&^syntax.OneLine)
		if err != nil {
			return
		}
		if hasBoundary(tree) && !isASCII(line) {
			return
		}
		vm, err := newBoundaryVM(tree)
		if err != nil {
			return
		}
		re, err := regexp.Compile(tree.String())
		if err != nil {
			return
		}
		if got, want := vm.match([]byte(line)), re.MatchString(line); got != want {
			t.Fatalf("pattern %q on %q: the VM says %v, Go says %v", pattern, line, got, want)
		}
	})
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// FuzzUnicodeClasses: rewriting the classes never breaks a pattern Go
// accepts (it compiles after, or is the one refusal the tool explains),
// and leaves a pattern with no class escape as it was.
func FuzzUnicodeClasses(f *testing.F) {
	for _, s := range []string{`\w+`, `[\w-]`, `[^\W_]`, `\Qa\w\E\d`, `[[:alpha:]\s]`, `[\p{Greek}\d]`, `\\w`, `[]\w]`, `[^]\S]`, `\pL\w`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, pattern string) {
		if len(pattern) > 64 {
			return
		}
		if _, err := syntax.Parse(pattern, syntax.Perl); err != nil {
			return
		}
		out, err := unicodeClasses(pattern)
		if errors.Is(err, ErrNegatedUnicodeClass) {
			return
		}
		if err != nil {
			t.Fatalf("unicodeClasses(%q): %v", pattern, err)
		}
		if _, err := syntax.Parse(out, syntax.Perl); err != nil {
			t.Fatalf("unicodeClasses(%q) = %q, which does not parse: %v", pattern, out, err)
		}
		if !regexp.MustCompile(`\\[wWdDsS]`).MatchString(pattern) && out != pattern {
			t.Fatalf("unicodeClasses(%q) = %q: changed a pattern without class escapes", pattern, out)
		}
	})
}
