package core_test

import (
	"context"
	"strings"
	"testing"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core"
	"github.com/riot-tools/riot/core/permission"
	"github.com/riot-tools/riot/core/session"
)

// answerer allows the commands it lists and denies the rest.
type answerer struct{ allow []string }

func (a answerer) Prompt(_ context.Context, req permission.Request, _ permission.Decision) (permission.Answer, error) {
	for _, s := range req.Subjects {
		for _, ok := range a.allow {
			if s.Value == ok {
				return permission.AnswerAllowOnce, nil
			}
		}
	}
	return permission.AnswerDeny, nil
}

// Each question and its answer is kept in the session's state, with the
// call's subjects and the step that asked.
func TestAsksAreRecorded(t *testing.T) {
	bash, err := bashBin()
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(t, func(c *config.Config) { c.Sandbox.Mode = config.SandboxOff })
	h := newHost(t, withConfig(cfg), withPlugins(core.PluginSpec{Name: "bash", Path: bash}), func(o *core.Options) {
		o.SessionID, o.Prompter = "asked", answerer{allow: []string{"npm test"}}
	})
	for _, cmd := range []string{"npm test", "npm publish"} {
		runTool(t, h, "c", "Bash", map[string]any{"command": cmd})
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	asks, err := session.ReadAsks(cfg.StateDir, "asked")
	if err != nil {
		t.Fatal(err)
	}
	if len(asks) != 2 {
		t.Fatalf("recorded %+v, want the two asks", asks)
	}
	for i, want := range []struct {
		cmd     string
		allowed bool
	}{{"npm test", true}, {"npm publish", false}} {
		a := asks[i]
		if a.Tool != "Bash" || a.Allowed != want.allowed || !a.ByUser || a.Step != permission.StepMode.String() ||
			len(a.Subjects) != 1 || a.Subjects[0].Kind != "command" || !strings.Contains(a.Subjects[0].Value, want.cmd) || a.At.IsZero() {
			t.Errorf("ask %d: %+v, want %s allowed=%v", i, a, want.cmd, want.allowed)
		}
	}
}
