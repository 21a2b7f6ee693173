package core_test

import (
	"strings"
	"testing"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core"
	"github.com/riot-tools/riot/core/permission"
)

// A server on a protocol before multi round-trip requests asks with
// elicitation/create during the call; the terminal answers it as it
// answers the newer kind. Without a prompter, the question is declined
// and the result tells the model why.
func TestMCPClassicElicitation(t *testing.T) {
	cfg := func(t *testing.T) *config.Config {
		return testConfig(t, func(c *config.Config) {
			c.MCPServers = []config.MCPServer{{Name: "srv", Command: bins.mcpserve, Args: []string{"classic"}, Enabled: true}}
			c.Permissions.Allow = append(c.Permissions.Allow, config.Rule{Text: "mcp__srv"})
		})
	}
	var out strings.Builder
	p := &permission.TTYPrompter{In: strings.NewReader("y\nblue\n"), Out: &out}
	h := newHost(t, withConfig(cfg(t)), withPlugins(), func(o *core.Options) { o.Prompter = p })
	if r := mcpCall(t, h, "mcp__srv__ask", `{}`); r.Status != core.StatusOK || r.Text() != "accept blue" {
		t.Fatalf("terminal: %s %q", r.Status, r.Text())
	}
	if !strings.Contains(out.String(), "the srv MCP server asks: Which color?") {
		t.Fatalf("prompt %q", out.String())
	}
	h = newHost(t, withConfig(cfg(t)), withPlugins())
	r := mcpCall(t, h, "mcp__srv__ask", `{}`)
	if r.Status != core.StatusOK || !strings.HasPrefix(r.Text(), "decline <nil>\n\n[riot] The srv MCP server asked the user \"Which color?\", and riot declined it for the user: no one could answer it here") {
		t.Fatalf("no prompter: %s %q", r.Status, r.Text())
	}
}
