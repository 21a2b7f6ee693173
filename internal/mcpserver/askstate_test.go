package mcpserver

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"
)

// A request state answers only the question it was issued for: in its
// session, for its tool and exact arguments (as JSON values), once, and
// within parkLimit; and the table of questions out is bounded.
func TestAskStatesBindOneAnswer(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	call := func(session, tool, args string) askBinding {
		return askBinding{session: session, tool: tool, args: argsDigest(json.RawMessage(args))}
	}
	var a askStates
	issue := func(b askBinding) string {
		b.question = "riot: allow touch x? reason"
		return a.issue(b, now)
	}
	orig := call("s1", "Bash", `{"command":"touch x","timeout":1000}`)
	for _, c := range []struct {
		name string
		use  askBinding
		at   time.Time
		ok   bool
	}{
		{"the same call", orig, now, true},
		{"the same values encoded otherwise", call("s1", "Bash", ` { "timeout" : 1000, "command":"touch x" } `), now, true},
		{"another session", call("s2", "Bash", `{"command":"touch x","timeout":1000}`), now, false},
		{"another tool", call("s1", "Write", `{"command":"touch x","timeout":1000}`), now, false},
		{"other arguments", call("s1", "Bash", `{"command":"touch y","timeout":1000}`), now, false},
		{"another number", call("s1", "Bash", `{"command":"touch x","timeout":1000.5}`), now, false},
		{"an added argument", call("s1", "Bash", `{"command":"touch x","timeout":1000,"description":""}`), now, false},
		{"after parkLimit", orig, now.Add(parkLimit), false},
	} {
		state := issue(orig)
		q, ok := a.take(state, c.use, c.at)
		if ok != c.ok || (ok && q != "riot: allow touch x? reason") {
			t.Errorf("%s: %q %v, want %v", c.name, q, ok, c.ok)
		}
		// Spent, whether it matched or not.
		if _, again := a.take(state, orig, now); again {
			t.Errorf("%s: the state answers twice", c.name)
		}
	}
	if _, ok := a.take("riot-p-00000000000000000000000000000000", orig, now); ok {
		t.Error("a made-up state answers")
	}
	if _, ok := a.take("", orig, now); ok {
		t.Error("no state answers")
	}
	// Unanswered questions are bounded: the oldest lapses first.
	var states []string
	for i := range maxAsks + 10 {
		states = append(states, a.issue(call("s", "Bash", fmt.Sprintf(`{"n":%d}`, i)), now.Add(time.Duration(i)*time.Millisecond)))
	}
	if len(a.asks) != maxAsks {
		t.Fatalf("%d questions out", len(a.asks))
	}
	if _, ok := a.take(states[0], call("s", "Bash", `{"n":0}`), now); ok {
		t.Error("the oldest question outlived the bound")
	}
	last := len(states) - 1
	if _, ok := a.take(states[last], call("s", "Bash", fmt.Sprintf(`{"n":%d}`, last)), now); !ok {
		t.Error("the newest question lapsed")
	}
}
