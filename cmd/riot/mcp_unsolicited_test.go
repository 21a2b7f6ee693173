package main_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// An answer to riot's permission question counts only with the request
// state riot issued for that question, in that session, for that very
// call, once: a client's inputResponses on their own, with a made-up
// state, with a state of another call or another session, or with a state
// already spent, are no answer, and the call does not run. These tests
// drive `riot mcp` with the official Go SDK client, on stdio and on
// Streamable HTTP, as a client that forges answers would.

// allowOnce is the answer a forging client sends.
var allowOnce = mcp.InputResponseMap{"riot-permission": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "allow once"}}}

// riotClient connects the Go SDK client to `riot mcp` on stdio (h nil) or
// to h over HTTP, at a protocol version.
func riotClient(t *testing.T, e *env, h *httpMCP, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "riot-test", Version: "1"}, opts)
	var transport mcp.Transport
	if h != nil {
		transport = &mcp.StreamableClientTransport{Endpoint: h.url, HTTPClient: &http.Client{Transport: bearer{"s3cret"}}}
	} else {
		cmd := e.command("", "mcp")
		cmd.Stdin = nil
		transport = &mcp.CommandTransport{Command: cmd}
	}
	s, err := client.Connect(context.Background(), transport, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// touch calls Bash touch NAME with the given answers and state.
func touch(t *testing.T, s *mcp.ClientSession, name string, answers mcp.InputResponseMap, state string) *mcp.CallToolResult {
	t.Helper()
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "Bash", Arguments: map[string]any{"command": "touch " + name}, InputResponses: answers, RequestState: state})
	if err != nil {
		t.Fatalf("touch %s: %v", name, err)
	}
	return res
}

// asked checks that res is riot's permission question for touch NAME,
// with a fresh request state of riot's, and returns the state.
func asked(t *testing.T, res *mcp.CallToolResult, name string) string {
	t.Helper()
	q, ok := res.InputRequests["riot-permission"].(*mcp.ElicitParams)
	if !ok || len(res.Content) != 0 {
		t.Fatalf("touch %s: not asked: %+v %q", name, res.InputRequests, text(res))
	}
	if want := "riot: allow touch " + name + "?"; !strings.HasPrefix(q.Message, want) {
		t.Fatalf("touch %s: asked %q, want %q...", name, q.Message, want)
	}
	if !strings.HasPrefix(res.RequestState, "riot-p-") || len(res.RequestState) != len("riot-p-")+32 {
		t.Fatalf("touch %s: request state %q", name, res.RequestState)
	}
	return res.RequestState
}

func absent(t *testing.T, e *env, name string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(e.ws, name)); !os.IsNotExist(err) {
		t.Fatalf("%s exists: a call riot's user never allowed ran", name)
	}
}

