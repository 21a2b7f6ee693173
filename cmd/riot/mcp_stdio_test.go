package main_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/riot-tools/riot/internal/proctest"
)

// A line that is not a JSON-RPC message is answered with -32700 or -32600
// and id null, and riot keeps serving: calls still run afterwards.
func TestMCPMalformedLines(t *testing.T) {
	e := newEnv(t)
	e.write("a.txt", "alpha\n")
	r := e.raw(t)
	for _, c := range []struct {
		line string
		code float64
		want string
	}{
		{`{bad json`, -32700, "not valid JSON"},
		{`not json at all`, -32700, "not valid JSON"},
		{`{"foo":1}`, -32600, `"jsonrpc": "2.0"`},
		{`{"jsonrpc":"1.0","id":7,"method":"ping"}`, -32600, `"jsonrpc": "2.0"`},
		{`{"jsonrpc":"2.0","id":8}`, -32600, `"method"`},
		{`{"jsonrpc":"2.0","id":9,"method":5}`, -32600, `"method" must be a non-empty string`},
		{`{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}`, -32600, `"id"`},
		{`[{"jsonrpc":"2.0","id":10,"method":"ping"}]`, -32600, "batches are not supported"},
		{`42`, -32600, "JSON object"},
		{`{"jsonrpc":"2.0","id":11,"method":"ping"}garbage`, -32700, "not valid JSON"},
	} {
		r.send(c.line)
		m := r.next()
		errObj, _ := m["error"].(map[string]any)
		id, hasID := m["id"]
		if errObj == nil || errObj["code"] != c.code || !hasID || id != nil || m["jsonrpc"] != "2.0" {
			t.Fatalf("%s: answered %v, want error %v with id null", c.line, m, c.code)
		}
		if msg, _ := errObj["message"].(string); !strings.Contains(msg, c.want) {
			t.Fatalf("%s: message %q lacks %q", c.line, msg, c.want)
		}
	}
	// Blank lines are skipped, not answered.
	r.send("")
	r.initialize()
	r.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"Read","arguments":{"file_path":"a.txt"}}}`)
	m := r.response(2)
	res, _ := json.Marshal(m["result"])
	if !strings.Contains(string(res), `1\talpha`) {
		t.Fatalf("after malformed lines, Read answered %v", m)
	}
	// A bad line between good ones costs only itself; the answers may come
	// in any order.
	r.send(`{"jsonrpc":"2.0","id":3,"method":"ping"}` + "\n" + `{oops` + "\n" + `{"jsonrpc":"2.0","id":4,"method":"ping"}`)
	seen := map[string]bool{}
	for range 3 {
		m := r.next()
		switch {
		case m["id"] == 3.0 && m["result"] != nil:
			seen["3"] = true
		case m["id"] == 4.0 && m["result"] != nil:
			seen["4"] = true
		case m["id"] == nil && m["error"] != nil && m["error"].(map[string]any)["code"] == -32700.0:
			seen["bad"] = true
		default:
			t.Fatalf("unexpected answer %v", m)
		}
	}
	if len(seen) != 3 {
		t.Fatalf("answers: %v", seen)
	}
}

// A line over 16 MiB is answered as an invalid request and skipped; the
// next line is served.
func TestMCPOverlongLine(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 17 MiB through a pipe")
	}
	e := newEnv(t)
	r := e.raw(t)
	r.initialize()
	// Written from another goroutine, since the pipe holds far less than
	// the line; a failed write shows as the missing answers.
	long := `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":"` + strings.Repeat("a", 17<<20) + `"}}` + "\n" + `{"jsonrpc":"2.0","id":3,"method":"ping"}` + "\n"
	go func() { _, _ = io.WriteString(r.stdin, long) }()
	m := r.next()
	if errObj, _ := m["error"].(map[string]any); errObj == nil || errObj["code"] != -32600.0 || m["id"] != nil || !strings.Contains(errObj["message"].(string), "16 MiB") {
		t.Fatalf("overlong line: %v", m)
	}
	if m := r.response(3); m["result"] == nil {
		t.Fatalf("ping after an overlong line: %v", m)
	}
}

