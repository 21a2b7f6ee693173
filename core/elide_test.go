package core_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core"
	"github.com/riot-tools/riot/core/permission"
	"github.com/riot-tools/riot/plugin"
	"github.com/riot-tools/riot/shared"
)

// asks records what each prompt showed, and answers every one the same.
type asks struct {
	mu     sync.Mutex
	shown  []string
	answer permission.Answer
}

func (a *asks) Prompt(_ context.Context, req permission.Request, d permission.Decision) (permission.Answer, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.shown = append(a.shown, fmt.Sprintf("%s %q: %s", req.Tool, req.Describe, d.Reason))
	return a.answer, nil
}

func (a *asks) take() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.shown
	a.shown = nil
	return s
}

// permissionModes are every permission mode, for the tests that compare
// a call's end under each.
var permissionModes = config.Modes

// ruleCase is a kind of permission rule or PreToolUse hook, which set adds
// to a config; script makes a hook's script of a body.
type ruleCase struct {
	name string
	set  func(c *config.Config, script func(body string) string)
}

// ruleCases are the kinds of rule the comparison tests run under, for
// calls of tool.
func ruleCases(tool string) []ruleCase {
	hook := func(body string) func(*config.Config, func(string) string) {
		return func(c *config.Config, script func(string) string) {
			c.Hooks.PreToolUse = append(c.Hooks.PreToolUse, config.Hook{Matcher: tool, Command: script(body), Timeout: 10 * time.Second})
		}
	}
	return []ruleCase{
		{"no rule", func(*config.Config, func(string) string) {}},
		{"allow rule", func(c *config.Config, _ func(string) string) { c.Permissions.Allow = []config.Rule{{Text: tool}} }},
		{"ask rule", func(c *config.Config, _ func(string) string) { c.Permissions.Ask = []config.Rule{{Text: tool}} }},
		{"deny rule", func(c *config.Config, _ func(string) string) { c.Permissions.Deny = []config.Rule{{Text: tool}} }},
		{"allow rule for another tool", func(c *config.Config, _ func(string) string) { c.Permissions.Allow = []config.Rule{{Text: "Touch"}} }},
		{"hook allows", hook(hookAllow)},
		{"hook denies", hook(hookDeny)},
	}
}

// hostPair starts two hosts of one config (mode, rule, then configure),
// which ask prompter: one over testkit, and one over testkit as built
// so that its manifest declares nothing (undeclared). Their hooks
// run the same scripts, since a script's path is in a hook's reason.
func hostPair(t *testing.T, mode config.Mode, rule ruleCase, prompter permission.Prompter, configure func(*config.Config)) (newer, older *core.Host) {
	scripts := map[string]string{}
	script := func(body string) string {
		if scripts[body] == "" {
			scripts[body] = hookScript(t, body)
		}
		return scripts[body]
	}
	host := func(env map[string]string) *core.Host {
		cfg := testConfig(t, func(c *config.Config) { c.Permissions.Mode = mode }, configure)
		rule.set(cfg, script)
		return newHost(t, withConfig(cfg), withPlugins(core.PluginSpec{Name: "testkit", Path: bins.testkit, Env: env}), func(o *core.Options) { o.Prompter = prompter })
	}
	return host(nil), host(undeclared)
}

// plainRejected is the SDK's decoding hint for Plain's n past int64: the
// JSON Schema lets such an integer through, the Go type does not.
const plainRejected = "`n` must be an integer, not number 99999999999999999999. Send it with that type."

