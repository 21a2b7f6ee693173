package search

import (
	"strings"
	"testing"
)

// TestSuffixHandsOver: the suffix search gives the forward DFA's answer
// where it hands over to it: on a line whose reverse scan meets a byte
// that is not ASCII, and on a long line of candidates that would make the
// reverse scans quadratic.
func TestSuffixHandsOver(t *testing.T) {
	long := "x" + strings.Repeat("b", 20000) + "\n"
	for _, c := range []struct {
		name, pattern, text string
		want                int
	}{
		{"not ASCII", `\w*a\w*b`, "éb é b\nzébab\n", len("éb é b\nzébab")},
		{"not ASCII, no match", `\w*a\w*b`, "éb é b\nzéb\n", -1},
		{"quadratic", `a\w*b`, long + "ab\n", len(long) + 2},
		{"quadratic, no match", `a\w*b`, long + long, -1},
	} {
		p, err := Compile(c.pattern, PatternOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if p.suffix == nil {
			t.Fatalf("%s: %q has no suffix search", c.name, c.pattern)
		}
		w := &worker{pat: p}
		fwd := newDFA(p.dfa)
		got, ok := w.firstMatchEnd(fwd, []byte(c.text), 0)
		if !ok || got != c.want {
			t.Errorf("%s: the first match ends at %d (ok %v), want %d", c.name, got, ok, c.want)
		}
		if want, _ := fwd.firstMatchEnd([]byte(c.text), 0); want != c.want {
			t.Errorf("%s: the forward DFA alone says %d, want %d", c.name, want, c.want)
		}
	}
}
