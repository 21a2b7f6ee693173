package mcpserver

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A wrapped server's question with a multi-select field (valid since
// 2025-11-25) goes up to riot mcp's client and the client's answer comes
// back down, whether the server asks by elicitation/create (classic) or
// by input requests, and whether the client is asked by elicitation/create
// (2025-11-25) or by input requests (2026-07-28). A client on an older
// revision, which has no such field, is not sent it: the call says why.
func TestWrappedMultiSelectPassedUp(t *testing.T) {
	t.Setenv("MCPSERVE_PICK", "1")
	fixture := buildMCPServe(t)
	for _, mode := range []string{"ok", "classic"} {
		for _, revision := range []string{"2025-06-18", "2025-11-25", "2026-07-28"} {
			t.Run(mode+"/"+revision, func(t *testing.T) {
				// One server per session: its end stops the server's calls.
				s := newTestServer(t, fixture, mode)
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				cr, sw := io.Pipe()
				sr, cw := io.Pipe()
				received := &wireLog{}
				sent := &wireLog{}
				served := make(chan error, 1)
				go func() { served <- s.ServeStdio(ctx, sr, io.MultiWriter(sw, received)) }()
				var asked []*mcp.ElicitParams
				client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
					ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
						asked = append(asked, req.Params)
						return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"colors": []any{"red", "blue"}}}, nil
					},
				})
				cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: cr, Writer: teeCloser{cw, sent}}, &mcp.ClientSessionOptions{ProtocolVersion: revision})
				if err != nil {
					t.Fatal(err)
				}
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "mcp__srv__ask", Arguments: map[string]any{}})
				if err != nil {
					t.Fatal(err)
				}
				text := res.Content[0].(*mcp.TextContent).Text
				if revision < "2025-11-25" {
					if len(asked) != 0 || !strings.HasPrefix(text, "decline") {
						t.Fatalf("a client before multi-select was asked %v, or the server got %q", asked, text)
					}
				} else {
					if len(asked) != 1 || text != "accept [red blue]" {
						t.Fatalf("asked %v, the server got %q", asked, text)
					}
					props, _ := asked[0].RequestedSchema.(map[string]any)["properties"].(map[string]any)
					if f, _ := props["colors"].(map[string]any); f["type"] != "array" {
						t.Fatalf("the form passed up: %v", asked[0].RequestedSchema)
					}
				}
				_ = cs.Close()
				cancel()
				<-served
				validateWire(t, revision, sent.all(), received.all())
			})
		}
	}
}
