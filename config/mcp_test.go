package config

import (
	"strings"
	"testing"
	"time"
)

func TestMCPServersParseInOrderAndMerge(t *testing.T) {
	tc := newTrustCase(t, map[string]string{"user.toml": `
[mcp_servers.zeta]
command = "zeta-server"
args = ["--stdio"]
env = { TOKEN = "x" }
tool_timeout = "5s"
read_only_tools = ["list"]

[mcp_servers.alpha]
url = "http://127.0.0.1:1/mcp"
headers = { Authorization = "Bearer t" }
enabled = false
disabled_tools = ["drop"]
`})
	c := tc.load(t, Options{})
	if len(c.MCPServers) != 2 || c.MCPServers[0].Name != "zeta" || c.MCPServers[1].Name != "alpha" {
		t.Fatalf("servers %+v", c.MCPServers)
	}
	z, a := c.MCPServers[0], c.MCPServers[1]
	if z.Command != "zeta-server" || z.Args[0] != "--stdio" || z.Env["TOKEN"] != "x" || z.ToolTimeout != 5*time.Second || !z.Enabled || z.ReadOnlyTools[0] != "list" {
		t.Fatalf("zeta %+v", z)
	}
	if a.URL == "" || a.Headers["Authorization"] != "Bearer t" || a.Enabled || a.Serves("drop") || !a.Serves("keep") {
		t.Fatalf("alpha %+v", a)
	}
}

func TestMCPServerErrors(t *testing.T) {
	for body, want := range map[string]string{
		"[mcp_servers.x]\nargs = []\n":                           "needs a command (a stdio server) or a url",
		"[mcp_servers.x]\ncommand = \"a\"\nurl = \"http://h\"\n": "sets both command and url",
		"[mcp_servers.a__b]\ncommand = \"a\"\n":                  "must be letters, digits, and single - or _",
		"[mcp_servers.x]\ncommand = \"a\"\ntimeout = \"1s\"\n":   `unknown key "timeout" in [mcp_servers.x]; valid keys are command, args`,
	} {
		tc := newTrustCase(t, map[string]string{"user.toml": body})
		if _, err := tc.tryLoad(Options{}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", body, err, want)
		}
	}
}

// A workspace's servers start programs: in an untrusted workspace neither
// its [mcp_servers] nor its .mcp.json count, and both are reported.
func TestWorkspaceMCPServersNeedTrust(t *testing.T) {
	files := map[string]string{
		".riot/config.toml": "[mcp_servers.repo]\ncommand = \"repo-server\"\n",
		".mcp.json":         `{"mcpServers": {"web": {"type": "http", "url": "http://127.0.0.1:1/mcp", "headers": {"X": "y"}}, "local": {"command": "local-server", "args": ["a"], "env": {"K": "v"}}}}`,
	}
	tc := newTrustCase(t, files)
	c := tc.load(t, Options{})
	if err := c.LoadMCPJSON(tc.ws); err != nil {
		t.Fatal(err)
	}
	if len(c.MCPServers) != 0 {
		t.Fatalf("untrusted: servers %+v", c.MCPServers)
	}
	keys := strings.Join(ignoredKeys(c), " ")
	if !strings.Contains(keys, "mcp_servers") || !strings.Contains(keys, "mcpServers@") {
		t.Fatalf("ignored %q", keys)
	}
	tc.trust(t)
	c = tc.load(t, Options{})
	if err := c.LoadMCPJSON(tc.ws); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range c.MCPServers {
		names = append(names, s.Name)
	}
	if strings.Join(names, " ") != "repo web local" {
		t.Fatalf("trusted: %v", names)
	}
	if w := c.MCPServers[1]; w.URL != "http://127.0.0.1:1/mcp" || w.Headers["X"] != "y" {
		t.Fatalf("web %+v", w)
	}
	if l := c.MCPServers[2]; l.Command != "local-server" || l.Args[0] != "a" || l.Env["K"] != "v" {
		t.Fatalf("local %+v", l)
	}
}
