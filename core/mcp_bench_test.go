package core_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core"
)

// BenchmarkToolsCachedMCP is what `riot tools` does in the host (New,
// Plugins, Tools, MCPServers, Close) with no MCP server and with 20 whose
// tool lists are cached: the 20 must cost little more than none
// (bench/run.sh tools20 times the whole command).
func BenchmarkToolsCachedMCP(b *testing.B) {
	for _, n := range []int{0, 20} {
		b.Run(fmt.Sprintf("servers=%d", n), func(b *testing.B) {
			cfg := benchConfig(b, n)
			list := func() int {
				h, err := core.New(context.Background(), core.Options{Config: cfg, Workspace: filepath.Dir(cfg.StateDir), Logger: hclog.NewNullLogger(), ToolSearch: true})
				if err != nil {
					b.Fatal(err)
				}
				_ = h.Plugins()
				tools := h.Tools()
				_ = h.MCPServers()
				_ = h.Close()
				return len(tools)
			}
			want := list() // fills the cache: this host starts the servers
			for b.Loop() {
				if got := list(); got != want {
					b.Fatalf("%d tools, want %d", got, want)
				}
			}
		})
	}
}

func benchConfig(b *testing.B, servers int) *config.Config {
	b.Helper()
	ws := b.TempDir()
	cfg, err := config.Load(config.Options{Workspace: ws, UserFile: filepath.Join(ws, "none.toml"), Getenv: func(string) string { return "" }})
	if err != nil {
		b.Fatal(err)
	}
	cfg.StateDir = b.TempDir()
	for i := range servers {
		cfg.MCPServers = append(cfg.MCPServers, config.MCPServer{Name: fmt.Sprintf("s%02d", i), Command: bins.mcpserve, Enabled: true})
	}
	return cfg
}