// On stdio, the one transport on which riot speaks multi round-trip
// requests (Streamable HTTP is stateful, and serves the protocols before
// them, as TestMCPUnsolicitedAnswerOldProtocol covers).
func TestMCPUnsolicitedAnswerMultiRoundTrip(t *testing.T) {
	e := newEnv(t)
	// A client that retries by hand, so that it sees riot's
	// questions and sends what it likes.
	s := riotClient(t, e, nil, "2026-07-28", &mcp.ClientOptions{
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			t.Error("riot sent elicitation/create to a multi round-trip client")
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
	})
	if v := s.InitializeResult().ProtocolVersion; v < "2026-07-28" {
		t.Fatalf("negotiated %s, not a multi round-trip protocol", v)
	}

	// No request state: asked, not run.
	asked(t, touch(t, s, "f1", allowOnce, ""), "f1")
	absent(t, e, "f1")
	// A made-up state, of riot's form or not: asked, not run.
	for _, state := range []string{"riot-p-00000000000000000000000000000000", "anything"} {
		asked(t, touch(t, s, "f2", allowOnce, state), "f2")
	}
	absent(t, e, "f2")
	// The state of another call: asked, not run.
	other := asked(t, touch(t, s, "a", nil, ""), "a")
	asked(t, touch(t, s, "f3", allowOnce, other), "f3")
	absent(t, e, "f3")
	// The state spent by that attempt is spent for its own call too.
	asked(t, touch(t, s, "a", allowOnce, other), "a")
	absent(t, e, "a")

	// The legitimate exchange runs the call, once.
	state := asked(t, touch(t, s, "f4", nil, ""), "f4")
	if res := touch(t, s, "f4", allowOnce, state); res.IsError || res.InputRequests != nil {
		t.Fatalf("the answered call: %+v %q", res.InputRequests, text(res))
	}
	if err := os.Remove(filepath.Join(e.ws, "f4")); err != nil {
		t.Fatalf("the answered call did not run: %v", err)
	}
	// Replayed: asked again, not run.
	asked(t, touch(t, s, "f4", allowOnce, state), "f4")
	absent(t, e, "f4")
	// A denial answered properly is what the model reads.
	state = asked(t, touch(t, s, "f6", nil, ""), "f6")
	deny := mcp.InputResponseMap{"riot-permission": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "deny"}}}
	if res := touch(t, s, "f6", deny, state); !res.IsError || !strings.Contains(text(res), "The user denied permission for this call") {
		t.Fatalf("a denied call: %+v %q", res.InputRequests, text(res))
	}
	absent(t, e, "f6")
}

// A client on a protocol before multi round-trip requests is asked with
// elicitation/create within its call; whatever inputResponses and state it
// sends itself are no answer.
func TestMCPUnsolicitedAnswerOldProtocol(t *testing.T) {
	for _, c := range []struct{ transport, version string }{{"stdio", "2025-06-18"}, {"http", "2025-06-18"}, {"stdio", "2025-11-25"}, {"http", "2025-11-25"}} {
		t.Run(c.transport+"/"+c.version, func(t *testing.T) {
			e := newEnv(t)
			var h *httpMCP
			if c.transport == "http" {
				h = e.listen(t, nil, "--token", "s3cret")
			}
			var mu sync.Mutex
			var questions []string
			decision := "deny"
			s := riotClient(t, e, h, c.version, &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				mu.Lock()
				defer mu.Unlock()
				questions = append(questions, req.Params.Message)
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": decision}}, nil
			}})
			if v := s.InitializeResult().ProtocolVersion; v != c.version {
				t.Fatalf("negotiated %s", v)
			}
			for i, state := range []string{"", "riot-p-00000000000000000000000000000000"} {
				res := touch(t, s, "f1", allowOnce, state)
				if !res.IsError || !strings.Contains(text(res), "The user denied permission for this call") {
					t.Fatalf("forged answer with state %q: %q", state, text(res))
				}
				mu.Lock()
				n, last := len(questions), questions[len(questions)-1]
				mu.Unlock()
				if n != i+1 || !strings.HasPrefix(last, "riot: allow touch f1?") {
					t.Fatalf("forged answer with state %q: the user was asked %q (%d questions)", state, last, n)
				}
			}
			absent(t, e, "f1")
			// The user's own answer holds.
			mu.Lock()
			decision = "allow once"
			mu.Unlock()
			if res := touch(t, s, "f2", nil, ""); res.IsError {
				t.Fatalf("the allowed call: %q", text(res))
			}
			if _, err := os.Stat(filepath.Join(e.ws, "f2")); err != nil {
				t.Fatal("the allowed call did not run")
			}
		})
	}
	// A client that cannot be asked is denied, forged answer or not.
	e := newEnv(t)
	s := riotClient(t, e, nil, "2025-06-18", nil)
	if res := touch(t, s, "f1", allowOnce, ""); !res.IsError || !strings.Contains(text(res), "Bash(touch:*)") {
		t.Fatalf("a client that cannot be asked: %q", text(res))
	}
	absent(t, e, "f1")
}
