package plugin_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/riot-tools/riot/plugin"
	"github.com/riot-tools/riot/plugin/plugintest"
	"github.com/riot-tools/riot/shared"
)

type guessIn struct {
	N     int  `json:"n"`
	Write bool `json:"write,omitempty"`
}

// guessy's answer varies by input, and it counts the calls that ran.
type guessy struct{ ran *atomic.Int64 }

func (guessy) Name() string                      { return "Guessy" }
func (guessy) Prompt() string                    { return "Counts." }
func (guessy) Describe(in guessIn) string        { return "Guessy" }
func (guessy) IsReadOnly(in guessIn) bool        { return !in.Write }
func (guessy) IsConcurrencySafe(in guessIn) bool { return !in.Write }
func (g guessy) Call(context.Context, guessIn, *plugin.Env) plugin.Outcome {
	g.ran.Add(1)
	return plugin.Ok(plugin.Text("ran"))
}

// TestCallExpecting: a Call that carries an expected answer runs the tool
// only when the tool's own answer is that one but for its description; on
// any other answer (a field differs, or one the SDK does not know) the
// stream is the answer and a failed Final with nothing in it, and the tool
// did not run. A rejection is Prepare's, as for any unprepared Call. The
// manifest declares that every tool honours it, with checks or without.
func TestCallExpecting(t *testing.T) {
	ran := &atomic.Int64{}
	c := plugintest.Serve(t, []plugin.Handler{plugin.New[guessIn](guessy{ran: ran}), plugin.New[bareIn](bare{})})
	for _, s := range c.Manifest() {
		if !s.HonoursExpect {
			t.Errorf("%s: HonoursExpect unset", s.Name)
		}
	}
	readOnly := &shared.PrepareAnswer{ReadOnly: true, ConcurrencySafe: true}
	unknown := &shared.PrepareAnswer{ReadOnly: true, ConcurrencySafe: true, Unknown: []byte{0xf8, 0x01, 0x01}} // field 31, varint 1
	cases := []struct {
		name, input string
		expect      *shared.PrepareAnswer
		runs        bool
	}{
		{"the guess", `{"n":1}`, readOnly, true},
		{"the guess with another description", `{"n":1}`, &shared.PrepareAnswer{Describe: "something else", ReadOnly: true, ConcurrencySafe: true}, true},
		{"a write guessed read-only", `{"n":1,"write":true}`, readOnly, false},
		{"read-only guessed a write", `{"n":1}`, &shared.PrepareAnswer{}, false},
		{"one field off", `{"n":1}`, &shared.PrepareAnswer{ReadOnly: true}, false},
		{"a field the SDK does not know", `{"n":1}`, unknown, false},
	}
	for _, tc := range cases {
		before := ran.Load()
		p, r := c.CallExpecting("Guessy", tc.input, tc.expect)
		if want := c.Prepare("Guessy", tc.input); !equalPrepared(p, want) {
			t.Errorf("%s: answer %+v, Prepare's %+v", tc.name, p, want)
		}
		ranNow := ran.Load() - before
		switch {
		case tc.runs && (ranNow != 1 || !r.Ok || r.Text != "ran"):
			t.Errorf("%s: ran %d, result %+v, want the tool run once", tc.name, ranNow, r)
		case !tc.runs && (ranNow != 0 || r.Ok || r.Message != "" || r.Chunks != 0 || r.State != nil || r.UI != nil):
			t.Errorf("%s: ran %d, result %+v, want not run: a failed Final with nothing in it", tc.name, ranNow, r)
		}
	}
	in := `{"n":99999999999999999999}`
	want := c.Prepare("Guessy", in)
	p, r := c.CallExpecting("Guessy", in, readOnly)
	if want.Rejected == "" || !equalPrepared(p, want) || r.Ok || r.Message != want.Rejected || ran.Load() != 2 {
		t.Errorf("a rejected input: answer %+v, result %+v, Prepare's %+v", p, r, want)
	}
	// A tool with the default answer is expected it, or not run.
	if _, r := c.CallExpecting("Bare", `{"path":"x"}`, &shared.PrepareAnswer{}); !r.Ok {
		t.Errorf("Bare with the default answer expected: %+v", r)
	}
	if _, r := c.CallExpecting("Bare", `{"path":"x"}`, readOnly); r.Ok || r.Chunks != 0 {
		t.Errorf("Bare expected read-only: %+v, want not run", r)
	}
}
