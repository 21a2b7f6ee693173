package search

import (
	"fmt"
	"regexp/syntax"
	"slices"
	"testing"
)

func litsOf(t *testing.T, pattern string, fold bool) ([]lit, bool) {
	t.Helper()
	flags := syntax.Perl &^ syntax.OneLine
	if fold {
		flags |= syntax.FoldCase
	}
	re, err := syntax.Parse(pattern, flags)
	if err != nil {
		t.Fatalf("parse %q: %v", pattern, err)
	}
	return requiredLiterals(re)
}

func TestRequiredLiterals(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		fold    bool
		want    string // the set, as %v of []lit
		exact   bool
	}{
		// A plain literal is exact: the regexp never runs.
		{`func NewServer`, false, `[{func NewServer false}]`, true},
		// The required literal is only in the middle.
		{`[A-Z][a-z]+Transport\b`, false, `[{Transport false}]`, false},
		{`\w+Error\(`, false, `[{Error( false}]`, false},
		// Alternations give a set; case-insensitive ones fold.
		{`(?i)(deadline|timeout) exceeded`, false, `[{deadline exceeded true} {timeout exceeded true}]`, true},
		{`deadline|timeout`, true, `[{deadline true} {timeout true}]`, true},
		{`foo|bar\d`, false, `[{foo false} {bar false}]`, false},
		// Assertions keep the literal but need the regexp.
		{`^import`, false, `[{import false}]`, false},
		{`\bcat\b`, false, `[{cat false}]`, false},
		// Small classes expand; an optional part multiplies.
		{`[Tt]ransport`, false, `[{Transport false} {transport false}]`, true},
		{`colou?r`, false, `[{colour false} {color false}]`, true},
		// 'k' and 's' fold to non-ASCII runes (Kelvin sign, long s), so a
		// folded literal keeps only the part without them.
		{`(?i)kelvin`, false, `[{elvin true}]`, false},
		{`(?i)status`, false, `[{tatu true}]`, false},
		// Mixed case sensitivity is approximated by folding, so not exact.
		{`(?i:foo)Bar`, false, `[{foobar true}]`, false},
		// Nothing to look for.
		{`\w+`, false, `[]`, false},
		{`a*`, false, `[]`, false},
		{`.`, false, `[]`, false},
		{`foo|\d+`, false, `[]`, false},
		{`(?i)ks`, false, `[]`, false},
		// U+FFFD matches invalid UTF-8 in Go's regexp; a byte search for it
		// would not, so it is never a literal.
		{"\uFFFD", false, `[]`, false},
		// Of equally long sets, the one with fewer strings.
		{`\d(foo|bar)\d+baz`, false, `[{baz false}]`, false},
		{`[xyz]9`, false, `[{x9 false} {y9 false} {z9 false}]`, true},
		// Repetition keeps what is required.
		{`(abc)+d`, false, `[{abc false}]`, false},
		{`x(abc){2,3}`, false, `[{xabcabcabc false} {xabcabc false}]`, true},
		// A short folded literal expands into its case variants, the
		// Kelvin sign included, and stays exact.
		{`(?i)k`, false, "[{K false} {k false} {\u212a false}]", true},
		{`(?i)ok`, false, `[{o true}]`, false},
	} {
		got, exact := litsOf(t, tc.pattern, tc.fold)
		if got == nil {
			got = []lit{}
		}
		if s := fmt.Sprint(got); s != tc.want || exact != tc.exact {
			t.Errorf("requiredLiterals(%q) = %s exact=%v, want %s exact=%v", tc.pattern, s, exact, tc.want, tc.exact)
		}
	}
}

func TestFoldSafe(t *testing.T) {
	var unsafe []rune
	for r := rune(0); r < 128; r++ {
		if !foldSafe(r) {
			unsafe = append(unsafe, r)
		}
	}
	if !slices.Equal(unsafe, []rune("KSks")) {
		t.Errorf("ASCII runes that fold outside ASCII = %q, want %q", string(unsafe), "KSks")
	}
	if foldSafe('é') || !foldSafe('中') {
		t.Errorf("foldSafe: é (has a case) must be unsafe, 中 (has none) safe")
	}
	for in, want := range map[string]string{"timeouts exceeded": " exceeded", "timeouts exceed": "timeout", "kk": "", "ok": "o", "ab": "ab"} {
		if got := longestFoldSafe(in); got != want {
			t.Errorf("longestFoldSafe(%q) = %q, want %q (the first of equal runs)", in, got, want)
		}
	}
}
