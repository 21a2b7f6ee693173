package search

import (
	"regexp"
	"strings"
	"testing"
)

// TestPrefilterSameResults checks that the literal prefilter changes
// nothing: for each pattern, with and without ignore-case, every mode
// gives the same result as running the regexp on every line.
func TestPrefilterSameResults(t *testing.T) {
	data := []byte(corpus)
	for _, pattern := range prefilterPatterns {
		for _, ic := range []bool{false, true} {
			with, err := Compile(pattern, PatternOptions{IgnoreCase: ic})
			if err != nil {
				t.Fatalf("Compile(%q): %v", pattern, err)
			}
			without, _ := Compile(pattern, PatternOptions{IgnoreCase: ic, NoPrefilter: true})
			if without.find != nil {
				t.Fatalf("NoPrefilter left a prefilter on %q", pattern)
			}
			for _, mode := range []Mode{FilesWithMatches, Count, Content} {
				o := Options{Mode: mode, LineNumbers: true, Before: 1, After: 1}
				o.Pattern = with
				gotN, gotOut := scanMemory(o, data)
				o.Pattern = without
				wantN, wantOut := scanMemory(o, data)
				if gotN != wantN || gotOut != wantOut {
					t.Errorf("pattern %q (ignore case %v, mode %d): prefilter gives %d matches, regexp alone %d\nwith:\n%s\nwithout:\n%s", pattern, ic, mode, gotN, wantN, gotOut, wantOut)
				}
			}
		}
	}
}

// TestPrefilterMatchesPlainRegexp checks the regexp-alone result itself
// against Go's regexp run line by line on the same lines, so both sides
// of TestPrefilterSameResults are right, not merely equal.
func TestPrefilterMatchesPlainRegexp(t *testing.T) {
	lines := strings.Split(corpus, "\n")
	for _, pattern := range prefilterPatterns {
		for _, ic := range []bool{false, true} {
			src := "(?m)" + pattern
			if ic {
				src = "(?i)" + src
			}
			plain := regexp.MustCompile(src)
			want := 0
			for _, l := range lines {
				if plain.MatchString(l) {
					want++
				}
			}
			p, err := Compile(pattern, PatternOptions{IgnoreCase: ic})
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := scanMemory(Options{Mode: Count, Pattern: p}, []byte(corpus)); got != want {
				t.Errorf("pattern %q (ignore case %v): %d matching lines, plain regexp per line finds %d", pattern, ic, got, want)
			}
		}
	}
}

func TestPrefilterIsUsed(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		find    bool
		exact   bool
	}{
		{`func NewServer`, true, true},
		{`[A-Z][a-z]+Transport\b`, true, false},
		{`(?i)(deadline|timeout) exceeded`, true, true},
		{`\w+`, false, false},
	} {
		p, err := Compile(tc.pattern, PatternOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if (p.find != nil) != tc.find || p.exact != tc.exact {
			t.Errorf("%q: prefilter %v exact %v, want %v %v", tc.pattern, p.find != nil, p.exact, tc.find, tc.exact)
		}
	}
}
