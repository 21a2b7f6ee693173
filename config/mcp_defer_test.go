package config

import (
	"strings"
	"testing"
)

// defer_loading is true, false or unset (nil), in a config file and in
// .mcp.json alike; unset defers by [mcp] defer_threshold.
func TestMCPDeferLoading(t *testing.T) {
	files := map[string]string{
		"user.toml": `
[mcp]
defer_threshold = 3

[mcp_servers.yes]
command = "a"
defer_loading = true

[mcp_servers.no]
command = "b"
defer_loading = false

[mcp_servers.auto]
command = "c"
`,
		".mcp.json": `{"mcpServers": {"jyes": {"command": "d", "defer_loading": true}, "jno": {"command": "e", "defer_loading": false}, "jauto": {"command": "f"}}}`,
	}
	tc := newTrustCase(t, files)
	tc.trust(t)
	c := tc.load(t, Options{})
	if err := c.LoadMCPJSON(tc.ws); err != nil {
		t.Fatal(err)
	}
	if c.MCP.DeferThreshold != 3 {
		t.Fatalf("defer_threshold = %d", c.MCP.DeferThreshold)
	}
	want := map[string][2]bool{ // deferred with 1 tool, with 4 tools
		"yes": {true, true}, "no": {false, false}, "auto": {false, true},
		"jyes": {true, true}, "jno": {false, false}, "jauto": {false, true},
	}
	if len(c.MCPServers) != len(want) {
		t.Fatalf("servers %+v", c.MCPServers)
	}
	for _, s := range c.MCPServers {
		w := want[s.Name]
		if got := [2]bool{s.Deferred(1, 3), s.Deferred(4, 3)}; got != w {
			t.Errorf("%s: deferred %v, want %v", s.Name, got, w)
		}
	}
	// riot config prints each as set, and unset as what it means.
	printed := map[string]string{}
	for _, e := range c.Entries() {
		if strings.HasSuffix(e.Key, ".defer_loading") || e.Key == "mcp.defer_threshold" {
			printed[e.Key] = e.Value
		}
	}
	for key, value := range map[string]string{
		"mcp_servers.yes.defer_loading": "true", "mcp_servers.no.defer_loading": "false",
		"mcp_servers.auto.defer_loading": "(unset: deferred above mcp.defer_threshold tools)",
		"mcp_servers.jno.defer_loading":  "false", "mcp.defer_threshold": "3",
	} {
		if printed[key] != value {
			t.Errorf("riot config: %s = %q, want %q", key, printed[key], value)
		}
	}
}

// The default threshold is the embedded defaults', and a later layer's
// unset defer_loading leaves an earlier layer's value.
func TestMCPDeferLoadingMerges(t *testing.T) {
	tc := newTrustCase(t, map[string]string{
		"user.toml":         "[mcp_servers.s]\ncommand = \"a\"\ndefer_loading = false\n",
		".riot/config.toml": "[mcp_servers.s]\nargs = [\"x\"]\n",
	})
	tc.trust(t)
	c := tc.load(t, Options{})
	if c.MCP.DeferThreshold != 10 {
		t.Fatalf("default defer_threshold = %d, want 10", c.MCP.DeferThreshold)
	}
	if s := c.MCPServers[0]; s.DeferLoading == nil || *s.DeferLoading || s.Args[0] != "x" {
		t.Fatalf("merged %+v", s)
	}
}

func TestMCPDeferLoadingErrors(t *testing.T) {
	for body, want := range map[string]string{
		"[mcp_servers.x]\ncommand = \"a\"\ndefer_loading = \"yes\"\n": "defer_loading must be true or false, not a string",
		"[mcp]\ndefer_threshold = -1\n":                               "defer_threshold must be from 0 to 100000, not -1",
		"[mcp]\ndefer_treshold = 5\n":                                 `did you mean "defer_threshold"?`,
	} {
		tc := newTrustCase(t, map[string]string{"user.toml": body})
		if _, err := tc.tryLoad(Options{}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", body, err, want)
		}
	}
	tc := newTrustCase(t, map[string]string{".mcp.json": `{"mcpServers": {"x": {"command": "a", "defer_loading": "yes"}}}`})
	tc.trust(t)
	c := tc.load(t, Options{})
	if err := c.LoadMCPJSON(tc.ws); err == nil || !strings.Contains(err.Error(), "defer_loading true or false") {
		t.Fatalf(".mcp.json: error %v", err)
	}
}

// An untrusted workspace sets neither: its .mcp.json starts nothing, and
// its [mcp] defer_threshold is ignored and reported.
func TestMCPDeferNeedsTrust(t *testing.T) {
	tc := newTrustCase(t, map[string]string{
		".riot/config.toml": "[mcp]\ndefer_threshold = 0\n",
		".mcp.json":         `{"mcpServers": {"x": {"command": "a", "defer_loading": false}}}`,
	})
	c := tc.load(t, Options{})
	if err := c.LoadMCPJSON(tc.ws); err != nil {
		t.Fatal(err)
	}
	if len(c.MCPServers) != 0 || c.MCP.DeferThreshold != 10 {
		t.Fatalf("untrusted: servers %+v, threshold %d", c.MCPServers, c.MCP.DeferThreshold)
	}
	if keys := strings.Join(ignoredKeys(c), " "); !strings.Contains(keys, "mcp.defer_threshold") || !strings.Contains(keys, "mcpServers") {
		t.Fatalf("ignored %q", keys)
	}
}
