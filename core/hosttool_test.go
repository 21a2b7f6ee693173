package core_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core"
	"github.com/riot-tools/riot/plugin"
	"github.com/riot-tools/riot/shared"
)

type taskIn struct {
	Prompt string `json:"prompt"`
}

type task struct{}

func (task) Name() string              { return "Task" }
func (task) Prompt() string            { return "Runs a subtask." }
func (task) Describe(in taskIn) string { return "Task: " + in.Prompt }
func (task) IsReadOnly(taskIn) bool    { return true }
func (task) Call(_ context.Context, in taskIn, _ *plugin.Env) plugin.Outcome {
	return plugin.Ok(plugin.Text("task: " + in.Prompt))
}

// newEchoHostTool is an in-process host tool built with the SDK.
func newEchoHostTool(t *testing.T) *plugin.Server {
	t.Helper()
	srv, err := plugin.NewServer(plugin.Runtime{Clock: plugin.SystemClock{}}, plugin.New[taskIn](task{}))
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

type deniedIn struct {
	Paths []string `json:"paths"`
}

// deniedTool reports env.Denied for each path: what a walking tool sees of
// the user's Read deny rules.
type deniedTool struct{}

func (deniedTool) Name() string                { return "Denied" }
func (deniedTool) Prompt() string              { return "Reports deny rules." }
func (deniedTool) Describe(in deniedIn) string { return "Denied" }
func (deniedTool) IsReadOnly(deniedIn) bool    { return true }
func (deniedTool) Call(_ context.Context, in deniedIn, env *plugin.Env) plugin.Outcome {
	var b strings.Builder
	for _, p := range in.Paths {
		fmt.Fprintf(&b, "%s=%v\n", p, env.Denied(p))
	}
	return plugin.Ok(plugin.Text(b.String()))
}

// The host hands every call the effective Read deny rules, so a tool that
// walks a tree can skip what the chain never saw.
func TestCallsCarryReadDenyRules(t *testing.T) {
	srv, err := plugin.NewServer(plugin.Runtime{Clock: plugin.SystemClock{}}, plugin.New[deniedIn](deniedTool{}))
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(t, func(c *config.Config) {
		c.Permissions.Deny = append(c.Permissions.Deny, config.Rule{Text: "Read(**/secret.txt)"})
	})
	h := newHost(t, withConfig(cfg), func(o *core.Options) { o.HostTools = []shared.ToolPlugin{srv} })
	wantResult(t, runOne(t, h, "Denied", `{"paths":["secret.txt","sub/secret.txt","a.txt"]}`), core.StatusOK,
		"secret.txt=true\nsub/secret.txt=true\na.txt=false\n")
}
