package core_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core"
	"github.com/riot-tools/riot/core/permission"
)

// mcpHost is a host over the mcpserve test server in the given mode,
// named srv, with rules added.
func mcpHost(t *testing.T, mode string, allow ...string) *core.Host {
	t.Helper()
	cfg := testConfig(t, func(c *config.Config) {
		c.MCPServers = []config.MCPServer{{Name: "srv", Command: bins.mcpserve, Args: []string{mode}, Enabled: true, ToolTimeout: 5 * time.Second, StartupTimeout: 5 * time.Second}}
		for _, a := range allow {
			c.Permissions.Allow = append(c.Permissions.Allow, config.Rule{Text: a})
		}
	})
	return newHost(t, withConfig(cfg), withPlugins())
}

func mcpCall(t *testing.T, h *core.Host, tool, input string) core.ToolResult {
	t.Helper()
	return h.RunTurn(context.Background(), []core.ToolUse{{ID: "c1", Name: tool, Input: json.RawMessage(input)}})[0]
}

func TestMCPToolsAreNamedAndOrdered(t *testing.T) {
	h := mcpHost(t, "ok")
	var names []string
	for _, ti := range h.Tools() {
		names = append(names, ti.Name)
	}
	if got := strings.Join(names, " "); got != "mcp__srv__ask mcp__srv__big mcp__srv__echo mcp__srv__grow" {
		t.Fatalf("tools = %q", got)
	}
}

func TestMCPCallAsksWithoutARuleAndRunsWithServerRule(t *testing.T) {
	h := mcpHost(t, "ok")
	r := mcpCall(t, h, "mcp__srv__echo", `{"text":"hi"}`)
	if r.Status != core.StatusDenied {
		t.Fatalf("without a rule: %s %q", r.Status, r.Text())
	}
	h = mcpHost(t, "ok", "mcp__srv")
	r = mcpCall(t, h, "mcp__srv__echo", `{"text":"hi"}`)
	if r.Status != core.StatusOK || r.Text() != "echo: hi" {
		t.Fatalf("with mcp__srv: %s %q", r.Status, r.Text())
	}
	h = mcpHost(t, "ok", "mcp__srv__big")
	if r := mcpCall(t, h, "mcp__srv__echo", `{"text":"hi"}`); r.Status != core.StatusDenied {
		t.Fatalf("another tool's rule allowed echo: %s", r.Status)
	}
}

func TestMCPBadArgumentGetsTheValidatorHint(t *testing.T) {
	h := mcpHost(t, "ok", "mcp__srv")
	r := mcpCall(t, h, "mcp__srv__echo", `{"txt":"hi"}`)
	if r.Status != core.StatusFailed || !strings.Contains(r.Text(), "text") {
		t.Fatalf("%s %q", r.Status, r.Text())
	}
}

func TestMCPIsErrorIsFailed(t *testing.T) {
	h := mcpHost(t, "ok", "mcp__srv")
	r := mcpCall(t, h, "mcp__srv__echo", `{"text":"fail"}`)
	if r.Status != core.StatusFailed || !strings.Contains(r.Text(), "echo refuses to echo fail") || !strings.Contains(r.Text(), "reported that this call failed") {
		t.Fatalf("%s %q", r.Status, r.Text())
	}
}

func TestMCPLargeResultIsSpilled(t *testing.T) {
	h := mcpHost(t, "ok", "mcp__srv")
	r := mcpCall(t, h, "mcp__srv__big", `{"chars":120000}`)
	if r.Status != core.StatusOK || r.Spill == nil || r.Spill.Chars != 120000 {
		t.Fatalf("%s spill=%+v", r.Status, r.Spill)
	}
}

func TestMCPServerFaultsAreFailedAndNamed(t *testing.T) {
	for _, tc := range []struct{ mode, want string }{
		{"die", "The srv MCP server stopped while running mcp__srv__echo: it exited (exit status 7)"},
		{"malformed", "it wrote output that is not MCP (\"this is not json-rpc\")"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			h := mcpHost(t, tc.mode, "mcp__srv")
			r := mcpCall(t, h, "mcp__srv__echo", `{"text":"hi"}`)
			if r.Status != core.StatusFailed || !strings.Contains(r.Text(), tc.want) || !strings.Contains(r.Text(), "restarts the server") {
				t.Fatalf("%s %q", r.Status, r.Text())
			}
		})
	}
}

func TestMCPHangIsStoppedAtToolTimeout(t *testing.T) {
	cfg := testConfig(t, func(c *config.Config) {
		c.MCPServers = []config.MCPServer{{Name: "srv", Command: bins.mcpserve, Args: []string{"hang"}, Enabled: true, ToolTimeout: 300 * time.Millisecond}}
		c.Permissions.Allow = append(c.Permissions.Allow, config.Rule{Text: "mcp__srv"})
	})
	h := newHost(t, withConfig(cfg), withPlugins())
	r := mcpCall(t, h, "mcp__srv__echo", `{"text":"hi"}`)
	if r.Status != core.StatusFailed || !strings.Contains(r.Text(), "The srv MCP server did not finish mcp__srv__echo within 300ms, so it was stopped") {
		t.Fatalf("%s %q", r.Status, r.Text())
	}
}

