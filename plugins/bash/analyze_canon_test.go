package bash

import (
	"slices"
	"strings"
	"testing"
)

// TestCanonical: the printed tree has no comment and runs what the analyzer saw; a command that does not parse,
// or holds a byte the parser and bash read differently, is refused (and run as written only once approved).
func TestCanonical(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"ls # comment", "ls"},
		{"ls #\\\ntouch x", "ls \\\n\ttouch x"}, // mvdan.cc/sh continues the line: ls gets two operands, as analysed
		{"echo a; echo b", "echo a\necho b"},
		{"cat <<EOF\n# not a comment\nEOF", "cat <<EOF\n# not a comment\nEOF"},
		{"echo '#x' \"#y\" \\#z", "echo '#x' \"#y\" \\#z"},
		{"# only\nls", "ls"},
		{"f() { ls # c\n}", "f() {\n\tls\n}"},
		{"echo 'a\rb' # c", "echo 'a\rb'"}, // a carriage return inside single quotes is printed as it is
	} {
		got, ok := Canonical(c.in)
		if !ok || got != c.want {
			t.Errorf("Canonical(%q) = %q, %v; want %q", c.in, got, ok, c.want)
		}
		if g, w := Analyze(got), Analyze(c.in); g.ReadOnly != w.ReadOnly || !slices.Equal(g.ReadPaths, w.ReadPaths) {
			t.Errorf("Canonical(%q) = %q is analysed as %+v, the input as %+v", c.in, got, g, w)
		}
	}
	for _, in := range []string{"echo x\r#; touch x", "ls\f", "ls\v", "ls\x00x", "ls \xff", "ls (", "echo \x7f", "\rls"} {
		if got, ok := Canonical(in); ok || got != in {
			t.Errorf("Canonical(%q) = %q, %v; want it refused and unchanged", in, got, ok)
		}
	}
	for _, in := range []string{"echo x\r#; touch x", "ls\f", "\rls", "echo 'a\r\nb'", "echo \"\r\"", "echo 'a'\r", "echo $'a\rb'"} {
		a := Analyze(in)
		if a.ReadOnly || !a.Opaque || len(a.Asks) != 1 || !strings.Contains(a.Asks[0], "control character") {
			t.Errorf("Analyze(%q) = %+v; want opaque, asking about the control character", in, a)
		}
	}
	if a := Analyze("ls ("); len(a.Asks) != 0 {
		t.Errorf("a plain parse error is opaque without the control-character reason: %q", a.Asks)
	}
}