// After notifications/cancelled, riot sends no response for the request,
// and the call's process is killed.
func TestMCPCancelledRequestNotAnswered(t *testing.T) {
	e := newEnv(t)
	e.sandboxOff()
	r := e.raw(t, "--mode", "bypassPermissions")
	r.initialize()
	fifo, pids := fifoPID(t)
	cmd := fmt.Sprintf(`sleep 300 & echo $! > %s; wait`, fifo)
	args, _ := json.Marshal(map[string]any{"command": cmd})
	r.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"Bash","arguments":` + string(args) + `}}`)
	sleepPID := recvPID(t, pids)
	r.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"test"}}`)
	if !proctest.WaitExit(sleepPID, 5*time.Second) {
		t.Fatalf("the cancelled call's sleep %d still runs", sleepPID)
	}
	// A cancellation of a request that is not in flight changes nothing.
	r.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}`)
	r.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"Bash","arguments":{"command":"echo three"}}}`)
	r.send(`{"jsonrpc":"2.0","id":4,"method":"ping"}`)
	// Everything riot writes until both answers, and after stdin closes,
	// is read: no answer to request 2 among it.
	var ids []any
	for len(ids) < 2 {
		m := r.next()
		if id, ok := m["id"]; ok {
			ids = append(ids, id)
		}
	}
	r.stdin.Close()
	for {
		line, err := r.out.ReadBytes('\n')
		if err != nil {
			break
		}
		var m map[string]any
		if json.Unmarshal(line, &m) == nil {
			if id, ok := m["id"]; ok {
				ids = append(ids, id)
			}
		}
	}
	if len(ids) != 2 || !slices.Contains(ids, any(3.0)) || !slices.Contains(ids, any(4.0)) {
		t.Fatalf("responses after the cancellation: ids %v, want only 3 and 4", ids)
	}
}

// Through the Go SDK client: cancelling the request's context cancels the
// call and kills its process.
func TestMCPCancellationKillsProcess(t *testing.T) {
	e := newEnv(t)
	e.sandboxOff()
	s := e.connect(t, nil, "--mode", "bypassPermissions")
	fifo, pids := fifoPID(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "Bash", Arguments: map[string]any{"command": fmt.Sprintf(`sleep 300 & echo $! > %s; wait`, fifo)}})
		done <- err
	}()
	sleepPID := recvPID(t, pids)
	cancel()
	if err := <-done; err == nil {
		t.Fatal("a cancelled call returned a result")
	}
	if !proctest.WaitExit(sleepPID, 5*time.Second) {
		t.Fatalf("sleep %d outlived its cancelled call", sleepPID)
	}
	// The session goes on.
	if res := call(t, s, "Bash", map[string]any{"command": "echo after"}); res.IsError || !strings.Contains(text(res), "after") {
		t.Fatalf("after a cancellation: %s", text(res))
	}
}

// With a progress token, a running call reports progress: its tool's own
// messages, and a heartbeat while it is silent.
func TestMCPProgress(t *testing.T) {
	e := newEnv(t)
	e.enableTestkit()
	var mu sync.Mutex
	var got []*mcp.ProgressNotificationParams
	first := make(chan struct{})
	var once sync.Once
	s := e.connect(t, &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
		mu.Lock()
		got = append(got, req.Params)
		mu.Unlock()
		if strings.Contains(req.Params.Message, "pid=") {
			once.Do(func() { close(first) })
		}
	}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	params := &mcp.CallToolParams{Name: "Block", Arguments: map[string]any{"safe": true}}
	params.SetProgressToken("tok-1")
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = s.CallTool(ctx, params)
	}()
	select {
	case <-first:
	case <-time.After(20 * time.Second):
		t.Fatal("no progress notification carried the tool's message")
	}
	cancel()
	<-done
	mu.Lock()
	defer mu.Unlock()
	p := got[0]
	if p.ProgressToken != "tok-1" || p.Progress <= 0 || !strings.Contains(p.Message, "Block") {
		t.Fatalf("progress = %+v", p)
	}
	// A call without a token gets no progress.
	n := len(got)
	mu.Unlock()
	call(t, s, "Noop", map[string]any{})
	mu.Lock()
	if len(got) != n {
		t.Fatalf("progress without a token: %+v", got[n:])
	}
}