// TestElidedPrepareDecidesAsPrepare: for every permission mode, rule kind
// and prompt answer, a call of a tool whose Prepare is elided ends exactly
// as the same call of the same tool from a plugin that declares nothing,
// whose Prepare the host asks: the same status and text for the call and
// the call after it (a rejection cascades nothing, a failure does), the
// same description, and the same prompts, with the tool's description in
// them. The elided host asks no Prepare where the chain allows a valid
// call outright.
func TestElidedPrepareDecidesAsPrepare(t *testing.T) {
	inputs := []struct{ name, input string }{
		{"valid", `{"n":1}`},
		{"rejected", `{"n":99999999999999999999}`},
		{"failing", `{"n":2,"fail":true}`},
	}
	for _, mode := range permissionModes {
		for _, rule := range ruleCases("Plain") {
			t.Run(string(mode)+"/"+rule.name, func(t *testing.T) {
				prompter := &asks{}
				elided, asked := hostPair(t, mode, rule, prompter, func(*config.Config) {})
				for _, answer := range []permission.Answer{permission.AnswerAllowOnce, permission.AnswerDeny} {
					prompter.answer = answer
					for _, in := range inputs {
						turn := []core.ToolUse{use("toolu_1", "Plain", in.input), use("toolu_2", "Echo", `{"text":"after"}`)}
						before := core.PrepareExchanges(elided, "Plain")
						got, gotAsks := elided.RunTurn(context.Background(), turn), prompter.take()
						exchanges := core.PrepareExchanges(elided, "Plain") - before
						want, wantAsks := asked.RunTurn(context.Background(), turn), prompter.take()
						for i := range want {
							if got[i].Status != want[i].Status || got[i].Text() != want[i].Text() || got[i].Describe != want[i].Describe {
								t.Errorf("answer %d, %s input, call %d: elided %s %q (%q), asked %s %q (%q)", answer, in.name, i,
									got[i].Status, got[i].Text(), got[i].Describe, want[i].Status, want[i].Text(), want[i].Describe)
							}
						}
						if strings.Join(gotAsks, "\n") != strings.Join(wantAsks, "\n") {
							t.Errorf("answer %d, %s input: elided asked %q, asked %q", answer, in.name, gotAsks, wantAsks)
						}
						for _, a := range gotAsks {
							if !strings.Contains(a, `"Plain 1"`) && !strings.Contains(a, `"Plain 2"`) {
								t.Errorf("a prompt without the tool's description: %s", a)
							}
						}
						if in.name == "rejected" && rule.name != "deny rule" && (want[0].Status != core.StatusFailed || want[0].Text() != plainRejected) {
							t.Errorf("the asked host ends the rejected input %s %q, want failed %q", want[0].Status, want[0].Text(), plainRejected)
						}
						if allowedOutright := len(gotAsks) == 0 && got[0].Status == core.StatusOK && !strings.HasPrefix(rule.name, "hook"); allowedOutright && exchanges != 0 {
							t.Errorf("answer %d, %s input: %d Prepare exchanges for a call allowed outright, want none", answer, in.name, exchanges)
						}
					}
				}
				if core.PrepareExchanges(asked, "Plain") == 0 && rule.name != "deny rule" {
					t.Error("the plugin that declares nothing was never asked its Prepare")
				}
			})
		}
	}
}

// TestPrepareElidedOnlyWhereDeclared: a tool whose manifest declares the
// default Prepare answer is called in one exchange, and its description
// reaches the progress and the result; a tool with checks is asked its
// Prepare (a manifest that declares nothing: hostPair's tests). An input the tool
// rejects ends as Prepare's rejection either way: failed with the tool's
// text, no description, no progress, and it cascades nothing.
func TestPrepareElidedOnlyWhereDeclared(t *testing.T) {
	var mu sync.Mutex
	var progress []string
	h := newHost(t, withConfig(testConfig(t, bypass)), func(o *core.Options) {
		o.OnProgress = func(p core.Progress) {
			mu.Lock()
			defer mu.Unlock()
			progress = append(progress, fmt.Sprintf("%s %s %q", p.CallID, p.Phase, p.Describe))
		}
	})
	rs := h.RunTurn(context.Background(), []core.ToolUse{
		use("toolu_1", "Plain", `{"n":3}`), use("toolu_2", "Plain", `{"n":99999999999999999999}`), use("toolu_3", "Noop", `{}`),
	})
	wantResult(t, rs[0], core.StatusOK, "plain 3")
	if rs[0].Describe != "Plain 3" {
		t.Errorf("describe %q, want the tool's", rs[0].Describe)
	}
	if rs[1].Status != core.StatusFailed || rs[1].Text() != plainRejected || rs[1].Describe != "" || rs[1].Duration != 0 {
		t.Errorf("the rejected input ended %s %q (%q, %s), want failed %q as Prepare rejects it", rs[1].Status, rs[1].Text(), rs[1].Describe, rs[1].Duration, plainRejected)
	}
	wantResult(t, rs[2], core.StatusOK, "ok")
	want := []string{`toolu_1 start "Plain 3"`, `toolu_1 end "Plain 3"`, `toolu_3 start "Do nothing"`, `toolu_3 end "Do nothing"`}
	mu.Lock()
	if strings.Join(progress, "\n") != strings.Join(want, "\n") {
		t.Errorf("progress:\n%s\nwant:\n%s", strings.Join(progress, "\n"), strings.Join(want, "\n"))
	}
	mu.Unlock()
	if got := core.PrepareExchanges(h, "Plain"); got != 0 {
		t.Errorf("%d Prepare exchanges for two Plain calls, whose default answer the manifest declares, want none", got)
	}
	if got := core.PrepareExchanges(h, "Noop"); got < 1 {
		t.Errorf("%d Prepare exchanges for Noop, which has checks, want at least one", got)
	}
}

