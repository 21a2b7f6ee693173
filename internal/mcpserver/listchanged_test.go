package mcpserver

import (
	"context"
	"io"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A wrapped server's tools added by notifications/tools/list_changed
// reach riot mcp's clients: riot tells them the list changed, and the new
// tool comes at the end of tools[], every other tool where it was.
func TestWrappedListChangedReachesClients(t *testing.T) {
	fixture := buildMCPServe(t)
	for _, revision := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(revision, func(t *testing.T) {
			s := newTestServer(t, fixture)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			cr, sw := io.Pipe()
			sr, cw := io.Pipe()
			served := make(chan error, 1)
			go func() { served <- s.ServeStdio(ctx, sr, sw) }()
			changed := make(chan struct{}, 8)
			client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
				ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
			})
			cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: cr, Writer: cw}, &mcp.ClientSessionOptions{ProtocolVersion: revision})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if caps := cs.InitializeResult().Capabilities; caps.Tools == nil || !caps.Tools.ListChanged {
				t.Fatalf("riot does not declare tools.listChanged: %+v", caps.Tools)
			}
			before := toolNames(t, cs)
			if slices.Contains(before, "mcp__srv__aaa-new") {
				t.Fatalf("listed before it was added: %v", before)
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "mcp__srv__grow", Arguments: map[string]any{}})
			if err != nil || res.IsError {
				t.Fatalf("grow: %+v %v", res, err)
			}
			select {
			case <-changed:
			case <-ctx.Done():
				t.Fatal(ctx.Err())
			}
			after := toolNames(t, cs)
			if want := append(slices.Clone(before), "mcp__srv__aaa-new"); !slices.Equal(after, want) {
				t.Fatalf("tools after the change:\n%v\nwant\n%v", after, want)
			}
			res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "mcp__srv__aaa-new", Arguments: map[string]any{}})
			if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "new" {
				t.Fatalf("the added tool: %+v %v", res, err)
			}
			_ = cs.Close()
			cancel()
			<-served
		})
	}
}

func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names
}
