package mcpserver

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A wrapped server's own progress reaches riot mcp's client, as the
// progress of the call, named as the server's.
func TestWrappedProgressPassedUp(t *testing.T) {
	t.Setenv("MCPSERVE_PROGRESS", "1")
	s := newTestServer(t, buildMCPServe(t))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- s.ServeStdio(ctx, sr, sw) }()
	progress := make(chan string, 16)
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			progress <- req.Params.Message
		},
	})
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: cr, Writer: cw}, nil)
	if err != nil {
		t.Fatal(err)
	}
	params := &mcp.CallToolParams{Name: "mcp__srv__echo", Arguments: map[string]any{"text": "hi"}}
	params.SetProgressToken("tok")
	res, err := cs.CallTool(ctx, params)
	if err != nil || res.IsError {
		t.Fatalf("echo: %+v %v", res, err)
	}
	select {
	case got := <-progress:
		if !strings.Contains(got, "srv: echoing hi") {
			t.Fatalf("progress %q", got)
		}
	case <-ctx.Done():
		t.Fatal(ctx.Err())
	}
	_ = cs.Close()
	cancel()
	<-served
}
