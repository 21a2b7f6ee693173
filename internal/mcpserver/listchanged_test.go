package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
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

// A call that adds tools announces them before its own result, on the
// wire, so that a client listing tools when the result comes sees them:
// the SDK's own notification comes after a delay, after the result.
func TestListChangedPrecedesTheResult(t *testing.T) {
	s := newTestServer(t, buildMCPServe(t))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- s.ServeStdio(ctx, sr, sw) }()
	lines := bufio.NewScanner(cr)
	lines.Buffer(nil, 1<<22)
	send := func(msg string) {
		if _, err := io.WriteString(cw, msg+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	// until reads messages up to the response to id, and returns the
	// methods of the notifications before it.
	until := func(id int) []string {
		var methods []string
		for lines.Scan() {
			var m struct {
				ID     *int   `json:"id"`
				Method string `json:"method"`
			}
			if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
				t.Fatalf("%v: %s", err, lines.Text())
			}
			if m.ID != nil && *m.ID == id && m.Method == "" {
				return methods
			}
			methods = append(methods, m.Method)
		}
		t.Fatalf("no response to %d: %v", id, lines.Err())
		return nil
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	until(1)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"mcp__srv__grow","arguments":{}}}`)
	if before := until(2); !slices.Contains(before, "notifications/tools/list_changed") {
		t.Fatalf("before grow's result came only %v", before)
	}
	_ = cw.Close()
	cancel()
	<-served
}
