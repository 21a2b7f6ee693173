package mcpserver

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core"
)

// A wrapped server's question over an in-process session, so that the race
// detector sees the parked turn, its resumption and its end: several
// calls of one session, each parked and resumed, in sequence.
func TestWrappedQuestionParksAndResumes(t *testing.T) {
	srv := filepath.Join(t.TempDir(), "mcpserve")
	if b, err := exec.Command("go", "build", "-o", srv, "github.com/riot-tools/riot/internal/testplugins/mcpserve").CombinedOutput(); err != nil {
		t.Fatalf("build mcpserve: %v\n%s", err, b)
	}
	ws := t.TempDir()
	cfg, err := config.Load(config.Options{Workspace: ws, UserFile: filepath.Join(ws, "none.toml"), Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	cfg.StateDir = filepath.Join(ws, "state")
	cfg.MCPServers = []config.MCPServer{{Name: "srv", Command: srv, Args: []string{"classic"}, Enabled: true}}
	cfg.Permissions.Allow = append(cfg.Permissions.Allow, config.Rule{Text: "mcp__srv"})
	ctx := context.Background()
	s, err := New(ctx, "test", func(ctx context.Context, o core.Options) (*core.Host, error) {
		o.Config, o.Workspace, o.Logger = cfg, ws, hclog.NewNullLogger()
		return core.New(ctx, o)
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.mcp.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	var mu sync.Mutex
	colors := []string{"red", "blue", "red"}
	var asked []string
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			defer mu.Unlock()
			asked = append(asked, req.Params.Message)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"color": colors[len(asked)-1]}}, nil
		},
	})
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for i, want := range colors {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "mcp__srv__ask", Arguments: map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		var got strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				got.WriteString(tc.Text)
			}
		}
		if got.String() != "accept "+want {
			t.Fatalf("call %d: %q", i, got.String())
		}
	}
	s.parked.mu.Lock()
	left := len(s.parked.calls)
	s.parked.mu.Unlock()
	if left != 0 || len(asked) != 3 || !strings.HasPrefix(asked[0], "The srv MCP server asks") {
		t.Fatalf("parked %d, asked %q", left, asked)
	}
	// A request state that is not parked, or no longer, is a clear error.
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "mcp__srv__ask", Arguments: map[string]any{}, RequestState: "riot-q-gone"})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "expired or was already answered") {
		t.Fatalf("stale state: %v %+v", err, res)
	}
}
