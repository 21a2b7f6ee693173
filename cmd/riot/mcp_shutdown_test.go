package main_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/riot-tools/riot/internal/proctest"
)

// The probes answer without the token and say nothing of the session;
// every other path still needs the token. On SIGTERM, `riot mcp --listen`
// answers the call in flight Cancelled, naming the shutdown (not a dropped
// connection), kills its command, keeps the session's state in the state
// dir, and exits 0.
func TestMCPHTTPHealthAndGracefulShutdown(t *testing.T) {
	e := newEnv(t)
	e.sandboxOff()
	h := e.listen(t, nil, "--token", "t", "--mode", "bypassPermissions", "--session", "pod", "--shutdown-timeout", "15s")

	get := func(method, path string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, strings.TrimSuffix(h.url, "/")+path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	for _, path := range []string{"/healthz", "/readyz"} {
		if code, body := get("GET", path); code != http.StatusOK || body != "ok\n" {
			t.Errorf("GET %s without the token: %d %q, want 200 ok", path, code, body)
		}
		if code, _ := get("POST", path); code != http.StatusMethodNotAllowed {
			t.Errorf("POST %s: %d, want 405", path, code)
		}
	}
	for _, path := range []string{"/", "/healthz/x", "/ready", "/mcp"} {
		if code, _ := get("GET", path); code != http.StatusUnauthorized {
			t.Errorf("GET %s without the token: %d, want 401", path, code)
		}
	}

	s := h.connect(t, "t", nil)
	if res := call(t, s, "Bash", map[string]any{"command": "mkdir -p sub && cd sub"}); res.IsError {
		t.Fatalf("cd sub: %s", text(res))
	}
	fifo, pids := fifoPID(t)
	results := make(chan *mcp.CallToolResult, 1)
	callErr := make(chan error, 1)
	go func() {
		res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "Bash", Arguments: map[string]any{
			"command": fmt.Sprintf("sleep 300 & echo $! > %s; wait", fifo),
		}})
		if err != nil {
			callErr <- err
			return
		}
		results <- res
	}()
	sleepPID := recvPID(t, pids)
	if err := h.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case res := <-results:
		out := text(res)
		if !res.IsError || res.Meta["riot/status"] != "cancelled" || !strings.Contains(out, "riot is shutting down (terminated signal received)") {
			t.Errorf("the call in flight at SIGTERM: status %v, error %v:\n%s", res.Meta["riot/status"], res.IsError, out)
		}
	case err := <-callErr:
		t.Fatalf("the call in flight at SIGTERM failed on the client instead of being answered Cancelled: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("no answer to the call in flight within 30 s of SIGTERM")
	}
	select {
	case <-h.exited:
		if h.err != nil {
			t.Fatalf("riot mcp exited with %v after SIGTERM, want 0:\n%s", h.err, h.log)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("riot mcp did not exit within 30 s of SIGTERM")
	}
	if !strings.Contains(h.log.String(), "terminated signal received: stopped serving MCP") {
		t.Errorf("the log does not say why riot stopped:\n%s", h.log)
	}
	if !proctest.WaitExit(sleepPID, 5*time.Second) {
		t.Errorf("sleep %d outlived riot's shutdown", sleepPID)
	}

	raw, err := os.ReadFile(filepath.Join(e.state, "riot", "sessions", "pod.json"))
	if err != nil {
		t.Fatalf("the session's state file: %v", err)
	}
	if !json.Valid(raw) || !strings.Contains(string(raw), filepath.Join(e.ws, "sub")) {
		t.Errorf("the session's state does not hold Bash's directory %s:\n%s", filepath.Join(e.ws, "sub"), raw)
	}
}
