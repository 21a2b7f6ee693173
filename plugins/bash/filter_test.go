package bash

import (
	"bytes"
	"strings"
	"testing"
)

func TestLineFilter(t *testing.T) {
	long := strings.Repeat("x", maxFilterLine+10)
	tests := []struct {
		name     string
		input    string
		expr     string
		final    bool
		want     string
		consumed int
		matched  int
		skipped  int
		partial  bool
	}{
		{"keeps matching lines", "one\ntwo\nthree\n", "^t", false, "two\nthree\n", 14, 2, 1, false},
		{"nothing new", "", "x", false, "", 0, 0, 0, false},
		{"running job's last line waits", "a1\na2", "a", false, "a1\n", 3, 1, 0, true},
		{"finished job's last line counts, newline added", "a1\na2", "a", true, "a1\na2\n", 5, 2, 0, false},
		{"a long line is cut", long + "\nend\n", "^x", false, strings.Repeat("x", maxFilterLine) + " [line cut at 1 MiB]\n", len(long) + 5, 1, 1, false},
		{"a line of exactly the limit is whole", strings.Repeat("y", maxFilterLine-1) + "\n", "y", false, strings.Repeat("y", maxFilterLine-1) + "\n", maxFilterLine, 1, 0, false},
		{"a line one past the limit is cut", strings.Repeat("y", maxFilterLine) + "\n", "y", false, strings.Repeat("y", maxFilterLine) + " [line cut at 1 MiB]\n", maxFilterLine + 1, 1, 0, false},
		{"a long partial line waits whole", "ok\n" + long, "x", false, "", 3, 0, 1, true},
		{"invalid UTF-8 passes through", "\xff\xfe\nok\n", "^.", false, "\xff\xfe\nok\n", 6, 2, 0, false},
		{"CRLF stays", "a\r\nb\r\n", "^a", false, "a\r\n", 6, 1, 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, why := compileFilter(tt.expr)
			if why != "" {
				t.Fatal(why)
			}
			var out bytes.Buffer
			var res readResult
			consumed, err := f.copy(&out, strings.NewReader(tt.input), tt.final, &res)
			if err != nil {
				t.Fatal(err)
			}
			if out.String() != tt.want {
				t.Errorf("output %q, want %q", trunc(out.String()), trunc(tt.want))
			}
			if int(consumed) != tt.consumed || int(res.bytes) != tt.consumed {
				t.Errorf("consumed %d (bytes %d), want %d", consumed, res.bytes, tt.consumed)
			}
			if res.matched != tt.matched || res.skipped != tt.skipped || res.partial != tt.partial {
				t.Errorf("matched %d skipped %d partial %v; want %d %d %v", res.matched, res.skipped, res.partial, tt.matched, tt.skipped, tt.partial)
			}
		})
	}
}

func trunc(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
