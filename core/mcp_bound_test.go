package core_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core"
)

// allocatedDuring is how many bytes the test process allocated while f
// ran: an upper bound on what f made riot hold, whatever the GC did.
func allocatedDuring(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// maxHeld bounds what a flood of 300 MB may make riot allocate in all:
// the 16 MiB message bound, twice over for the buffer's growth, and room
// for the host's own work.
const maxHeld = 64 << 20

// A stdio server that writes 300 MB without a newline is stopped once a
// line passes 16 MiB: the call fails naming the server and the cause, riot
// allocated a bounded amount, the process is gone, and the next call
// starts the server afresh.
func TestMCPOversizedStdioLineIsCutOff(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	cfg := testConfig(t, func(c *config.Config) {
		c.MCPServers = []config.MCPServer{{Name: "srv", Command: bins.mcpserve, Args: []string{"flood"}, Enabled: true,
			ToolTimeout: time.Minute, Env: map[string]string{"MCPSERVE_PIDFILE": pidFile, "MCPSERVE_FLOOD_BYTES": "300000000"}}}
		c.Permissions.Allow = append(c.Permissions.Allow, config.Rule{Text: "mcp__srv"})
	})
	h := newHost(t, withConfig(cfg), withPlugins())
	var r core.ToolResult
	held := allocatedDuring(func() { r = mcpCall(t, h, "mcp__srv__echo", `{"text":"flood"}`) })
	want := "The srv MCP server sent a message of more than 16 MiB (a single line without a newline) while running mcp__srv__echo, so riot stopped it."
	if r.Status != core.StatusFailed || !strings.Contains(r.Text(), want) || !strings.Contains(r.Text(), "asking for less") || !strings.Contains(r.Text(), "the next call restarts the server") {
		t.Fatalf("%s %q", r.Status, r.Text())
	}
	t.Logf("allocated %d MB", held>>20)
	if held > maxHeld {
		t.Fatalf("riot allocated %d MB for a 300 MB line", held>>20)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(string(b))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("the flooding server %d is still there: %v", pid, err)
	}
	if r := mcpCall(t, h, "mcp__srv__echo", `{"text":"hi"}`); r.Status != core.StatusOK || r.Text() != "echo: hi" {
		t.Fatalf("after the flood: %s %q", r.Status, r.Text())
	}
}

// A remote server's answer to tools/call is 300 MB in one JSON body or in
// one server-sent event: riot reads 16 MiB of it, drops the connection,
// says why, and the next call reconnects.
func TestMCPOversizedHTTPMessageIsCutOff(t *testing.T) {
	for _, tc := range []struct{ kind, contentType, start, what string }{
		{"json", "application/json", `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"`, "a single HTTP response body"},
		{"sse", "text/event-stream", "event: message\ndata: ", "a single server-sent event"},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			srv := mcp.NewServer(&mcp.Implementation{Name: "web", Version: "1"}, nil)
			type in struct {
				Text string `json:"text"`
			}
			mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, i in) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "web: " + i.Text}}}, nil, nil
			})
			handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
			var flooded atomic.Bool
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				if bytes.Contains(body, []byte(`"tools/call"`)) && !flooded.Swap(true) {
					w.Header().Set("Content-Type", tc.contentType)
					w.WriteHeader(http.StatusOK)
					_, _ = io.WriteString(w, tc.start)
					chunk := bytes.Repeat([]byte("a"), 64<<10)
					for range 300_000_000 / len(chunk) { // or until riot hangs up
						if _, err := w.Write(chunk); err != nil {
							return
						}
					}
					return
				}
				r.Body = io.NopCloser(bytes.NewReader(body))
				handler.ServeHTTP(w, r)
			}))
			t.Cleanup(ts.Close)
			cfg := testConfig(t, func(c *config.Config) {
				c.MCPServers = []config.MCPServer{{Name: "web", URL: ts.URL, Enabled: true, ToolTimeout: time.Minute}}
				c.Permissions.Allow = append(c.Permissions.Allow, config.Rule{Text: "mcp__web"})
			})
			h := newHost(t, withConfig(cfg), withPlugins())
			var r core.ToolResult
			held := allocatedDuring(func() { r = mcpCall(t, h, "mcp__web__echo", `{"text":"hi"}`) })
			want := "The web MCP server sent a message of more than 16 MiB (" + tc.what + ") while running mcp__web__echo, so riot dropped the connection to it."
			if r.Status != core.StatusFailed || !strings.Contains(r.Text(), want) || !strings.Contains(r.Text(), "the next call reconnects") {
				t.Fatalf("%s %q", r.Status, r.Text())
			}
			t.Logf("allocated %d MB", held>>20)
			// Here the SDK holds the message as it arrives, growing its
			// buffer by quarters: up to about five times the bound in all,
			// where 300 MB held would be over a GB.
			if held > 2*maxHeld {
				t.Fatalf("riot allocated %d MB for a 300 MB message", held>>20)
			}
			if r := mcpCall(t, h, "mcp__web__echo", `{"text":"again"}`); r.Status != core.StatusOK || r.Text() != "web: again" {
				t.Fatalf("after the flood: %s %q", r.Status, r.Text())
			}
		})
	}
}
