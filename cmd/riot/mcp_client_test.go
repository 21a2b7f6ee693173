package main_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core"
)

// riot as the MCP client of `riot mcp`: a call that kills the server
// mid-call fails naming the server and how it ended, and the next call of
// the same turn restarts it and succeeds.
func TestRiotWrappingRiotMCPRecoversFromAKill(t *testing.T) {
	e := newEnv(t)
	// No sandbox: the command must see and kill its server.
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
	cfg.Permissions.Allow = append(cfg.Permissions.Allow, config.Rule{Text: "mcp__inner__Bash"})
	h, err := core.New(context.Background(), core.Options{Config: cfg, Workspace: e.ws, Logger: hclog.NewNullLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	// The shell's ancestor that runs `riot ... mcp` is the server.
	kill := `p=$$; while [ "$p" -gt 1 ]; do if tr '\0' ' ' </proc/$p/cmdline | grep -q ' mcp $'; then kill -9 $p; exit 0; fi; p=$(cut -d' ' -f4 /proc/$p/stat); done`
	in := func(cmd string) json.RawMessage {
		b, _ := json.Marshal(map[string]string{"command": cmd, "description": "test"})
		return b
	}
	rs := h.RunTurn(context.Background(), []core.ToolUse{
		{ID: "1", Name: "mcp__inner__Bash", Input: in(kill)},
		{ID: "2", Name: "mcp__inner__Bash", Input: in("echo back")},
	})
	if rs[0].Status != core.StatusFailed || !strings.Contains(rs[0].Text(), "The inner MCP server stopped while running mcp__inner__Bash: it exited (killed by signal killed)") {
		t.Fatalf("killed call: %s %q", rs[0].Status, rs[0].Text())
	}
	if rs[1].Status != core.StatusOK || !strings.Contains(rs[1].Text(), "back") {
		t.Fatalf("next call: %s %q", rs[1].Status, rs[1].Text())
	}
}
