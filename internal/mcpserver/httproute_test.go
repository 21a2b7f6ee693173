package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const testToken = "test-token"

// serveHTTP serves s on a loopback port until the test ends and returns
// its URL.
func serveHTTP(t *testing.T, s *Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.ServeHTTP(ctx, ln, HTTPOptions{Token: testToken}) }()
	t.Cleanup(func() { cancel(); <-done })
	return "http://" + ln.Addr().String() + "/"
}

// httpWire is an http.RoundTripper that carries the token and records the
// JSON-RPC messages of both directions.
type httpWire struct {
	sent, received wireLog
}

func (h *httpWire) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+testToken)
	if r.Body != nil {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, err
		}
		_, _ = h.sent.Write(append(bytes.TrimSpace(body), '\n'))
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	pr, pw := io.Pipe()
	body := resp.Body
	sse := strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream")
	go func() {
		defer body.Close()
		var buf bytes.Buffer
		_, err := io.Copy(io.MultiWriter(pw, &buf), body)
		if sse {
			for line := range strings.Lines(buf.String()) {
				if data, ok := strings.CutPrefix(line, "data:"); ok {
					_, _ = h.received.Write([]byte(strings.TrimSpace(data) + "\n"))
				}
			}
		} else if bytes.HasPrefix(bytes.TrimSpace(buf.Bytes()), []byte("{")) {
			_, _ = h.received.Write(append(bytes.TrimSpace(buf.Bytes()), '\n'))
		}
		pw.CloseWithError(err)
	}()
	resp.Body = pr
	return resp, nil
}

// riot mcp over HTTP serves every revision it offers, 2026-07-28
// statelessly, and what it sends is valid against each revision's schema.
func TestHTTPServesEveryRevision(t *testing.T) {
	fixture := buildMCPServe(t)
	s := newTestServer(t, fixture)
	url := serveHTTP(t, s)
	for _, revision := range offeredRevisions() {
		t.Run(revision, func(t *testing.T) {
			ctx := context.Background()
			wire := &httpWire{}
			client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
				ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					if strings.HasPrefix(req.Params.Message, "riot: allow") {
						return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": answerOnce}}, nil
					}
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"color": "blue"}}, nil
				},
			})
			cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: wire}, DisableStandaloneSSE: true}, &mcp.ClientSessionOptions{ProtocolVersion: revision})
			if err != nil {
				t.Fatal(err)
			}
			if got := cs.InitializeResult().ProtocolVersion; got != revision {
				t.Fatalf("negotiated %s, want %s", got, revision)
			}
			tools, err := cs.ListTools(ctx, nil)
			if err != nil || len(tools.Tools) == 0 || tools.Tools[0].Name != "mcp__srv__echo" && tools.Tools[0].Name != "mcp__srv__ask" {
				t.Fatalf("tools/list: %+v %v", tools, err)
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "mcp__srv__echo", Arguments: map[string]any{"text": "hi"}})
			if err != nil || res.IsError || res.Content[0].(*mcp.TextContent).Text != "echo: hi" {
				t.Fatalf("echo: %+v %v", res, err)
			}
			// Questions, a wrapped server's and riot's own, need no
			// session on 2026-07-28: the request state carries them.
			canAsk := revision >= "2025-06-18"
			asked, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "mcp__srv__ask", Arguments: map[string]any{}})
			if err != nil || asked.IsError || canAsk != (asked.Content[0].(*mcp.TextContent).Text == "accept blue") {
				t.Fatalf("ask: %+v %v", asked, err)
			}
			allowed, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "mcp__asked__echo", Arguments: map[string]any{"text": "hi"}})
			if err != nil || allowed.IsError == canAsk {
				t.Fatalf("a call allowed once: %+v %v", allowed, err)
			}
			_ = cs.Close()
			validateWire(t, revision, wire.sent.all(), wire.received.all())
		})
	}
}

// post sends one JSON-RPC message and returns the response.
func post(t *testing.T, url, session, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// A request without Mcp-Session-Id, other than initialize, is HTTP 400
// at a revision with sessions, as the transport section says.
func TestHTTPNoSessionIsBadRequest(t *testing.T) {
	s := newTestServer(t, buildMCPServe(t))
	url := serveHTTP(t, s)
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"mcp__srv__echo","arguments":{"text":"x"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	} {
		resp := post(t, url, "", body)
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var msg struct {
			Error *jsonrpc.Error `json:"error"`
		}
		if resp.StatusCode != http.StatusBadRequest || json.Unmarshal(data, &msg) != nil || msg.Error == nil || !strings.Contains(msg.Error.Message, "Mcp-Session-Id") {
			t.Errorf("%s: %d %s", body, resp.StatusCode, data)
		}
	}
	// initialize needs none.
	resp := post(t, url, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Mcp-Session-Id") == "" {
		t.Fatalf("initialize: %d %v", resp.StatusCode, resp.Header)
	}
}

// A request the client cancelled is not answered over HTTP, as on stdio:
// its POST's stream ends without the response.
func TestHTTPCancelledRequestUnanswered(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "started")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("MCPSERVE_STARTED", fifo)
	s := newTestServer(t, buildMCPServe(t), "hang")
	url := serveHTTP(t, s)
	resp := post(t, url, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	session := resp.Header.Get("Mcp-Session-Id")
	resp.Body.Close()
	post(t, url, session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`).Body.Close()

	started := make(chan struct{})
	go func() {
		f, err := os.Open(fifo)
		if err == nil {
			_, _ = bufio.NewReader(f).ReadString('\n')
			f.Close()
		}
		close(started)
	}()
	var wg sync.WaitGroup
	var got []byte
	wg.Add(1)
	go func() {
		defer wg.Done()
		resp := post(t, url, session, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"mcp__srv__echo","arguments":{"text":"x"}}}`)
		got, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
	}()
	<-started
	resp = post(t, url, session, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"test"}}`)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("notifications/cancelled: %d", resp.StatusCode)
	}
	wg.Wait()
	if bytes.Contains(got, []byte(`"id":7`)) {
		t.Fatalf("the cancelled request was answered: %s", got)
	}
	// The session serves on.
	resp = post(t, url, session, `{"jsonrpc":"2.0","id":8,"method":"tools/list"}`)
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Contains(data, []byte(`"id":8`)) || !bytes.Contains(data, []byte("mcp__srv__echo")) {
		t.Fatalf("tools/list after the cancel: %s", data)
	}
}