type quietIn struct {
	N int `json:"n"`
}

// quiet is a host tool without checks.
type quiet struct{}

func (quiet) Name() string               { return "Quiet" }
func (quiet) Prompt() string             { return "Does nothing, in-process." }
func (quiet) Describe(in quietIn) string { return fmt.Sprintf("Quiet %d", in.N) }
func (quiet) Call(context.Context, quietIn, *plugin.Env) plugin.Outcome {
	return plugin.Ok(plugin.Text("quiet"))
}

// An in-process host tool built with the SDK declares the default Prepare
// as a plugin does, and the host elides it the same way.
func TestHostToolPrepareElided(t *testing.T) {
	srv, err := plugin.NewServer(plugin.Runtime{Clock: plugin.SystemClock{}}, plugin.New[quietIn](quiet{}))
	if err != nil {
		t.Fatal(err)
	}
	h := newHost(t, withConfig(testConfig(t, bypass)), withPlugins(), func(o *core.Options) { o.HostTools = []shared.ToolPlugin{srv} })
	r := runOne(t, h, "Quiet", `{"n":4}`)
	wantResult(t, r, core.StatusOK, "quiet")
	if r.Describe != "Quiet 4" {
		t.Errorf("describe %q", r.Describe)
	}
	if r := runOne(t, h, "Quiet", `{"n":99999999999999999999}`); r.Status != core.StatusFailed || r.Text() != plainRejected || r.Describe != "" {
		t.Errorf("an n past int64: %s %q (%q), want failed %q", r.Status, r.Text(), r.Describe, plainRejected)
	}
	if n := core.PrepareExchanges(h, "Quiet"); n != 0 {
		t.Errorf("%d Prepare exchanges, want none", n)
	}
}

// A required sandbox that cannot start refuses a call after Prepare's
// rejection: an elided call asks Prepare before it says so, and the
// refusal names the call as for a tool that declares nothing.
func TestElidedPrepareBeforeASandboxRefusal(t *testing.T) {
	host := func(env map[string]string) *core.Host {
		cfg := testConfig(t, bypass, func(c *config.Config) { c.Sandbox.Mode = "required" })
		h := newHost(t, withConfig(cfg), withPlugins(core.PluginSpec{Name: "testkit", Path: bins.testkit, Env: env}))
		core.WithoutBwrap(h) // as on a machine without bwrap
		return h
	}
	elided, asked := host(nil), host(undeclared)
	for _, in := range []string{`{"n":1}`, `{"n":99999999999999999999}`} {
		got, want := runOne(t, elided, "Plain", in), runOne(t, asked, "Plain", in)
		if got.Status != want.Status || got.Text() != want.Text() || got.Describe != want.Describe {
			t.Errorf("%s: elided %s %q (%q), asked %s %q (%q)", in, got.Status, got.Text(), got.Describe, want.Status, want.Text(), want.Describe)
		}
	}
	if r := runOne(t, elided, "Plain", `{"n":1}`); !strings.Contains(r.Text(), "the kernel sandbox is required") || r.Describe != "Plain 1" {
		t.Errorf("a valid input: %s %q (%q), want the sandbox's refusal with the description", r.Status, r.Text(), r.Describe)
	}
	if n := core.PrepareExchanges(elided, "Plain"); n != 3 {
		t.Errorf("%d Prepare exchanges, want one per call: the refusal waits for the answer", n)
	}
}
