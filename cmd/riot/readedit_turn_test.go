package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// turnResults decodes riot run's output.
func turnResults(t *testing.T, r result) []struct {
	Content any  `json:"content"`
	IsError bool `json:"is_error"`
} {
	t.Helper()
	var out []struct {
		Content any  `json:"content"`
		IsError bool `json:"is_error"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("riot run printed no results: %v\n%s\n%s", err, r.stdout, r.stderr)
	}
	return out
}

// A call's checks see what the earlier calls of its turn did: Read, then
// Edit of the same file in one `riot run` turn works, with and without
// --session, alone or after other reads (issue 30 item 2).
func TestReadThenEditInOneTurn(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		turn string
	}{
		{"no session", []string{"run", "--mode", "acceptEdits"},
			`[{"type":"tool_use","id":"r","name":"Read","input":{"file_path":"f.txt"}},{"type":"tool_use","id":"e","name":"Edit","input":{"file_path":"f.txt","old_string":"one","new_string":"two"}}]`},
		{"session", []string{"run", "--session", "s1", "--mode", "acceptEdits"},
			`[{"type":"tool_use","id":"r","name":"Read","input":{"file_path":"f.txt"}},{"type":"tool_use","id":"e","name":"Edit","input":{"file_path":"f.txt","old_string":"one","new_string":"two"}}]`},
		{"after a group of reads", []string{"run", "--mode", "acceptEdits"},
			`[{"type":"tool_use","id":"g","name":"Grep","input":{"pattern":"one"}},{"type":"tool_use","id":"r","name":"Read","input":{"file_path":"f.txt"}},{"type":"tool_use","id":"e","name":"Edit","input":{"file_path":"f.txt","old_string":"one","new_string":"two"}}]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			f := e.write("f.txt", "one\n")
			res := turnResults(t, e.riot(tc.turn, append(tc.args, "-")...))
			last := res[len(res)-1]
			if last.IsError {
				t.Fatalf("the Edit after its Read failed: %v", last.Content)
			}
			if got, _ := os.ReadFile(f); string(got) != "two\n" {
				t.Fatalf("file = %q", got)
			}
		})
	}
}

// Without --session each invocation is a session of its own: an Edit whose
// Read was in an earlier invocation fails with a message that says so and
// how to fix it, and the fix, as the message words it, works.
func TestEditWithoutSessionSaysHowSessionsWork(t *testing.T) {
	e := newEnv(t)
	f := e.write("f.txt", "one\n")
	e.riot("", "call", "Read", `{"file_path":"f.txt"}`).want(t, 0, "one")
	r := e.riot("", "call", "--mode", "acceptEdits", "Edit", `{"file_path":"f.txt","old_string":"one","new_string":"two"}`)
	r.want(t, 1, "Read f.txt first", "has no --session", "same --session ID")
	// With a session, the second invocation knows the first one's Read.
	e.riot("", "call", "--session", "fix", "Read", `{"file_path":"f.txt"}`).want(t, 0, "one")
	e.riot("", "call", "--session", "fix", "--mode", "acceptEdits", "Edit", `{"file_path":"f.txt","old_string":"one","new_string":"two"}`).want(t, 0, "Edited")
	if got, _ := os.ReadFile(filepath.Clean(f)); string(got) != "two\n" {
		t.Fatalf("file = %q", got)
	}
	// In a session, the not-read message does not talk about --session.
	e.write("g.txt", "x\n")
	r = e.riot("", "call", "--session", "fix", "--mode", "acceptEdits", "Edit", `{"file_path":"g.txt","old_string":"x","new_string":"y"}`)
	r.want(t, 1, "Read g.txt first")
	if strings.Contains(r.stdout+r.stderr, "--session") {
		t.Fatalf("a session's Edit was told about --session: %s", r.stdout)
	}
}
