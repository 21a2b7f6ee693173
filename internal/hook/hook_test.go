package hook_test

import (
	"context"
	"encoding/json"
	"net/netip"
	"strings"
	"testing"

	"github.com/riot-tools/riot/internal/egress"
	"github.com/riot-tools/riot/internal/hook"
)

func TestToolOutputText(t *testing.T) {
	for raw, want := range map[string]string{
		`"plain"`: "plain",
		`[{"type":"text","text":"a"},{"type":"image","data":"x"},{"type":"text","text":"b"}]`: "a\nb",
		`{"stdout":"out\n","stderr":"err"}`:                                                   "out\nerr",
		`{"content":"riot's"}`:                                                                "riot's",
		`{"other": 1}`:                                                                        `{"other":1}`,
	} {
		if got := hook.ToolOutputText(json.RawMessage(raw)); got != want {
			t.Errorf("%s: %q, want %q", raw, got, want)
		}
	}
}

// HTTP hooks reach loopback, and otherwise only allowed names whose
// addresses the network policy lets a command reach: public, private with
// allow_private, cloud metadata never unless an allow rule names it.
func TestLoopbackOr(t *testing.T) {
	rule, err := egress.ParseRule("hooks.example.com")
	if err != nil {
		t.Fatal(err)
	}
	n := hook.LoopbackOr(egress.Policy{Allowed: []egress.Rule{rule}})
	for host, ok := range map[string]bool{"127.0.0.1": true, "localhost": true, "[::1]": true, "hooks.example.com": true, "evil.example.com": false, "10.0.0.1": false} {
		if err := n.Check(host, 80); (err == nil) != ok {
			t.Errorf("Check(%s): %v, want allowed %v", host, err, ok)
		}
	}
	for _, c := range []struct {
		host, addr string
		ok         bool
	}{
		{"localhost", "127.0.0.1", true}, {"localhost", "10.1.1.1", false},
		{"hooks.example.com", "93.184.216.34", true}, {"hooks.example.com", "10.1.1.1", false},
		{"hooks.example.com", "127.0.0.1", false}, {"hooks.example.com", "169.254.169.254", false},
	} {
		if err := n.CheckAddr(c.host, 443, netip.MustParseAddr(c.addr)); (err == nil) != c.ok {
			t.Errorf("CheckAddr(%s, %s): %v, want allowed %v", c.host, c.addr, err, c.ok)
		}
	}
}

// A fail_closed hook's failure blocks; another's is ignored; exit 2
// blocks with stderr; a refused destination is a failure.
func TestRunStatuses(t *testing.T) {
	r := &hook.Runner{Dir: t.TempDir()}
	for _, c := range []struct {
		h      hook.Handler
		status hook.Status
		reason string
	}{
		{hook.Handler{Command: "cat >/dev/null; echo no >&2; exit 2"}, hook.Blocked, "no"},
		{hook.Handler{Command: "exit 3"}, hook.Failed, "exited with status 3"},
		{hook.Handler{Command: "exit 3", FailClosed: true}, hook.Blocked, "fail_closed"},
		{hook.Handler{Args: []string{"printf", `{"continue":false,"stopReason":"x"}`}}, hook.Done, ""},
		{hook.Handler{URL: "http://127.0.0.1:1/"}, hook.Failed, "reaches no network"},
	} {
		res := r.Run(context.Background(), c.h, []byte(`{}`))
		if res.Status != c.status || !strings.Contains(res.Reason, c.reason) {
			t.Errorf("%s: %v %q", c.h.Name(), res.Status, res.Reason)
		}
	}
	res := r.Run(context.Background(), hook.Handler{Args: []string{"printf", `{"continue":false,"stopReason":"x"}`}}, nil)
	if stop, why := res.Output.Stops(); !stop || why != "x" {
		t.Errorf("continue false: %v %q", stop, why)
	}
}
