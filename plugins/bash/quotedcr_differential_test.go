//go:build linux

package bash

import (
	"math/rand/v2"
	"testing"
)

// TestQuotedBlanksBashAgrees: a carriage return inside single quotes is let through the parser (issue 29's
// false alarm `echo 'a<CR>b'`), and bash then runs only what the analyzer saw: the differential oracle of class
// 11 on commands mixing quoted and unquoted blanks with comments, heredocs and backslash-newlines. A carriage
// return outside single quotes, or before a newline (the parser drops it), and a form feed or vertical tab
// anywhere (the printer changes them) are still refused.
func TestQuotedBlanksBashAgrees(t *testing.T) {
	bash := diffBash(t)
	dir := t.TempDir()
	for _, c := range []string{"echo 'a\rb'", "echo 'a\r'#'\ntouch x'", "echo 'a\r\rb'; touch y", "echo '\r' && ls"} {
		if _, ok := Canonical(c); !ok {
			t.Errorf("%q is refused; a blank inside single quotes is a literal", c)
		}
	}
	for _, c := range []string{"echo a\rb", "cat <<'E'\n'\r'\nE\ntouch z", "echo \"\r\"", "echo $'\r'", "echo 'a' #'\r'",
		"echo '\x01'", "echo 'a\r\nb'", "echo '\f'", "echo '\v'"} {
		if _, ok := Canonical(c); ok {
			t.Errorf("%q is let through: the blank is outside single quotes", c)
		}
	}
	fragments := []string{"'\r'", "'a\r#'", "'\r\n'", "'\f'", "'\v'", "'", "\r", " #", "\\\n", "\n", "; touch t", " && ls",
		"echo e", "cat <<E\n'\r'\nE\n", "\"'\r'\"", "$(echo '\r')", "`echo '\r'`", " ", "'#'", "# '\r'\n"}
	r := rand.New(rand.NewPCG(29, 7))
	allowed := 0
	for range 400 {
		c := "echo "
		for range 2 + r.IntN(6) {
			c += fragments[r.IntN(len(fragments))]
		}
		if _, ok := Canonical(c); ok {
			allowed++
		}
		if missed, canon := diffCheck(t, bash, dir, c); missed != "" {
			t.Errorf("bash executed %q, which the analyzer did not see, for %q (run as %q)", missed, c, canon)
		}
	}
	if allowed < 40 {
		t.Fatalf("only %d of 400 commands parsed: the quoted blanks were hardly checked", allowed)
	}
}
