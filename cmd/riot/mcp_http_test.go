package main_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/riot-tools/riot/internal/proctest"
)

// httpMCP is `riot mcp --listen` on a free loopback port.
type httpMCP struct {
	*proc
	url string
	// log is what riot wrote to stderr, whole once it has exited.
	log *serveLog
}

var servingRE = regexp.MustCompile(`serving MCP on (http://\S+/)`)

func (e *env) listen(t *testing.T, environ []string, args ...string) *httpMCP {
	t.Helper()
	cmd := e.command("", append([]string{"mcp", "--listen", "127.0.0.1:0"}, args...)...)
	cmd.Env = append(cmd.Env, environ...)
	urls := make(chan string, 1)
	h := &httpMCP{log: &serveLog{urls: urls}}
	// Wait returns only once stderr is read to its end, so the log is whole.
	cmd.Stderr = h.log
	h.proc = startProc(t, cmd)
	select {
	case h.url = <-urls:
	case <-h.exited:
		t.Fatalf("riot mcp --listen exited without serving: %v\n%s", h.err, h.log)
	case <-time.After(30 * time.Second):
		t.Fatal("riot mcp --listen did not serve within 30 s")
	}
	return h
}

// serveLog keeps what riot writes to stderr, and sends the first URL it
// says it serves on.
type serveLog struct {
	mu   sync.Mutex
	buf  strings.Builder
	urls chan<- string // nil once sent
}

func (l *serveLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Write(p)
	if l.urls != nil {
		// Complete lines only: a write may end mid-URL.
		s := l.buf.String()
		if m := servingRE.FindStringSubmatch(s[:strings.LastIndexByte(s, '\n')+1]); m != nil {
			l.urls <- m[1]
			l.urls = nil
		}
	}
	return len(p), nil
}

func (l *serveLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// bearer adds the token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func (h *httpMCP) connect(t *testing.T, token string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "riot-test", Version: "1"}, opts)
	s, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: h.url, HTTPClient: &http.Client{Transport: bearer{token}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func post(t *testing.T, url string, header map[string]string) int {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// Streamable HTTP serves the same tools behind the same permission chain,
// to a client with the token and from an allowed origin only.
func TestMCPHTTP(t *testing.T) {
	e := newEnv(t)
	e.write("a.txt", "alpha\n")
	h := e.listen(t, nil, "--token", "s3cret")
	for _, c := range []struct {
		header map[string]string
		want   int
	}{
		{nil, http.StatusUnauthorized},
		{map[string]string{"Authorization": "Bearer wrong"}, http.StatusUnauthorized},
		{map[string]string{"Authorization": "s3cret"}, http.StatusUnauthorized},
		{map[string]string{"Authorization": "Bearer s3cret", "Origin": "https://evil.example"}, http.StatusForbidden},
		{map[string]string{"Authorization": "Bearer s3cret", "Origin": "http://localhost.evil.example"}, http.StatusForbidden},
		{map[string]string{"Authorization": "Bearer s3cret", "Origin": "null"}, http.StatusForbidden},
		{map[string]string{"Authorization": "Bearer s3cret", "Origin": "http://localhost:3000"}, http.StatusOK},
		{map[string]string{"Authorization": "Bearer s3cret"}, http.StatusOK},
	} {
		if got := post(t, h.url, c.header); got != c.want {
			t.Errorf("POST with %v: %d, want %d", c.header, got, c.want)
		}
	}

	// A loopback server answers no request for another host name: DNS
	// rebinding.
	req, _ := http.NewRequest("POST", h.url, strings.NewReader(`{}`))
	req.Host = "evil.example"
	req.Header.Set("Authorization", "Bearer s3cret")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a request for host evil.example: %v %v", err, resp)
	} else {
		resp.Body.Close()
	}

	asked := make(chan string, 2)
	s := h.connect(t, "s3cret", &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked <- req.Params.Message
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "deny"}}, nil
	}})
	tools, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := toolNames(tools.Tools); got != riotOrder {
		t.Fatalf("tools/list over HTTP = %s", got)
	}
	if res := call(t, s, "Read", map[string]any{"file_path": "a.txt"}); res.IsError || !strings.Contains(text(res), "1\talpha") {
		t.Fatalf("Read over HTTP: %s", text(res))
	}
	res := call(t, s, "Bash", map[string]any{"command": "touch x"})
	if !res.IsError || !strings.Contains(text(res), "The user denied permission for this call") {
		t.Fatalf("a denied write over HTTP: %s", text(res))
	}
	if msg := <-asked; !strings.Contains(msg, "touch x") {
		t.Fatalf("asked %q", msg)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "x")); !os.IsNotExist(err) {
		t.Fatal("a denied call ran")
	}
	// SIGTERM ends the idle server, cleanly (the bound only keeps a hang
	// from stalling the suite; mcp_shutdown_test.go holds the timing).
	if err := h.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-h.exited:
		if h.err != nil {
			t.Fatalf("riot mcp --listen after SIGTERM: %v\n%s", h.err, h.log)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("riot mcp --listen still runs 30 s after SIGTERM")
	}
}

