package core_test

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core"
)

// readOnlyKit is testkit served with plugin.ServeReadOnly, whose manifest
// says that it starts no processes, or, with undeclared set, served so
// that its manifest does not say so.
func readOnlyKit(undeclared bool) core.PluginSpec {
	env := map[string]string{"RIOT_TESTKIT_READ_ONLY": "1"}
	if undeclared {
		env["RIOT_TESTKIT_UNDECLARED"] = "1"
	}
	return core.PluginSpec{Name: "testkit", Path: bins.testkit, Env: env}
}

const requiredRefusal = "The call was not run: the kernel sandbox is required ([sandbox] mode = \"required\") but bwrap was not found in the system directories"

// With [sandbox] mode = "required" and no bwrap, the call of a plugin that
// starts no processes runs, with no probe, while a call of a plugin that
// does not say so is refused for the missing sandbox; a turn of only the
// former starts no probe, a turn with both does.
func TestRequiredSandboxLetsAPluginThatStartsNoProcessesRun(t *testing.T) {
	cfg := testConfig(t, bypass, func(c *config.Config) { c.Sandbox.Mode = "required" })
	h := newHost(t, withConfig(cfg), withPlugins(readOnlyKit(false), wirefault()))
	core.WithoutBwrap(h)
	rs := h.RunTurn(context.Background(), []core.ToolUse{use("1", "Noop", `{}`), use("2", "Echo", `{"text":"confined"}`)})
	wantResult(t, rs[0], core.StatusOK, "ok")
	wantResult(t, rs[1], core.StatusOK, "confined")
	if core.SandboxProbed(h) {
		t.Fatal("a turn of calls that start no processes probed the sandbox")
	}
	rs = h.RunTurn(context.Background(), []core.ToolUse{use("3", "Noop", `{}`), use("4", "SplitUTF8", `{}`)})
	wantResult(t, rs[0], core.StatusOK, "ok")
	wantResult(t, rs[1], core.StatusFailed, requiredRefusal, "Tell the user to install bubblewrap")
	if !core.SandboxProbed(h) {
		t.Fatal("a turn with a call of a plugin that may start processes did not probe the sandbox")
	}
	// The next host lists the plugin from the manifest cache, which keeps
	// the declaration.
	if !core.PluginRunning(h, "testkit") {
		t.Fatal("testkit is not running after its calls")
	}
	h.Close()
	cached := newHost(t, withConfig(cfg), withPlugins(readOnlyKit(false), wirefault()))
	core.WithoutBwrap(cached)
	if core.PluginRunning(cached, "testkit") {
		t.Fatal("the second host started testkit to list it: the cache was not used")
	}
	wantResult(t, runOne(t, cached, "Noop", `{}`), core.StatusOK, "ok")
	if core.SandboxProbed(cached) {
		t.Fatal("a call of a plugin listed from the cache probed the sandbox")
	}
}

// A plugin of an SDK from before the declaration, read-only or not, still
// gets a sandbox: in required mode without bwrap its calls are refused,
// and its turns probe.
func TestRequiredSandboxRefusesAPluginThatDoesNotDeclare(t *testing.T) {
	for name, spec := range map[string]core.PluginSpec{"an older read-only SDK": readOnlyKit(true), "Serve": testkit()} {
		cfg := testConfig(t, bypass, func(c *config.Config) { c.Sandbox.Mode = "required" })
		h := newHost(t, withConfig(cfg), withPlugins(spec))
		core.WithoutBwrap(h)
		r := runOne(t, h, "Noop", `{}`)
		if r.Status != core.StatusFailed || !strings.Contains(r.Text(), requiredRefusal) {
			t.Errorf("%s: %s %q, want the required sandbox's refusal", name, r.Status, r.Text())
		}
		if !core.SandboxProbed(h) {
			t.Errorf("%s: the turn did not probe the sandbox", name)
		}
	}
}

// `riot explain` says why a call of a plugin that starts no processes has
// no sandbox, whatever the mode; an older plugin's read-only call shows
// its profile where bwrap works.
func TestExplainSaysWhyAPluginThatStartsNoProcessesHasNoSandbox(t *testing.T) {
	for _, mode := range config.SandboxModes {
		cfg := testConfig(t, bypass, func(c *config.Config) { c.Sandbox.Mode = mode })
		h := newHost(t, withConfig(cfg), withPlugins(readOnlyKit(false)))
		ex := h.Explain(context.Background(), "Noop", []byte(`{}`), core.ExplainOptions{})
		if ex.Sandbox != nil || ex.NoSandbox != "none needed: the testkit plugin declares that it starts no processes, and refuses every start itself" {
			t.Errorf("mode %s: sandbox %v, reason %q", mode, ex.Sandbox, ex.NoSandbox)
		}
	}
	if _, err := exec.LookPath("bwrap"); err != nil || core.ProbeSandbox(context.Background()) != nil {
		t.Skip("bwrap cannot start a sandbox here; CI installs it")
	}
	h := newHost(t, withConfig(testConfig(t, bypass)), withPlugins(readOnlyKit(true)))
	ex := h.Explain(context.Background(), "Noop", []byte(`{}`), core.ExplainOptions{})
	if ex.Sandbox == nil || ex.NoSandbox != "" || ex.Sandbox.Reason != "a call allowed as read-only" {
		t.Errorf("an older read-only plugin: sandbox %v, reason %q", ex.Sandbox, ex.NoSandbox)
	}
}

// The probe is started with the turn, beside its plugins' starts, not by
// the first call that needs it once its plugin is up; but only by a turn
// with a call that may need a sandbox: not one of unknown tools or of
// plugins that start no processes.
func TestSandboxProbeStartsWithTheTurn(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil || core.ProbeSandbox(context.Background()) != nil {
		t.Skip("bwrap cannot start a sandbox here; CI installs it")
	}
	h := newHost(t, withConfig(testConfig(t, bypass)), withPlugins(readOnlyKit(false), wirefault()))
	core.StartNeeded(h, []core.ToolUse{use("1", "NoSuchTool", `{}`), use("2", "Noop", `{}`), use("3", "Echo", `{}`)})
	if core.SandboxProbed(h) {
		t.Fatal("a turn of an unknown tool and of a plugin that starts no processes probed the sandbox")
	}
	core.StartNeeded(h, []core.ToolUse{use("4", "Noop", `{}`), use("5", "SplitUTF8", `{}`)})
	if !core.SandboxProbed(h) {
		t.Fatal("the turn's start did not probe the sandbox for wirefault's call")
	}
	if st := h.SandboxStatus(context.Background()); !st.On || st.Problem != "" {
		t.Fatalf("bwrap works here, but the probe says: %+v", st)
	}
}
