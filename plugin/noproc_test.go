package plugin_test

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/riot-tools/riot/internal/bwrap"
	"github.com/riot-tools/riot/plugin"
	"github.com/riot-tools/riot/plugin/plugintest"
	"github.com/riot-tools/riot/plugin/sandbox"
)

// starter starts /bin/true each way the SDK offers, and fails with the
// error's text, as a tool would.
type starterIn struct {
	Way string `json:"way"`
}
type starter struct{}

func (starter) Name() string                     { return "Starter" }
func (starter) Prompt() string                   { return "Starts true." }
func (starter) Describe(starterIn) string        { return "Start true" }
func (starter) IsReadOnly(starterIn) bool        { return true }
func (starter) IsConcurrencySafe(starterIn) bool { return true }
func (starter) Call(ctx context.Context, in starterIn, env *plugin.Env) plugin.Outcome {
	cmd := exec.Command("/bin/true")
	var err error
	switch in.Way {
	case "shared":
		_, err = plugin.StartShared(ctx, env.Proc, cmd)
	case "in":
		_, err = env.ProcIn(&sandbox.Profile{Required: true}).Start(ctx, cmd)
	default:
		_, err = env.Proc.Start(ctx, cmd)
	}
	var noProc *plugin.NoProcessError
	switch {
	case err == nil:
		return plugin.Ok(plugin.Text("started"))
	case errors.As(err, &noProc):
		return plugin.Failed(err.Error())
	default:
		return plugin.Failed("another error: " + err.Error())
	}
}

// A read-only plugin's Proc refuses every start, whichever way and
// whatever Proc it was given and profile the host sent, with the message
// for the model; a plugin served otherwise starts the command.
func TestReadOnlyPluginStartsNoProcesses(t *testing.T) {
	want := (&plugin.NoProcessError{}).Error()
	c := plugintest.Serve(t, []plugin.Handler{plugin.New[starterIn](starter{})}, plugintest.WithProc(plugintest.RealProc(t)), plugintest.ReadOnly())
	for _, profile := range []*sandbox.Profile{nil, {Required: true}} {
		c.Sandbox = profile
		for _, way := range []string{"start", "shared", "in"} {
			if r := c.Call("Starter", starterIn{Way: way}); r.Ok || r.Message != want {
				t.Errorf("%s, profile %v: ok %v %q, want %q", way, profile, r.Ok, r.Message, want)
			}
		}
	}
	open := plugintest.Serve(t, []plugin.Handler{plugin.New[starterIn](starter{})}, plugintest.WithProc(plugintest.RealProc(t)))
	if r := open.Call("Starter", starterIn{Way: "start"}); !r.Ok || r.Text != "started" {
		t.Errorf("a plugin that may start processes: ok %v %q %q", r.Ok, r.Text, r.Message)
	}
}

// An OSProc resolves bwrap once, for every call's copy, and a required
// sandbox it cannot find refuses the start with the reason.
func TestOSProcFindsBwrapOnce(t *testing.T) {
	calls := 0
	proc := plugin.NewOSProcFindingBwrap(func() (string, error) { calls++; return "", bwrap.ErrNotFound })
	t.Cleanup(proc.Close)
	for range 2 {
		_, err := proc.Sandboxed(&sandbox.Profile{Required: true}).Start(t.Context(), exec.Command("/bin/true"))
		var unavailable *sandbox.UnavailableError
		if !errors.As(err, &unavailable) || !strings.Contains(err.Error(), "bubblewrap") {
			t.Fatalf("want the sandbox unavailable, with what to install: %v", err)
		}
	}
	if calls != 1 {
		t.Fatalf("looked bwrap up %d times", calls)
	}
}