func TestMCPExitDuringInitializeIsAStartProblem(t *testing.T) {
	h := mcpHost(t, "exitinit", "mcp__srv")
	if len(h.Tools()) != 0 {
		t.Fatalf("tools: %v", h.Tools())
	}
	s := h.MCPServers()
	if len(s) != 1 || !strings.Contains(s[0].Problem, "The srv MCP server exited while starting (exit status 3) after writing \"mcpserve: refusing to initialize\"") {
		t.Fatalf("%+v", s)
	}
}

func TestMCPCrashRestartsThenDisablesAfterThree(t *testing.T) {
	h := mcpHost(t, "die", "mcp__srv")
	for i := range 3 {
		r := mcpCall(t, h, "mcp__srv__echo", `{"text":"hi"}`)
		if r.Status != core.StatusFailed || !strings.Contains(r.Text(), "it exited (exit status 7)") {
			t.Fatalf("call %d: %s %q", i+1, r.Status, r.Text())
		}
	}
	r := mcpCall(t, h, "mcp__srv__echo", `{"text":"hi"}`)
	if r.Status != core.StatusFailed || !strings.Contains(r.Text(), "The srv MCP server failed 3 times within a minute and is disabled for this session") {
		t.Fatalf("fourth: %s %q", r.Status, r.Text())
	}
	if s := h.MCPServers(); s[0].State != "disabled" {
		t.Fatalf("state %+v", s)
	}
}

// A tool a server adds (notifications/tools/list_changed) comes at the end
// of tools[], though the server lists it first; nothing is reordered.
func TestMCPListChangedAppends(t *testing.T) {
	h := mcpHost(t, "ok", "mcp__srv")
	before := toolNames(h)
	if r := mcpCall(t, h, "mcp__srv__grow", `{}`); r.Status != core.StatusOK || r.Text() != "grown" {
		t.Fatalf("grow: %s %q", r.Status, r.Text())
	}
	after := toolNames(h)
	if want := before + " mcp__srv__aaa-new"; after != want {
		t.Fatalf("after list_changed: %q, want %q", after, want)
	}
	if r := mcpCall(t, h, "mcp__srv__aaa-new", `{}`); r.Status != core.StatusOK || r.Text() != "new" {
		t.Fatalf("new tool: %s %q", r.Status, r.Text())
	}
}

func toolNames(h *core.Host) string {
	var names []string
	for _, ti := range h.Tools() {
		names = append(names, ti.Name)
	}
	return strings.Join(names, " ")
}

// Hooks apply to MCP tools as to any: a PreToolUse hook matching the
// server's tools denies one even where a rule allows it, and one that
// rewrites the input has the new input checked against the server's schema.
func TestMCPPreToolUseHook(t *testing.T) {
	for _, tc := range []struct {
		name, hook string
		status     core.Status
		want       string
	}{
		{"deny", hookDeny, core.StatusDenied, "policy says no"},
		{"rewrite", `echo '{"hookSpecificOutput":{"updatedInput":{"text":"rewritten"}}}'`, core.StatusOK, "echo: rewritten"},
		{"bad rewrite", `echo '{"hookSpecificOutput":{"updatedInput":{"txt":"x"}}}'`, core.StatusFailed, "rewrote this call's input into one the mcp__srv__echo tool does not take"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(t, func(c *config.Config) {
				c.MCPServers = []config.MCPServer{{Name: "srv", Command: bins.mcpserve, Enabled: true}}
				c.Permissions.Allow = append(c.Permissions.Allow, config.Rule{Text: "mcp__srv"})
				c.Hooks.PreToolUse = append(c.Hooks.PreToolUse, config.Hook{Matcher: "mcp__srv__.*", Command: hookScript(t, tc.hook), Timeout: 10 * time.Second})
			})
			h := newHost(t, withConfig(cfg), withPlugins())
			r := mcpCall(t, h, "mcp__srv__echo", `{"text":"hi"}`)
			if r.Status != tc.status || !strings.Contains(r.Text(), tc.want) {
				t.Fatalf("%s %q", r.Status, r.Text())
			}
		})
	}
}

