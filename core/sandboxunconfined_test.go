package core_test

import (
	"context"
	"strings"
	"testing"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core"
)

const unconfinedNote = "(Ran without the kernel sandbox: bwrap was not found in the system directories"

// With [sandbox] mode = "auto" and no bwrap, every result of a call that
// would have run sandboxed says it ran without the sandbox, and why;
// explain shows the sandbox off with the reason. A plugin that starts no
// processes, and mode "off" (the user's choice), say nothing.
func TestUnsandboxedResultsSaySo(t *testing.T) {
	cfg := testConfig(t, bypass, func(c *config.Config) { c.Sandbox.Mode = "auto" })
	h := newHost(t, withConfig(cfg))
	core.WithoutBwrap(h)
	for _, id := range []string{"1", "2"} { // every result, not only the first
		r := runOne(t, h, "Echo", `{"text":"ran `+id+`"}`)
		if r.Status != core.StatusOK || !strings.Contains(r.Text(), "ran "+id) || !strings.Contains(r.Text(), unconfinedNote) || !strings.Contains(r.Text(), `[sandbox] mode = "auto"`) {
			t.Fatalf("call %s: %s %q, want its output and the unconfined note", id, r.Status, r.Text())
		}
		if strings.Count(r.Text(), "Ran without the kernel sandbox") != 1 {
			t.Fatalf("call %s: the note is not once: %q", id, r.Text())
		}
	}
	ex := h.Explain(context.Background(), "Echo", []byte(`{"text":"x"}`), core.ExplainOptions{})
	if ex.SandboxStatus.On || ex.Sandbox != nil || !strings.Contains(ex.SandboxStatus.Problem, "bwrap was not found") {
		t.Errorf("explain: %+v, want the sandbox off with the reason", ex.SandboxStatus)
	}

	noProc := newHost(t, withConfig(testConfig(t, bypass, func(c *config.Config) { c.Sandbox.Mode = "auto" })), withPlugins(readOnlyKit(false)))
	core.WithoutBwrap(noProc)
	if r := runOne(t, noProc, "Echo", `{"text":"x"}`); r.Status != core.StatusOK || strings.Contains(r.Text(), "Ran without the kernel sandbox") {
		t.Errorf("a plugin that starts no processes got the note: %s %q", r.Status, r.Text())
	}

	off := testConfig(t, bypass, func(c *config.Config) { c.Sandbox.Mode = "off" })
	h = newHost(t, withConfig(off))
	core.WithoutBwrap(h)
	if r := runOne(t, h, "Echo", `{"text":"x"}`); strings.Contains(r.Text(), "Ran without the kernel sandbox") {
		t.Errorf("mode off, which the user chose, got the note: %q", r.Text())
	}
}
