package main_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// connect starts `riot mcp` in the workspace and connects the official MCP
// Go SDK client to it.
func (e *env) connect(t *testing.T, opts *mcp.ClientOptions, args ...string) *mcp.ClientSession {
	t.Helper()
	cmd := e.command("", append([]string{"mcp"}, args...)...)
	cmd.Stdin = nil
	client := mcp.NewClient(&mcp.Implementation{Name: "riot-test", Version: "1"}, opts)
	session, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { session.Close() })
	return session
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func TestMCPServesRiotsTools(t *testing.T) {
	e := newEnv(t)
	e.write("a.txt", "alpha\n")
	s := e.connect(t, nil)
	tools, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	// The MCP SDK lists tools by name; riot's order holds in tools[].
	if got := strings.Join(names, ","); got != "Bash,BashOutput,Diagnostics,Edit,Glob,Grep,KillShell,Read,Write" {
		t.Fatalf("tools = %s", got)
	}
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "Read", Arguments: map[string]any{"file_path": "a.txt"}})
	if err != nil || res.IsError || !strings.Contains(text(res), "     1\talpha") {
		t.Fatalf("Read: %v %+v", err, res)
	}
	// The permission chain holds: without elicitation, a write is denied.
	res, err = s.CallTool(context.Background(), &mcp.CallToolParams{Name: "Bash", Arguments: map[string]any{"command": "touch x"}})
	if err != nil || !res.IsError || !strings.Contains(text(res), "Bash(touch:*)") {
		t.Fatalf("Bash touch: %v %+v", err, text(res))
	}
	if _, err := os.Stat(filepath.Join(e.ws, "x")); !os.IsNotExist(err) {
		t.Fatal("a denied call ran")
	}
	// Validation hints reach the client too.
	res, err = s.CallTool(context.Background(), &mcp.CallToolParams{Name: "Read", Arguments: map[string]any{"path": "a.txt"}})
	if err != nil || !res.IsError || !strings.Contains(text(res), "add the required field `file_path`") {
		t.Fatalf("bad input: %v %+v", err, text(res))
	}
}

// A client that supports elicitation is asked, and its answer holds.
func TestMCPElicitation(t *testing.T) {
	e := newEnv(t)
	asked := make(chan string, 4)
	answer := "allow once"
	s := e.connect(t, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked <- req.Params.Message
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": answer}}, nil
		},
	})
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "Bash", Arguments: map[string]any{"command": "touch x"}})
	if err != nil || res.IsError {
		t.Fatalf("allowed touch: %v %s", err, text(res))
	}
	if msg := <-asked; !strings.Contains(msg, "touch x") {
		t.Fatalf("asked %q", msg)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "x")); err != nil {
		t.Fatal("an allowed call did not run")
	}
	answer = "deny"
	res, err = s.CallTool(context.Background(), &mcp.CallToolParams{Name: "Bash", Arguments: map[string]any{"command": "touch y"}})
	if err != nil || !res.IsError || !strings.Contains(text(res), "The user denied permission for this call") {
		t.Fatalf("denied touch: %v %s", err, text(res))
	}
}