// A server's elicitation/create is asked through riot's prompter; an
// answer that does not fit the schema, or none, declines.
func TestMCPElicitationGoesThroughThePrompter(t *testing.T) {
	for _, tc := range []struct{ typed, want string }{
		{"y\nblue\n", "accept blue"},
		{"y\ngreen\n", "decline <nil>"},
		{"n\n", "decline <nil>"},
		{"", "decline <nil>"},
	} {
		cfg := testConfig(t, func(c *config.Config) {
			c.MCPServers = []config.MCPServer{{Name: "srv", Command: bins.mcpserve, Enabled: true}}
			c.Permissions.Allow = append(c.Permissions.Allow, config.Rule{Text: "mcp__srv"})
		})
		var out strings.Builder
		p := &permission.TTYPrompter{In: strings.NewReader(tc.typed), Out: &out}
		h := newHost(t, withConfig(cfg), withPlugins(), func(o *core.Options) { o.Prompter = p })
		r := mcpCall(t, h, "mcp__srv__ask", `{}`)
		if r.Status != core.StatusOK || r.Text() != tc.want {
			t.Fatalf("%q: %s %q", tc.typed, r.Status, r.Text())
		}
		if !strings.Contains(out.String(), "the srv MCP server asks: Which color?") {
			t.Fatalf("prompt %q", out.String())
		}
	}
}

// Cancelling a turn sends the server notifications/cancelled: the hanging
// call's handler sees its context end and says so on a FIFO.
func TestMCPCancelSendsNotificationsCancelled(t *testing.T) {
	dir := t.TempDir()
	started, cancelled := filepath.Join(dir, "started"), filepath.Join(dir, "cancelled")
	for _, f := range []string{started, cancelled} {
		if err := syscall.Mkfifo(f, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cfg := testConfig(t, func(c *config.Config) {
		c.MCPServers = []config.MCPServer{{Name: "srv", Command: bins.mcpserve, Args: []string{"hang"}, Enabled: true,
			Env: map[string]string{"MCPSERVE_STARTED": started, "MCPSERVE_CANCELLED": cancelled}}}
		c.Permissions.Allow = append(c.Permissions.Allow, config.Rule{Text: "mcp__srv"})
	})
	h := newHost(t, withConfig(cfg), withPlugins())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := make(chan string, 1)
	go func() {
		// Each read blocks until the server opens the FIFO.
		if b, _ := os.ReadFile(started); string(b) == "started\n" {
			cancel()
		}
		b, _ := os.ReadFile(cancelled)
		got <- string(b)
	}()
	r := h.RunTurn(ctx, []core.ToolUse{{ID: "c1", Name: "mcp__srv__echo", Input: json.RawMessage(`{"text":"hi"}`)}})[0]
	if r.Status != core.StatusCancelled {
		t.Fatalf("%s %q", r.Status, r.Text())
	}
	select {
	case s := <-got:
		if s != "cancelled\n" {
			t.Fatalf("server wrote %q", s)
		}
	case <-time.After(20 * time.Second):
		for _, f := range []string{started, cancelled} {
			// Unblock the reader before failing.
			if w, err := os.OpenFile(f, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				_ = w.Close()
			}
		}
		t.Fatal("the server never saw the call cancelled")
	}
}

// Tool lists are cached: a second host lists the tools without starting
// the server, and starts it on the first call.
func TestMCPToolListIsCached(t *testing.T) {
	cfg := testConfig(t, func(c *config.Config) {
		c.MCPServers = []config.MCPServer{{Name: "srv", Command: bins.mcpserve, Enabled: true}}
		c.Permissions.Allow = append(c.Permissions.Allow, config.Rule{Text: "mcp__srv"})
	})
	first := newHost(t, withConfig(cfg), withPlugins())
	want := toolNames(first)
	if first.MCPServers()[0].State != "running" {
		t.Fatalf("first host: %+v", first.MCPServers())
	}
	first.Close()
	second := newHost(t, withConfig(cfg), withPlugins())
	if got := toolNames(second); got != want {
		t.Fatalf("cached tools %q, want %q", got, want)
	}
	if s := second.MCPServers()[0]; s.State != "not started" {
		t.Fatalf("second host started the server: %+v", s)
	}
	if r := mcpCall(t, second, "mcp__srv__echo", `{"text":"hi"}`); r.Status != core.StatusOK {
		t.Fatalf("%s %q", r.Status, r.Text())
	}
}

// A Streamable HTTP server, with the configured headers on each request.
func TestMCPStreamableHTTP(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "web", Version: "1"}, nil)
	type in struct {
		Text string `json:"text"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, i in) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "web: " + i.Text}}}, nil, nil
	})
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer t" {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		handler.ServeHTTP(w, r)
	}))
	// Closed after the host (cleanups run last first): its SSE stream is open until then.
	t.Cleanup(ts.Close)
	cfg := testConfig(t, func(c *config.Config) {
		c.MCPServers = []config.MCPServer{{Name: "web", URL: ts.URL, Headers: map[string]string{"Authorization": "Bearer t"}, Enabled: true}}
		c.Permissions.Allow = append(c.Permissions.Allow, config.Rule{Text: "mcp__web__echo"})
	})
	h := newHost(t, withConfig(cfg), withPlugins())
	if r := mcpCall(t, h, "mcp__web__echo", `{"text":"hi"}`); r.Status != core.StatusOK || r.Text() != "web: hi" {
		t.Fatalf("%s %q", r.Status, r.Text())
	}
}
