package main_test

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpserveBin is the Go SDK test server, built once for the tests that
// need it.
var mcpserveBin = sync.OnceValues(func() (string, error) {
	out := filepath.Join(bin.dir, "mcpserve")
	if b, err := exec.Command("go", "build", "-o", out, "github.com/riot-tools/riot/internal/testplugins/mcpserve").CombinedOutput(); err != nil {
		return "", fmt.Errorf("build mcpserve: %w\n%s", err, b)
	}
	return out, nil
})

// wrapping is an environment whose user config wraps the test server, in
// mode, as the MCP server srv, its tools allowed.
func wrapping(t *testing.T, mode string) *env {
	t.Helper()
	srv, err := mcpserveBin()
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t)
	e.userConfig(fmt.Sprintf("[permissions]\nallow = [\"mcp__srv\"]\n\n[mcp_servers.srv]\ncommand = %q\nargs = [%q]\n", srv, mode))
	return e
}

// upstream is the Go SDK client driving `riot mcp`, at a protocol version
// ("" for the latest); its elicitation handler, when answer is set, logs
// each question and answers with answer.
type upstream struct {
	mu        sync.Mutex
	questions []string
	answer    func() *mcp.ElicitResult
}

func (u *upstream) connect(t *testing.T, e *env, version string) *mcp.ClientSession {
	t.Helper()
	opts := &mcp.ClientOptions{}
	if u.answer != nil {
		opts.ElicitationHandler = func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			u.mu.Lock()
			defer u.mu.Unlock()
			u.questions = append(u.questions, req.Params.Message)
			return u.answer(), nil
		}
	}
	cmd := e.command("", "mcp")
	cmd.Stdin = nil
	client := mcp.NewClient(&mcp.Implementation{Name: "riot-test", Version: "1"}, opts)
	s, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func (u *upstream) last() string {
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.questions) == 0 {
		return ""
	}
	return u.questions[len(u.questions)-1]
}

// A wrapped server's question during a call goes up to riot's own MCP
// client, named as the server's, and the client's answer goes back down:
// accept with its content, decline, cancel. An answer that does not fit
// the server's form is declined, never passed on. Both ways a server may
// ask (multi round-trip input requests, and elicitation/create on an older
// protocol) and both kinds of client (multi round-trip, and an older one
// riot asks with elicitation/create) are covered.
func TestMCPServerQuestionGoesUpstream(t *testing.T) {
	for _, mode := range []string{"ok", "classic"} {
		for _, version := range []string{"", "2025-11-25"} {
			t.Run(mode+"/"+version, func(t *testing.T) {
				e := wrapping(t, mode)
				var answer *mcp.ElicitResult
				u := &upstream{answer: func() *mcp.ElicitResult { return answer }}
				s := u.connect(t, e, version)
				for _, tc := range []struct {
					answer *mcp.ElicitResult
					want   []string
				}{
					{&mcp.ElicitResult{Action: "accept", Content: map[string]any{"color": "blue"}}, []string{"accept blue"}},
					{&mcp.ElicitResult{Action: "decline"}, []string{"decline <nil>"}},
					{&mcp.ElicitResult{Action: "cancel"}, []string{"cancel <nil>"}},
					{&mcp.ElicitResult{Action: "accept", Content: map[string]any{"color": "blue", "token": "x"}}, []string{"decline <nil>", `asked the user "Which color?", and riot declined it for the user: the answer did not fit the form`, `fields the form does not ask for: "token"`}},
				} {
					answer = tc.answer
					res := call(t, s, "mcp__srv__ask", map[string]any{})
					got := text(res)
					for _, w := range tc.want {
						if !strings.Contains(got, w) {
							t.Fatalf("answer %+v: result %q lacks %q", tc.answer, got, w)
						}
					}
					if tc.answer.Action == "decline" && got != "decline <nil>" {
						t.Fatalf("the user's decline got a note: %q", got)
					}
					if q := u.last(); q != "The srv MCP server asks (this question is the server's, not riot's): Which color?" {
						t.Fatalf("the client was asked %q", q)
					}
				}
			})
		}
	}
}

// A client that takes no questions, or no client at all (`riot call`
// without a terminal), declines the server's question, and the result
// says why.
func TestMCPServerQuestionWithNoOneToAsk(t *testing.T) {
	const note = `[riot] The srv MCP server asked the user "Which color?", and riot declined it for the user: no one could answer it here`
	for _, mode := range []string{"ok", "classic"} {
		e := wrapping(t, mode)
		s := (&upstream{}).connect(t, e, "")
		if got := text(call(t, s, "mcp__srv__ask", map[string]any{})); !strings.HasPrefix(got, "decline <nil>") || !strings.Contains(got, note) {
			t.Fatalf("%s over MCP: %q", mode, got)
		}
		e.riot("", "call", "mcp__srv__ask", "{}").want(t, 0, "decline <nil>", note)
		e.riot(`[{"type":"tool_use","id":"toolu_1","name":"mcp__srv__ask","input":{}}]`, "run").want(t, 0, `decline \u003cnil\u003e`, "riot declined it for the user: no one could answer it here")
	}
}

// Cancelling a call while its server's question is with an older client
// (which riot asks within the call) withdraws the question and ends the
// server's call: the next call is the server's only one, and is asked.
func TestMCPServerQuestionCancelledWithTheCall(t *testing.T) {
	e := wrapping(t, "ok")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	withdrawn := make(chan struct{})
	first := true
	var mu sync.Mutex
	opts := &mcp.ClientOptions{ElicitationHandler: func(hctx context.Context, _ *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		mu.Lock()
		wait := first
		first = false
		mu.Unlock()
		if !wait {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"color": "red"}}, nil
		}
		cancel() // the caller gives up while the user is being asked
		<-hctx.Done()
		close(withdrawn)
		return nil, hctx.Err()
	}}
	cmd := e.command("", "mcp")
	cmd.Stdin = nil
	client := mcp.NewClient(&mcp.Implementation{Name: "riot-test", Version: "1"}, opts)
	s, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "mcp__srv__ask", Arguments: map[string]any{}}); err == nil {
		t.Fatal("the cancelled call returned a result")
	}
	<-withdrawn
	if got := text(call(t, s, "mcp__srv__ask", map[string]any{})); got != "accept red" {
		t.Fatalf("the next call: %q", got)
	}
}
