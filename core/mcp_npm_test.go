package core_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core"
)

// npmServer is the command of an npm MCP server that .ci/run installs and
// names in $RIOT_TEST_MCP_SERVERS.
func npmServer(t *testing.T, pkg string, args ...string) (string, []string) {
	t.Helper()
	dir := os.Getenv("RIOT_TEST_MCP_SERVERS")
	if dir == "" {
		t.Skip("RIOT_TEST_MCP_SERVERS is not set (.ci/run installs @modelcontextprotocol/server-filesystem and server-everything and sets it)")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	return node, append([]string{filepath.Join(dir, "@modelcontextprotocol", pkg, "dist", "index.js")}, args...)
}

// serverOrder is the order the server itself lists its tools in, asked
// with the Go SDK's client: the oracle for riot's order.
func serverOrder(t *testing.T, prefix, command string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// The capabilities riot's client declares, since a server may list
	// tools by them.
	c := mcp.NewClient(&mcp.Implementation{Name: "oracle", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
	})
	s, err := c.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(command, args...)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var names []string
	for tool, err := range s.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, prefix+tool.Name)
	}
	return strings.Join(names, " ")
}

func npmHost(t *testing.T, srv config.MCPServer, allow ...string) *core.Host {
	t.Helper()
	cfg := testConfig(t, func(c *config.Config) {
		srv.Enabled = true
		c.MCPServers = []config.MCPServer{srv}
		for _, a := range allow {
			c.Permissions.Allow = append(c.Permissions.Allow, config.Rule{Text: a})
		}
	})
	return newHost(t, withConfig(cfg), withPlugins())
}

func TestMCPEverythingServer(t *testing.T) {
	node, args := npmServer(t, "server-everything", "stdio")
	srv := config.MCPServer{Name: "everything", Command: node, Args: args}

	h := npmHost(t, srv)
	got := toolNames(h)
	// The pinned server lists simulate-research-query as a task-only tool
	// (execution.taskSupport "required"), which riot leaves out since it
	// does not speak the tasks extension; the Go SDK's client cannot see
	// that field, so the oracle's list drops it by name.
	want := strings.Replace(serverOrder(t, "mcp__everything__", node, args...), " mcp__everything__simulate-research-query", "", 1)
	if got != want {
		t.Fatalf("tools\n%s\nwant the server's order without its task-only tool\n%s", got, want)
	}
	if r := mcpCall(t, h, "mcp__everything__echo", `{"message":"hi"}`); r.Status != core.StatusDenied {
		t.Fatalf("without a rule: %s %q", r.Status, r.Text())
	}

	h = npmHost(t, srv, "mcp__everything")
	if r := mcpCall(t, h, "mcp__everything__echo", `{"message":"hi"}`); r.Status != core.StatusOK || r.Text() != "Echo: hi" {
		t.Fatalf("echo: %s %q", r.Status, r.Text())
	}
	if r := mcpCall(t, h, "mcp__everything__echo", `{"msg":"hi"}`); r.Status != core.StatusFailed || !strings.Contains(r.Text(), "message") {
		t.Fatalf("bad argument: %s %q", r.Status, r.Text())
	}
	if r := mcpCall(t, h, "mcp__everything__get-sum", `{"a":"one","b":2}`); r.Status != core.StatusFailed || !strings.Contains(r.Text(), "number") {
		t.Fatalf("wrong type: %s %q", r.Status, r.Text())
	}
	r := mcpCall(t, h, "mcp__everything__get-tiny-image", `{}`)
	var img *core.Block
	for i := range r.Content {
		if r.Content[i].Type == "image" {
			img = &r.Content[i]
		}
	}
	if r.Status != core.StatusOK || img == nil || img.MediaType != "image/png" || len(img.Data) < 8 || string(img.Data[1:4]) != "PNG" {
		t.Fatalf("tiny image: %s %+v", r.Status, r.Content)
	}
}

func TestMCPFilesystemServerReadOnlyToolAndSpill(t *testing.T) {
	ws := t.TempDir()
	big := strings.Repeat("0123456789\n", 120_000/11+1)[:120_000]
	if err := os.WriteFile(filepath.Join(ws, "big.txt"), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	node, args := npmServer(t, "server-filesystem", ws)
	srv := config.MCPServer{Name: "fs", Command: node, Args: args, ReadOnlyTools: []string{"read_text_file"}}
	h := npmHost(t, srv)
	if got, want := toolNames(h), serverOrder(t, "mcp__fs__", node, args...); got != want {
		t.Fatalf("tools\n%s\nwant\n%s", got, want)
	}
	// read_only_tools makes it read-only: allowed with no rule.
	r := mcpCall(t, h, "mcp__fs__read_text_file", `{"path":"`+filepath.Join(ws, "big.txt")+`"}`)
	if r.Status != core.StatusOK || r.Spill == nil || r.Spill.Chars != 120_000 {
		t.Fatalf("read: %s spill=%+v %q", r.Status, r.Spill, r.Text()[:min(200, len(r.Text()))])
	}
	// Its write tool is not listed: it asks, and with nobody to ask is denied.
	if r := mcpCall(t, h, "mcp__fs__write_file", `{"path":"`+filepath.Join(ws, "x")+`","content":"x"}`); r.Status != core.StatusDenied {
		t.Fatalf("write: %s %q", r.Status, r.Text())
	}
	if _, err := os.Stat(filepath.Join(ws, "x")); err == nil {
		t.Fatal("the denied write ran")
	}
}
