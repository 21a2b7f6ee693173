package main_test

import (
	"strings"
	"testing"
)

// A parameter rule that does not fit its tool is reported before any call:
// `riot tools` warns once on stderr, and `riot config --check` names it
// and exits 2; rules that fit pass the check.
func TestRuleProblemsReported(t *testing.T) {
	e := newEnv(t)
	want := `permission rule "Read(fil_path:/x*)": Read takes no parameter "fil_path"; did you mean file_path?`
	r := e.riot("", "tools", "--deny", "Read(fil_path:/x*)")
	r.want(t, 0, "Bash")
	if n := strings.Count(r.stderr, want); n != 1 {
		t.Fatalf("riot tools reported the rule %d times, want once:\n%s", n, r.stderr)
	}
	r = e.riot("", "config", "--check", "--deny", "Read(fil_path:/x*)")
	r.want(t, 2, want, "1 rule does not fit the tool it names")
	if n := strings.Count(r.stderr, want); n != 1 {
		t.Fatalf("riot config --check reported the rule %d times, want once:\n%s", n, r.stderr)
	}
	e.riot("", "config", "--check", "--deny", "Bash(run_in_background:true)", "--allow", "Bash(python3:*)").want(t, 0, "the permission rules fit")
}