// The heartbeat: a call that runs past [mcp] progress_interval is
// reported by progress each interval while its tool is silent, so that a
// client whose timeout resets on progress keeps waiting for it.
func TestMCPProgressHeartbeat(t *testing.T) {
	e := newEnv(t)
	e.enableTestkit()
	p := filepath.Join(e.home, ".config", "riot", "config.toml")
	old, _ := os.ReadFile(p)
	e.userConfig(string(old) + "\n[mcp]\nprogress_interval = \"20ms\"\n")
	beats := make(chan *mcp.ProgressNotificationParams, 64)
	s := e.connect(t, &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
		select {
		case beats <- req.Params:
		default:
		}
	}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	params := &mcp.CallToolParams{Name: "Block", Arguments: map[string]any{"safe": true}}
	params.SetProgressToken(7)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = s.CallTool(ctx, params)
	}()
	// The tool says one thing (its pid); every other notification is the
	// heartbeat, numbered on, with the tool's last message once it has one.
	last := 0.0
	guard := time.After(5 * time.Second)
	for n := 0; n < 4; n++ {
		select {
		case p := <-beats:
			if fmt.Sprint(p.ProgressToken) != "7" || p.Progress <= last || !strings.HasPrefix(p.Message, "Block (") {
				t.Fatalf("progress %d = %+v", n, p)
			}
			last = p.Progress
		case <-guard:
			t.Fatalf("%d progress notifications within 5 s at a 20ms interval", n)
		}
	}
	cancel()
	<-done
}

// SIGTERM or SIGINT cancels every call in flight, kills their processes and
// riot's plugins, and riot exits within 2 s.
func TestMCPSignalStopsEverything(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			e := newEnv(t)
			e.sandboxOff()
			r := e.raw(t, "--mode", "bypassPermissions")
			r.initialize()
			fifo, pids := fifoPID(t)
			args, _ := json.Marshal(map[string]any{"command": fmt.Sprintf(`sleep 300 & echo $! > %s; wait`, fifo)})
			r.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"Bash","arguments":` + string(args) + `}}`)
			sleepPID := recvPID(t, pids)
			left := descendants(r.pid)
			if len(left) < 2 {
				t.Fatalf("riot runs %v, want its plugin and the command", left)
			}
			start := time.Now()
			if err := syscall.Kill(r.pid, sig); err != nil {
				t.Fatal(err)
			}
			select {
			case <-r.done:
			case <-time.After(2 * time.Second):
				t.Fatalf("riot still runs 2 s after %v", sig)
			}
			for _, pid := range append(left, sleepPID) {
				if !proctest.WaitExit(pid, 2*time.Second-time.Since(start)) {
					t.Errorf("process %d outlived riot's exit on %v", pid, sig)
				}
			}
		})
	}
}

// Closing stdin, or a client that dies (the kernel closes both its ends of
// the pipes), leaves no process running.
func TestMCPClientGoneLeavesNothing(t *testing.T) {
	for _, c := range []struct {
		name string
		gone func(r *rawMCP)
	}{
		{"stdin closed", func(r *rawMCP) { r.stdin.Close() }},
		{"client killed", func(r *rawMCP) { r.stdout.Close(); r.stdin.Close() }},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			e.sandboxOff()
			r := e.raw(t, "--mode", "bypassPermissions")
			r.initialize()
			fifo, pids := fifoPID(t)
			args, _ := json.Marshal(map[string]any{"command": fmt.Sprintf(`sleep 300 & echo $! > %s; wait`, fifo)})
			r.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"Bash","arguments":` + string(args) + `}}`)
			sleepPID := recvPID(t, pids)
			left := descendants(r.pid)
			c.gone(r)
			select {
			case <-r.done:
			case <-time.After(5 * time.Second):
				t.Fatalf("riot still runs 5 s after its client went (%s)", c.name)
			}
			for _, pid := range append(left, sleepPID) {
				if !proctest.WaitExit(pid, 3*time.Second) {
					cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
					t.Errorf("process %d outlived riot: %q", pid, cmdline)
				}
			}
		})
	}
}

// initialize negotiates the protocol version: a version riot speaks is
// kept, an unknown one gets riot's latest.
func TestMCPVersionNegotiation(t *testing.T) {
	for _, c := range []struct{ asked, want string }{
		{"2024-11-05", "2024-11-05"},
		{"2025-06-18", "2025-06-18"},
		{"1999-01-01", ""},
	} {
		e := newEnv(t)
		r := e.raw(t)
		r.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + c.asked + `","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
		m := r.response(1)
		res, _ := m["result"].(map[string]any)
		got, _ := res["protocolVersion"].(string)
		if c.want != "" && got != c.want || c.want == "" && (got == "" || got == c.asked) {
			t.Errorf("asked %s, negotiated %q: %v", c.asked, got, m)
		}
		caps, _ := res["capabilities"].(map[string]any)
		tools, _ := caps["tools"].(map[string]any)
		// listChanged: a wrapped server's added tools are announced.
		if tools == nil || tools["listChanged"] != true || caps["resources"] == nil || caps["logging"] != nil || caps["prompts"] != nil {
			t.Errorf("capabilities = %v", caps)
		}
	}
}
