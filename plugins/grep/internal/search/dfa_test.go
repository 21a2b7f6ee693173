package search

import (
	"bytes"
	"regexp/syntax"
	"strings"
	"testing"
)

// dfaPatterns are seeds for FuzzDFA and the cases of TestDFAMatchesRegexp:
// Unicode classes, folding, anchors in lines, empty matches, \b relaxed.
var dfaPatterns = []string{
	`\w+_\d+\(`, `^$`, `^`, `$`, `x*`, `a*$`, `^a|b$`, `(?i)straße`, `(?i)k`, `[^a]+`,
	`\s+x`, `Gr\w+e`, `\bna\b`, `[\p{Greek}\d]+`, `.`, `^.{3}$`, `(a|b)*a(a|b){6}`,
	`(?U)a+?b`, `ǅ`, `(?i)ǅ`, `\x{FFFD}`, `é+`, `^\s*//`, `(?i)(deadline|timeout) exceeded`,
	`[A-Z][a-z]+Transport\b`, `func\s+\w+\(`, `(^|x)y($|z)`, `a?^b`, `\pN$`, `a$b`, `^ab`, `x*ab`,
	`\d*_`, `(^|\s)foo`, `é\w*x`, `[^x]*aa`, `(?i)é.x`,
}

var dfaTexts = []string{
	"", "\n", "\n\n", "x", "abc\n", "a_1(\nfoo_12(x)\n", "Grüße\nnaïve na\n", "STRASSE straße\n",
	"\u212a k\n", "\xff\xfe_1(\n", "aab\nbaaaaaaa\n", "\u01c4\u01c5\u01c6\n", "func  Foo(bar)\n// c\n",
	"  // x\n\n\ty\nxy\nyz", "αβγ 123\n٣\n", "deadline EXCEEDED\nHTTPTransport\nRoundTransport x",
	"aaa\nxaab\n_\n 9_\né x éax\n", "ab\na\nb\n foo\nfoo",
}

// checkDFA compares the DFA with Go's regexp, the engine's regexp for
// pattern, on text: the same answer to "does it match", and the same
// first matching line from every line start, with the first match's end
// inside Go's leftmost match: at or after its start (no match ends before
// the leftmost one starts) and at or before its end (the DFA's is the
// least end of any match).
func checkDFA(t *testing.T, pattern, text string, ignoreCase bool) {
	p, err := Compile(pattern, PatternOptions{IgnoreCase: ignoreCase})
	if err != nil || p.dfa == nil {
		return
	}
	// The forward DFA alone, and with the suffix search when the pattern
	// ends in a literal (built here even where a prefilter would go first).
	checkDFAWith(t, p, nil, pattern, text)
	tree, err := syntax.Parse(p.re.String(), syntax.Perl)
	if err != nil {
		t.Fatalf("%q: the engine's regexp does not parse: %v", p.re, err)
	}
	if sp := newSuffixProg(tree); sp != nil {
		checkDFAWith(t, p, sp, pattern, text)
	}
}

func checkDFAWith(t *testing.T, p *Pattern, sp *suffixProg, pattern, text string) {
	d := newDFA(p.dfa)
	w := &worker{pat: &Pattern{re: p.re, dfa: p.dfa, suffix: sp}}
	h := []byte(text)
	for from := 0; from <= len(h); {
		end, ok := w.firstMatchEnd(d, h, from)
		if !ok {
			t.Fatalf("pattern %q (suffix %v): the DFA gave up on %d bytes", pattern, sp != nil, len(h))
		}
		loc := p.re.FindIndex(h[from:])
		if (end >= 0) != (loc != nil) {
			t.Fatalf("pattern %q (%q) on %q from %d: the DFA's first match ends at %d, Go's regexp finds %v", pattern, p.re, text, from, end, loc)
		}
		if loc == nil {
			break
		}
		s, e := from+loc[0], from+loc[1]
		if end < s || end > e {
			t.Fatalf("pattern %q (%q) on %q from %d: the DFA's first match ends at %d, outside Go's leftmost match [%d,%d)", pattern, p.re, text, from, end, s, e)
		}
		le := bytes.IndexByte(h[s:], '\n')
		if le < 0 {
			break
		}
		from = s + le + 1
	}
	// Each line alone, as the prefilter's candidate lines are decided.
	for _, line := range strings.Split(text, "\n") {
		end, _ := w.firstMatchEnd(d, []byte(line), 0)
		if got, want := end >= 0, p.re.MatchString(line); got != want {
			t.Fatalf("pattern %q (%q) on the line %q: the DFA says %v, Go's regexp %v", pattern, p.re, line, got, want)
		}
	}
}

