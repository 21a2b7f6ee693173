package main_test

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// The README's Codex config parses as Codex's [mcp_servers] tables, and
// its Claude Code commands start riot mcp with arguments riot accepts.
func TestREADMEClientConfigs(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	_, rest, ok := strings.Cut(readme, "Codex reads `~/.codex/config.toml`")
	if !ok {
		t.Fatal("the README has no Codex config")
	}
	_, block, _ := strings.Cut(rest, "```toml\n")
	block, _, _ = strings.Cut(block, "```")
	var codex struct {
		MCPServers map[string]struct {
			Command           string   `toml:"command"`
			Args              []string `toml:"args"`
			URL               string   `toml:"url"`
			BearerTokenEnvVar string   `toml:"bearer_token_env_var"`
		} `toml:"mcp_servers"`
	}
	md, err := toml.Decode(block, &codex)
	if err != nil || len(md.Undecoded()) > 0 {
		t.Fatalf("the Codex config: %v, unknown keys %v\n%s", err, md.Undecoded(), block)
	}
	stdio, http := codex.MCPServers["riot"], codex.MCPServers["riot-http"]
	if stdio.Command != "riot" || !slices.Equal(stdio.Args, []string{"mcp"}) {
		t.Errorf("stdio: %+v", stdio)
	}
	if http.URL != "http://127.0.0.1:8765/" || http.BearerTokenEnvVar != "RIOT_MCP_TOKEN" {
		t.Errorf("http: %+v", http)
	}
	if !strings.Contains(readme, "claude mcp add riot -- riot mcp`") {
		t.Error("the README has no claude mcp add for stdio")
	}
	m := regexp.MustCompile("claude mcp add --transport http riot (\\S+) --header \"Authorization: Bearer \\$RIOT_MCP_TOKEN\"").FindStringSubmatch(readme)
	if m == nil || m[1] != http.URL {
		t.Errorf("the claude HTTP command: %v", m)
	}
	// riot mcp takes no arguments and --listen the address both name.
	e := newEnv(t)
	e.riot("", "mcp", "--help").want(t, 0, "--listen")
	if !strings.Contains(readme, "riot mcp --cwd /path/to/project --listen 127.0.0.1:8765") {
		t.Error("the README's listen address differs from the clients' URL")
	}
}
