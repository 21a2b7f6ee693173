package core_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core"
	"github.com/riot-tools/riot/core/permission"
)

// paramRuleHost is a host over the mcpserve test server with rules given
// as "allow:...", "ask:..." or "deny:...", each from line i+1 of a file.
func paramRuleHost(t *testing.T, rules ...string) *core.Host {
	t.Helper()
	cfg := testConfig(t, func(c *config.Config) {
		c.MCPServers = []config.MCPServer{{Name: "srv", Command: bins.mcpserve, Args: []string{"ok"}, Enabled: true, ToolTimeout: 5 * time.Second, StartupTimeout: 5 * time.Second}}
		for i, r := range rules {
			kind, text, _ := strings.Cut(r, ":")
			rule := config.Rule{Text: text, Source: config.Source{Layer: "project", File: ".riot/config.toml", Line: i + 1}}
			switch kind {
			case "allow":
				c.Permissions.Allow = append(c.Permissions.Allow, rule)
			case "ask":
				c.Permissions.Ask = append(c.Permissions.Ask, rule)
			default:
				c.Permissions.Deny = append(c.Permissions.Deny, rule)
			}
		}
	})
	return newHost(t, withConfig(cfg), withPlugins())
}

// Parameter rules on an MCP tool, matched by name from its schema: allow,
// ask and deny, run and explained.
func TestMCPParameterRules(t *testing.T) {
	for _, tc := range []struct {
		name  string
		rules []string
		text  string
		want  permission.Behavior
	}{
		{"allowed", []string{"allow:mcp__srv__echo(text:hi*)"}, "hi there", permission.Allow},
		{"not covered", []string{"allow:mcp__srv__echo(text:hi*)"}, "bye", permission.Ask},
		{"asked", []string{"allow:mcp__srv", "ask:mcp__srv__echo(text:*secret*)"}, "a secret", permission.Ask},
		{"denied", []string{"allow:mcp__srv", "deny:mcp__srv__echo(text:rm *)"}, "rm x", permission.Deny},
		{"deny not matched", []string{"allow:mcp__srv", "deny:mcp__srv__echo(text:rm *)"}, "ls", permission.Allow},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := paramRuleHost(t, tc.rules...)
			input, _ := json.Marshal(map[string]string{"text": tc.text})
			ex := h.Explain(context.Background(), "mcp__srv__echo", input, core.ExplainOptions{})
			if ex.Invalid != "" || ex.Decision.Behavior != tc.want {
				t.Fatalf("explain: %q %v (%s)", ex.Invalid, ex.Decision.Behavior, ex.Decision.Reason)
			}
			r := mcpCall(t, h, "mcp__srv__echo", string(input))
			if ok := r.Status == core.StatusOK; ok != (tc.want == permission.Allow) {
				t.Fatalf("run: %s %q", r.Status, r.Text())
			}
			if tc.want == permission.Allow && r.Text() != "echo: "+tc.text {
				t.Fatalf("run: %q", r.Text())
			}
		})
	}
}

// A rule naming a parameter the tool does not take is an error naming the
// rule's file and line and the nearest names; the tool's calls are refused
// until it is fixed.
func TestMCPParameterRuleOnUnknownParameter(t *testing.T) {
	h := paramRuleHost(t, "allow:mcp__srv", "deny:mcp__srv__echo(txt:rm *)")
	r := mcpCall(t, h, "mcp__srv__echo", `{"text":"rm x"}`)
	want := `.riot/config.toml:2: permission rule "mcp__srv__echo(txt:rm *)": mcp__srv__echo takes no parameter "txt"; did you mean text?`
	if r.Status != core.StatusDenied || !strings.Contains(r.Text(), want) {
		t.Fatalf("%s %q", r.Status, r.Text())
	}
	ex := h.Explain(context.Background(), "mcp__srv__echo", json.RawMessage(`{"text":"ls"}`), core.ExplainOptions{})
	if ex.Decision.Behavior != permission.Deny || !strings.Contains(ex.Decision.Reason, want) {
		t.Fatalf("explain: %v %q", ex.Decision.Behavior, ex.Decision.Reason)
	}
	// Another tool of the server is not affected by the echo rule.
	if r := mcpCall(t, h, "mcp__srv__big", `{}`); r.Status == core.StatusDenied {
		t.Fatalf("big: %s %q", r.Status, r.Text())
	}
}
