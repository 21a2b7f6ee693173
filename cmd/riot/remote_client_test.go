package main_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/riot-tools/riot/core"
	"github.com/riot-tools/riot/remote"
)

// answer is an Elicitor that gives one decision and records the question.
type answer struct {
	decision string
	asked    chan string
}

func (a answer) Elicit(_ context.Context, from, message string, _ json.RawMessage) (string, map[string]any, error) {
	a.asked <- from + ": " + message
	return "accept", map[string]any{"decision": a.decision}, nil
}

// The library's client is a core.Runner: the session's tools in order,
// and a call that needs permission asked through the Elicitor, whose
// answer the session keeps to.
func TestRemoteClientElicits(t *testing.T) {
	srv := newEnv(t)
	tok := "lib-token"
	h := srv.listen(t, nil, "--token", tok)
	for _, c := range []struct {
		decision string
		status   core.Status
	}{{"allow once", core.StatusOK}, {"deny", core.StatusDenied}} {
		a := answer{decision: c.decision, asked: make(chan string, 1)}
		var r core.Runner
		cl, err := remote.Dial(context.Background(), h.url, remote.Options{Token: tok, Elicitor: a})
		if err != nil {
			t.Fatal(err)
		}
		r = cl
		var names []string
		for _, ti := range r.Tools() {
			names = append(names, ti.Name)
		}
		if got := strings.Join(names, ","); got != riotOrder {
			t.Fatalf("tools %s, want %s", got, riotOrder)
		}
		file := strings.ReplaceAll(c.decision, " ", "_")
		res := r.RunTurn(context.Background(), []core.ToolUse{{ID: "t1", Name: "Bash", Input: json.RawMessage(`{"command":"touch ` + file + `"}`)}})
		if res[0].Status != c.status {
			t.Fatalf("%s: %s %s", c.decision, res[0].Status, res[0].Text())
		}
		if q := <-a.asked; !strings.Contains(q, "the remote session at "+h.url) || !strings.Contains(q, "touch "+file) {
			t.Fatalf("asked %q", q)
		}
		_, err = os.Stat(filepath.Join(srv.ws, file))
		if ran := err == nil; ran != (c.status == core.StatusOK) {
			t.Fatalf("%s: the call ran: %v", c.decision, ran)
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// benchSession is riot mcp --listen in a workspace of its own, for a
// benchmark.
func benchSession(b *testing.B) (url, token string) {
	b.Helper()
	root := b.TempDir()
	ws := filepath.Join(root, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("alpha\nbeta\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	token = "bench-token"
	cmd := exec.Command(bin.riot, "mcp", "--listen", "127.0.0.1:0", "--token", token)
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "HOME="+root, "XDG_CONFIG_HOME="+filepath.Join(root, "config"), "XDG_STATE_HOME="+filepath.Join(root, "state"), "TMPDIR="+root)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	done := make(chan struct{})
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := servingRE.FindStringSubmatch(sc.Text()); m != nil {
				urls <- m[1]
			}
		}
		close(urls)
	}()
	go func() { _ = cmd.Wait(); close(done) }()
	b.Cleanup(func() { _ = cmd.Process.Kill(); <-done })
	url, ok := <-urls
	if !ok {
		b.Fatal("riot mcp --listen exited without serving")
	}
	return url, token
}

// BenchmarkRemoteCall is one Read through package remote's client against
// the same call by the MCP Go SDK's client alone, both on an open session
// with riot mcp --listen on loopback: the client's own overhead.
func BenchmarkRemoteCall(b *testing.B) {
	url, token := benchSession(b)
	ctx := context.Background()
	b.Run("mcp-sdk", func(b *testing.B) {
		client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
		s, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token}}}, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		for b.Loop() {
			res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "Read", Arguments: map[string]any{"file_path": "a.txt"}})
			if err != nil || res.IsError {
				b.Fatalf("%v %v", err, res)
			}
		}
	})
	b.Run("remote", func(b *testing.B) {
		c, err := remote.Dial(ctx, url, remote.Options{Token: token})
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		uses := []core.ToolUse{{ID: "b1", Name: "Read", Input: json.RawMessage(`{"file_path":"a.txt"}`)}}
		for b.Loop() {
			if r := c.RunTurn(ctx, uses); r[0].IsError() {
				b.Fatal(r[0].Text())
			}
		}
	})
}
