package bash

import (
	"bytes"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzShellQuote checks that a quoted word reaches bash as exactly itself:
// the EXIT trap names the per-call file with it.
func FuzzShellQuote(f *testing.F) {
	for _, s := range []string{"", "plain", "it's", "'", "''", `a"b`, "$(rm x)", "`id`", "a\nb", "\\", "!x", "*", "~", " lead"} {
		f.Add(s)
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		f.Skip("no bash")
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.IndexByte(s, 0) >= 0 {
			t.Skip("a NUL cannot be in an argument")
		}
		out, err := exec.Command(bash, "-c", "printf %s "+shellQuote(s)).Output()
		if err != nil || string(out) != s {
			t.Fatalf("shellQuote(%q) came back as %q (%v)", s, out, err)
		}
	})
}

// FuzzOneLine checks that Describe's shortening gives one line of at most
// the limit, plus the ellipsis.
func FuzzOneLine(f *testing.F) {
	for _, s := range []string{"", "ls", "a\nb\r\nc", strings.Repeat("x ", 100), "\xff\xfe", "é\u2028x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := oneLine(s, describeMax)
		if strings.ContainsAny(got, "\n\r\t") {
			t.Fatalf("oneLine(%q) = %q has a line break", s, got)
		}
		if n := utf8.RuneCountInString(got); n > describeMax+1 {
			t.Fatalf("oneLine(%q) has %d runes", s, n)
		}
	})
}

// FuzzLineFilter checks the filter against a plain split: it returns
// exactly the matching complete lines, and consumes exactly those.
func FuzzLineFilter(f *testing.F) {
	f.Add("one\ntwo\nthree", "^t", false)
	f.Add("a\n\nb\n", "^$", true)
	f.Add("x", ".", true)
	f.Add("\xff\n", "\\xff", false)
	f.Fuzz(func(t *testing.T, input, expr string, final bool) {
		re, err := regexp.Compile(expr)
		if err != nil {
			return
		}
		lf := &lineFilter{re: re}
		var out bytes.Buffer
		var res readResult
		consumed, err := lf.copy(&out, strings.NewReader(input), final, &res)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.SplitAfter(input, "\n")
		var want strings.Builder
		wantConsumed := 0
		for i, l := range lines {
			if l == "" {
				continue
			}
			complete := strings.HasSuffix(l, "\n")
			if !complete && !final {
				break
			}
			wantConsumed += len(l)
			if re.MatchString(l) {
				want.WriteString(l)
				if !complete {
					want.WriteByte('\n')
				}
			}
			_ = i
		}
		if out.String() != want.String() || int(consumed) != wantConsumed {
			t.Fatalf("filter %q on %q (final %v): got %q consumed %d; want %q consumed %d", expr, input, final, out.String(), consumed, want.String(), wantConsumed)
		}
	})
}
