package core_test

import (
	"context"
	"strings"
	"testing"

	"github.com/riot-tools/riot/core"
	"github.com/riot-tools/riot/plugin"
	"github.com/riot-tools/riot/shared"
)

type namedIn struct{}

// named is a tool whose name is whatever the test says.
type named struct{ name string }

func (n named) Name() string          { return n.name }
func (named) Prompt() string          { return "Does nothing." }
func (named) Describe(namedIn) string { return "nothing" }
func (named) IsReadOnly(namedIn) bool { return true }
func (named) Call(context.Context, namedIn, *plugin.Env) plugin.Outcome {
	return plugin.Ok(plugin.Text("ok"))
}

// A plugin's tool whose name the model APIs would reject never reaches
// tools[]: the rule is the one MCP servers' tools meet (toolcall.NameProblem),
// and the plugin's problem says which tool and why.
func TestPluginToolNamesTheAPIsRejectAreLeftOut(t *testing.T) {
	bad := []string{"has.dot", "has space", "ünï", strings.Repeat("x", 65)}
	var handlers []plugin.Handler
	for _, n := range append([]string{"Fine_name-1"}, bad...) {
		handlers = append(handlers, plugin.New[namedIn](named{name: n}))
	}
	srv, err := plugin.NewServer(plugin.Runtime{Clock: plugin.SystemClock{}}, handlers...)
	if err != nil {
		t.Fatal(err)
	}
	h := newHost(t, withPlugins(), func(o *core.Options) { o.HostTools = []shared.ToolPlugin{srv} })
	var names []string
	for _, tl := range h.Tools() {
		names = append(names, tl.Name)
	}
	if strings.Join(names, ",") != "Fine_name-1" {
		t.Fatalf("tools[] = %v, want only the valid name", names)
	}
	res := h.RunTurn(context.Background(), []core.ToolUse{{ID: "t1", Name: "has.dot", Input: []byte(`{}`)}})
	if len(res) != 1 || !res[0].IsError() || !strings.Contains(res[0].Text(), `There is no tool named "has.dot"`) {
		t.Fatalf("a left-out tool was callable: %+v", res)
	}
}
