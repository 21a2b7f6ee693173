package main_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core"
)

// A host that wraps `riot mcp` as an MCP server, as a library user might,
// gets riot's refusal, named, instead of riot serving itself as its own tool
// source (issue 30: riot listed as its own server started itself without
// end). Crash recovery of MCP servers is core's TestMCPCrashRestartsThenDisablesAfterThree.
func TestRiotWrappingRiotMCPIsRefused(t *testing.T) {
	e := newEnv(t)
	inner := e.write("inner.toml", "[permissions]\nmode = \"bypassPermissions\"\n\n[sandbox]\nmode = \"off\"\n")
	cfg, err := config.Load(config.Options{Workspace: e.ws, UserFile: filepath.Join(e.home, "none.toml"), Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	cfg.StateDir = filepath.Join(e.state, "outer")
	env := map[string]string{}
	for _, kv := range e.environ() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	cfg.MCPServers = []config.MCPServer{{Name: "inner", Command: bin.riot, Args: []string{"--config", inner, "mcp"}, Env: env, Cwd: e.ws, Enabled: true, StartupTimeout: 30 * time.Second}}
	h, err := core.New(context.Background(), core.Options{Config: cfg, Workspace: e.ws, Logger: hclog.NewNullLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	for _, tl := range h.Tools() {
		if strings.HasPrefix(tl.Name, "mcp__inner__") {
			t.Fatalf("riot served itself as a tool source: %s", tl.Name)
		}
	}
	s := h.MCPServers()
	if len(s) != 1 || !strings.Contains(s[0].Problem, "is riot itself") {
		t.Fatalf("the refusal is not named: %+v", s)
	}
}
