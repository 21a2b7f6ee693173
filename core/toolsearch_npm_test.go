package core_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core"
)

// The npm everything server, deferred with defer_loading = true: its
// tools are listed last, deferred, and ToolSearch finds get-sum by its
// description and by a regular expression, and the call works; the same
// from a second host that lists the tools from the cache, without
// starting the server until the call.
func TestToolSearchEverythingServerDeferred(t *testing.T) {
	if os.Getenv("RIOT_TEST_MCP_SERVERS") == "" && os.Getenv("CI") == "true" {
		t.Fatal("RIOT_TEST_MCP_SERVERS is not set in CI: .ci/run installs the npm MCP servers and sets it")
	}
	node, args := npmServer(t, "server-everything", "stdio")
	yes := true
	cfg := testConfig(t, func(c *config.Config) {
		c.MCPServers = []config.MCPServer{{Name: "everything", Command: node, Args: args, Enabled: true, DeferLoading: &yes}}
		c.Permissions.Allow = append(c.Permissions.Allow, config.Rule{Text: "mcp__everything"})
	})
	withSearch := func(o *core.Options) { o.ToolSearch = true }
	for _, listing := range []string{"from the server", "from the cache"} {
		h := newHost(t, withConfig(cfg), withPlugins(), withSearch)
		tools := h.Tools()
		i := slices.IndexFunc(tools, func(ti core.ToolInfo) bool { return strings.HasPrefix(ti.Name, "mcp__everything__") })
		if i < 0 || tools[0].Name != core.ToolSearchName {
			t.Fatalf("%s: tools %v", listing, tools)
		}
		for _, ti := range tools[i:] {
			if !ti.Deferred || !strings.HasPrefix(ti.Name, "mcp__everything__") {
				t.Fatalf("%s: %s after the first deferred tool, deferred %v", listing, ti.Name, ti.Deferred)
			}
		}
		if s := h.MCPServers()[0].State; listing == "from the cache" && s != "not started" {
			t.Fatalf("a listing from the cache started the server: %s", s)
		}
		for _, q := range []string{`{"query":"sum of two numbers"}`, `{"query":"get-sum$","mode":"regex"}`} {
			r := search(t, h, q)
			if got := found(t, r); r.Status != core.StatusOK || len(got) == 0 || got[0] != "mcp__everything__get-sum" {
				t.Fatalf("%s: ToolSearch %s found %v: %s", listing, q, got, r.Text())
			}
			if !strings.Contains(r.Text(), `"name":"mcp__everything__get-sum"`) || !strings.Contains(r.Text(), `"Second number"`) {
				t.Fatalf("%s: ToolSearch %s: definitions %s", listing, q, r.Text())
			}
		}
		if r := mcpCall(t, h, "mcp__everything__get-sum", `{"a":2,"b":3}`); r.Status != core.StatusOK || r.Text() != "The sum of 2 and 3 is 5." {
			t.Fatalf("%s: get-sum: %s %q", listing, r.Status, r.Text())
		}
		h.Close()
	}
}
