package permission

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/riot-tools/riot/config"
)

// A PreToolUse hook's verdict takes its place in the chain: deny denies in
// every mode, ask asks, and allow stands in only for the mode's Ask. Each
// case asserts the step that decided and the reason's kind.
func TestHookVerdicts(t *testing.T) {
	e := newEnv(t)
	hook := func(b Behavior, reason string) *HookVerdict {
		return &HookVerdict{Behavior: b, Hook: "`./h.sh`", Reason: reason}
	}
	touch := func(h *HookVerdict) Request {
		r := bash(false, []string{"touch x"})
		r.Hook = h
		return r
	}
	outside := func(h *HookVerdict) Request {
		r := bash(false, []string{"cat " + e.out + "/f"}, e.out+"/f")
		r.Hook = h
		return r
	}
	for _, c := range []struct {
		name  string
		mode  config.Mode
		rules []string
		req   Request
		want  Behavior
		step  Step
		why   string
	}{
		{"deny in default", "default", nil, touch(hook(Deny, "no touching")), Deny, StepDenyRule, "The PreToolUse hook `./h.sh` blocked this call: no touching. Do not try to get around it"},
		{"deny in bypass", "bypassPermissions", nil, touch(hook(Deny, "")), Deny, StepDenyRule, "blocked this call without saying why"},
		{"deny beats an allow rule", "default", []string{"allow:Bash(touch:*)"}, touch(hook(Deny, "no")), Deny, StepDenyRule, "hook `./h.sh` blocked"},
		{"a deny rule names itself first", "default", []string{"deny:Bash(touch:*)"}, touch(hook(Deny, "no")), Deny, StepDenyRule, "denied by the rule `Bash(touch:*)`"},
		{"ask beats an allow rule", "default", []string{"allow:Bash(touch:*)"}, touch(hook(Ask, "check first")), Ask, StepAskRule, "requires the user's approval for this call: check first."},
		{"ask in dontAsk is a denial", "dontAsk", nil, touch(hook(Ask, "")), Deny, StepAskRule, "dontAsk"},
		{"allow stands in for the mode's ask", "default", nil, touch(hook(Allow, "fine")), Allow, StepMode, "Allowed by the PreToolUse hook `./h.sh`: fine."},
		{"allow in dontAsk", "dontAsk", nil, touch(hook(Allow, "")), Allow, StepMode, "Allowed by the PreToolUse hook"},
		{"allow in auto skips the classifier", "auto", nil, touch(hook(Allow, "")), Allow, StepMode, "Allowed by the PreToolUse hook"},
		{"allow does not override a deny rule", "default", []string{"deny:Bash(touch:*)"}, touch(hook(Allow, "")), Deny, StepDenyRule, "denied by the rule"},
		{"allow does not override an ask rule", "default", []string{"ask:Bash(touch:*)"}, touch(hook(Allow, "")), Ask, StepAskRule, "The rule `Bash(touch:*)` requires"},
		{"allow does not override the fence", "default", nil, outside(hook(Allow, "")), Ask, StepSafety, "outside the workspace"},
		{"allow does not override plan mode", "plan", nil, touch(hook(Allow, "")), Deny, StepMode, "plan mode"},
		{"no verdict leaves the mode", "default", nil, touch(nil), Ask, StepMode, "not read-only"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := decide(e.policy(t, c.mode, c.rules...), c.req)
			if d.Behavior != c.want || d.Step != c.step || !strings.Contains(d.Reason, c.why) {
				t.Fatalf("got %s by %s: %q\nwant %s by %s with %q", d.Behavior, d.Step, d.Reason, c.want, c.step, c.why)
			}
		})
	}
	// A hook's protected-path allow does not pass the protected-path check.
	r := Request{Tool: "Edit", Subjects: []Subject{{Kind: PathSubject, Value: filepath.Join(e.ws, ".git", "config"), Access: Write}}, Hook: hook(Allow, "")}
	if d := decide(e.policy(t, "default"), r); d.Behavior != Ask || d.Step != StepSafety {
		t.Fatalf("a hook's allow passed a protected path: %s by %s", d.Behavior, d.Step)
	}
}

// The model is told a hook decided, and never told a rule did.
func TestHookDeniedMessages(t *testing.T) {
	e := newEnv(t)
	r := bash(false, []string{"touch x"})
	r.Hook = &HookVerdict{Behavior: Deny, Hook: "`./h.sh`", Reason: "not here"}
	msg := decide(e.policy(t, "default"), r).DeniedMessage()
	if !strings.HasPrefix(msg, "Permission denied: The PreToolUse hook `./h.sh` blocked this call: not here.") || strings.Contains(msg, "deny rule") {
		t.Errorf("hook deny: %q", msg)
	}
	r.Hook = &HookVerdict{Behavior: Ask, Hook: "`./h.sh`"}
	msg = decide(e.policy(t, "default"), r).DeniedMessage()
	if !strings.Contains(msg, "requires the user's approval for this call.") || !strings.Contains(msg, "The hook makes the user approve such a call at an interactive prompt") {
		t.Errorf("hook ask without a terminal: %q", msg)
	}
}