func TestDFAMatchesRegexp(t *testing.T) {
	for _, pattern := range dfaPatterns {
		for _, text := range dfaTexts {
			for _, fold := range []bool{false, true} {
				checkDFA(t, pattern, text, fold)
			}
		}
	}
}

// FuzzDFA is the differential test of the lazy DFA, with Go's regexp as
// the oracle, on random patterns and texts.
func FuzzDFA(f *testing.F) {
	for _, p := range dfaPatterns {
		for _, text := range dfaTexts[:4] {
			f.Add(p, text, false)
		}
	}
	f.Add(`(?i)k+`, "K\u212ak\n", true)
	f.Fuzz(func(t *testing.T, pattern, text string, ignoreCase bool) {
		if len(pattern) > 64 || len(text) > 4096 {
			return
		}
		checkDFA(t, pattern, text, ignoreCase)
	})
}

// TestDFACoverage: the DFA is built for the patterns without Multiline
// whose program it covers, and not for the others.
func TestDFACoverage(t *testing.T) {
	for _, c := range []struct {
		pattern string
		o       PatternOptions
		want    bool
	}{
		{`\w+_\d+\(`, PatternOptions{}, true},
		{`\bx\b`, PatternOptions{}, true}, // \b relaxed: boundaryVM decides
		{`a\z`, PatternOptions{}, true},   // \z is $ on a line
		{`a.b`, PatternOptions{Multiline: true}, false},
		{`a+b`, PatternOptions{NoPrefilter: true}, false},
	} {
		p, err := Compile(c.pattern, c.o)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.dfa != nil; got != c.want {
			t.Errorf("%q %+v: DFA %v, want %v", c.pattern, c.o, got, c.want)
		}
	}
	// A program with an assertion the DFA does not model gets none.
	if d := newDFAProg(mustParse(t, `\ba`)); d != nil {
		t.Errorf(`\ba: a DFA, though it does not model \b`)
	}
}

// TestDFABudget: a DFA that outgrows its budget gives up on the buffer
// (the caller falls back to Go's regexp) with its cache dropped, and after
// dfaMaxResets stays off; the search's results do not change.
func TestDFABudget(t *testing.T) {
	p, err := Compile(`a(a|b){12}c`, PatternOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Pseudo-random a and b make thousands of states; the one match is at
	// the end.
	h := make([]byte, 4000)
	x := uint32(1)
	for i := range h {
		x = x*1664525 + 1013904223
		h[i] = "ab"[x>>31]
	}
	h[len(h)-14] = 'a'
	h = append(h, 'c')
	d := newDFA(p.dfa)
	d.budget = 4 << 10
	for i := range dfaMaxResets {
		if _, ok := d.firstMatchEnd(h, 0); ok {
			t.Fatalf("round %d: the DFA did not give up past its budget", i)
		}
		if d.mem > d.budget {
			t.Fatalf("round %d: the cache was not dropped: %d bytes", i, d.mem)
		}
	}
	if !d.off {
		t.Fatalf("the DFA is still on after %d drops", dfaMaxResets)
	}
	w := &worker{pat: p, dfa: d}
	if p.find != nil {
		w.cur.reset(p.find, h)
	}
	if ls, le := w.nextLine(h, 0); ls != 0 || le != len(h) {
		t.Fatalf("with the DFA off, nextLine = %d, %d; want the line", ls, le)
	}
	if loc := p.re.FindIndex(h); loc == nil || loc[1] != len(h) {
		t.Fatalf("the test text matches at %v, want at its end", loc)
	}
}

func mustParse(t *testing.T, pattern string) *syntax.Regexp {
	t.Helper()
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		t.Fatal(err)
	}
	return re
}
