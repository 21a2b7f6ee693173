package main_test

import (
	"regexp"
	"testing"
)

// A spilled result can be read back as the notice says, by the session
// that made it: for invocations without --session, the next invocation in
// the same workspace; never by a named session (issue 30 item 13).
func TestSpillReadBackWithoutSession(t *testing.T) {
	e := newEnv(t)
	r := e.riot("", "call", "Bash", `{"command":"seq 1 30000","description":"count"}`)
	r.want(t, 0, "is saved at")
	m := regexp.MustCompile(`is saved at (\S+?)\. Read it`).FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("no spill path in the notice:\n%s", r.stdout)
	}
	spill := m[1]
	// The next invocation, without a session, reads it as the notice says.
	e.riot("", "call", "Read", `{"file_path":"`+spill+`","offset":29999,"limit":2}`).want(t, 0, "30000")
	// A named session is another session: not its spill to read without asking.
	r = e.riot("", "call", "--session", "other", "Read", `{"file_path":"`+spill+`"}`)
	r.want(t, 1, "outside")
}
