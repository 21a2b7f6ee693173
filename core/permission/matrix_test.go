package permission

import (
	"fmt"
	"strings"
	"testing"

	"github.com/riot-tools/riot/config"
)

// TestMatrix runs every mode × read-only × rule × fence combination for a
// Bash call `touch x` that declares one path, and checks the decision, the
// step that decided, and the model's text where it matters. The expected
// outcome is the chain of DESIGN.md written out case by case.
func TestMatrix(t *testing.T) {
	e := newEnv(t)
	write(t, e.ws+"/x")
	write(t, e.out+"/x")
	fences := map[string]string{
		"inside":    e.ws + "/x",
		"outside":   e.out + "/x",
		"protected": e.ws + "/.git/x",
		"results":   e.state + "/x",
	}
	rules := map[string][]string{
		"none":  nil,
		"allow": {"allow:Bash(touch:*)", "allow:Edit"},
		// The command's rule alone leaves the path subject uncovered.
		"allow-cmd":          {"allow:Bash(touch:*)"},
		"allow-cmd-and-path": {"allow:Bash(touch:*)", "allow:Edit(./**)"},
		"ask":                {"ask:Bash(touch:*)", "allow:Bash", "allow:Edit"},
		"deny":               {"deny:Bash(touch:*)", "allow:Bash", "allow:Edit"},
	}
	type outcome struct {
		b    Behavior
		step Step
	}
	expected := func(mode config.Mode, ro bool, rule, fence string) outcome {
		askOr := func(s Step) outcome {
			if mode == "dontAsk" {
				return outcome{Deny, s}
			}
			return outcome{Ask, s}
		}
		switch {
		case rule == "deny":
			return outcome{Deny, StepDenyRule}
		case rule == "ask":
			return askOr(StepAskRule)
		case mode == "bypassPermissions":
			// no safety checks
		case fence == "outside":
			return askOr(StepSafety)
		case fence == "results" || fence == "protected" && !ro:
			return askOr(StepSafety)
		}
		switch {
		case rule == "allow" || rule == "allow-cmd-and-path" && (fence == "inside" || fence == "protected"):
			return outcome{Allow, StepAllowRule}
		case ro || mode == "bypassPermissions":
			return outcome{Allow, StepMode}
		case mode == "plan" || mode == "dontAsk":
			return outcome{Deny, StepMode}
		default: // default, acceptEdits (a command is no file edit), auto (no classifier)
			return outcome{Ask, StepMode}
		}
	}
	n := 0
	for _, mode := range config.Modes {
		for _, ro := range []bool{true, false} {
			for rname, rule := range rules {
				for fname, path := range fences {
					p := e.policy(t, mode, rule...)
					req := Request{Tool: "Bash", ReadOnly: ro, Describe: "touch x", ClassifierInput: "touch x",
						Subjects: []Subject{{Kind: CommandSubject, Value: "touch x"}, {Kind: PathSubject, Value: path, Access: Write}}}
					d := decide(p, req)
					want := expected(mode, ro, rname, fname)
					name := fmt.Sprintf("%s/ro=%v/%s/%s", mode, ro, rname, fname)
					n++
					if d.Behavior != want.b || d.Step != want.step {
						t.Errorf("%s: got %v at %v (%s), want %v at %v", name, d.Behavior, d.Step, d.Reason, want.b, want.step)
						continue
					}
					if d.Mode != mode || len(d.Trace) == 0 || d.Trace[len(d.Trace)-1].Step != d.Step || !d.Trace[len(d.Trace)-1].Matched {
						t.Errorf("%s: the trace does not end at the deciding step: %+v", name, d.Trace)
					}
					msg := d.DeniedMessage()
					switch {
					case d.Behavior == Allow:
						if msg != "" {
							t.Errorf("%s: an Allow has a denied message", name)
						}
					case mode == "plan" && d.Step == StepMode:
						if !strings.Contains(msg, "You are in plan mode") {
							t.Errorf("%s: plan message %q", name, msg)
						}
					case d.Step == StepMode:
						if len(d.Suggestions) == 0 || !strings.Contains(msg, "the user has not granted permission") || !strings.Contains(msg, "`"+d.Suggestions[0]+"`") ||
							!strings.Contains(msg, "Do not try to get around this with another tool") {
							t.Errorf("%s: no-TTY message %q", name, msg)
						}
						if rname == "none" && !strings.Contains(msg, "`Bash(touch:*)`") {
							t.Errorf("%s: the message does not name Bash(touch:*): %q", name, msg)
						}
					case d.Step == StepDenyRule:
						if !strings.Contains(msg, "denied by the rule `Bash(touch:*)`") {
							t.Errorf("%s: deny message %q", name, msg)
						}
					}
				}
			}
		}
	}
	if n != 6*2*6*4 {
		t.Errorf("ran %d cases", n)
	}
}