// Without --token, the token comes from $RIOT_MCP_TOKEN, or else from the
// state dir's mcp-token file, made readable by its owner only.
func TestMCPHTTPToken(t *testing.T) {
	e := newEnv(t)
	h := e.listen(t, nil)
	path := filepath.Join(e.state, "riot", "mcp-token")
	info, err := os.Stat(path)
	if err != nil {
		t.Fatalf("no token file: %v", err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Fatalf("token file mode %v, want 0600", info.Mode().Perm())
	}
	data, _ := os.ReadFile(path)
	token := strings.TrimSpace(string(data))
	if len(token) < 32 {
		t.Fatalf("token %q is short", token)
	}
	if res := call(t, h.connect(t, token, nil), "Bash", map[string]any{"command": "echo hi"}); res.IsError {
		t.Fatalf("with the file's token: %s", text(res))
	}
	if got := post(t, h.url, nil); got != http.StatusUnauthorized {
		t.Fatalf("without a token: %d", got)
	}
	// A second start reuses the file.
	h2 := e.listen(t, nil)
	if got := post(t, h2.url, map[string]string{"Authorization": "Bearer " + token}); got != http.StatusOK {
		t.Fatalf("a second start with the same file: %d", got)
	}
	// The environment wins over the file.
	h3 := e.listen(t, []string{"RIOT_MCP_TOKEN=from-env"})
	if got := post(t, h3.url, map[string]string{"Authorization": "Bearer from-env"}); got != http.StatusOK {
		t.Fatalf("with $RIOT_MCP_TOKEN: %d", got)
	}
	if got := post(t, h3.url, map[string]string{"Authorization": "Bearer " + token}); got != http.StatusUnauthorized {
		t.Fatalf("the file's token when $RIOT_MCP_TOKEN is set: %d", got)
	}
	// A token file others can read is refused.
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	e.riot("", "mcp", "--listen", "127.0.0.1:0").want(t, 2, "chmod 600")
}

// --listen binds loopback only, unless told otherwise.
func TestMCPHTTPLoopbackOnly(t *testing.T) {
	e := newEnv(t)
	for _, addr := range []string{"0.0.0.0:0", "[::]:0", "192.0.2.1:0", "example.com:80"} {
		e.riot("", "mcp", "--listen", addr, "--token", "t").want(t, 2, "not a loopback address")
	}
	e.riot("", "mcp", "--token", "t").want(t, 2, "are for --listen")
}

// A client that drops a call's POST mid-call (it closed its transport, or
// died) has the call cancelled and its process killed: without stream
// resumption, the result could never reach it.
func TestMCPHTTPDroppedPostCancelsCall(t *testing.T) {
	e := newEnv(t)
	e.sandboxOff()
	h := e.listen(t, nil, "--token", "t", "--mode", "bypassPermissions")
	do := func(ctx context.Context, session, body string) *http.Response {
		req, _ := http.NewRequestWithContext(ctx, "POST", h.url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer t")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	resp := do(context.Background(), "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	resp.Body.Close()
	session := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || session == "" {
		t.Fatalf("initialize: %d, session %q", resp.StatusCode, session)
	}
	do(context.Background(), session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`).Body.Close()
	fifo, pids := fifoPID(t)
	ctx, drop := context.WithCancel(context.Background())
	defer drop()
	args := fmt.Sprintf(`{"command":"sleep 300 & echo $! > %s; wait"}`, fifo)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, "POST", h.url, strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"Bash","arguments":`+args+`}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer t")
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		// A client's own X-Riot-Post binds nothing.
		req.Header.Set("X-Riot-Post", "forged")
		if resp, err := http.DefaultClient.Do(req); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}()
	sleepPID := recvPID(t, pids)
	drop()
	if !proctest.WaitExit(sleepPID, 5*time.Second) {
		t.Fatalf("sleep %d outlived the POST that started it", sleepPID)
	}
	// The session goes on.
	resp = do(context.Background(), session, `{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("ping after a dropped POST: %d", resp.StatusCode)
	}
}
