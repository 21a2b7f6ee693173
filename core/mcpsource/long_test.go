package mcpsource

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/shared"
)

// buildFixture builds the fixture MCP server (internal/testplugins/mcpserve).
func buildFixture(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "mcpserve")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/riot-tools/riot/internal/testplugins/mcpserve").CombinedOutput(); err != nil {
		t.Fatalf("build mcpserve: %v\n%s", err, out)
	}
	return bin
}

// callOnce runs one call and returns its Final, the text it sent and
// its progress lines.
func callOnce(t *testing.T, src *Source, tool, input string) (*shared.Final, string, []string) {
	t.Helper()
	var final *shared.Final
	var text strings.Builder
	var progress []string
	err := src.Call(context.Background(), shared.CallRequest{Tool: tool, CallID: "c1", Input: json.RawMessage(input)}, func(e shared.CallEvent) error {
		switch {
		case e.Final != nil:
			final = e.Final
		case e.Chunk != nil:
			text.Write(e.Chunk.Data)
		case e.Progress != nil:
			progress = append(progress, e.Progress.Message)
		}
		return nil
	})
	if err != nil || final == nil {
		t.Fatalf("%s: %v, final %v", tool, err, final)
	}
	return final, text.String(), progress
}

// A call during which the server sends nothing for idle_timeout ends
// with that cause, told apart from the total tool_timeout.
func TestIdleTimeoutNamesTheCause(t *testing.T) {
	src := New(Options{Server: config.MCPServer{Name: "srv", Command: buildFixture(t), Args: []string{"hang"}, IdleTimeout: 100 * time.Millisecond, ToolTimeout: time.Hour}})
	defer src.Close()
	if _, err := src.Manifest(context.Background()); err != nil {
		t.Fatal(err)
	}
	final, _, _ := callOnce(t, src, "mcp__srv__echo", `{"text":"hi"}`)
	if final.Status != shared.StatusFailed || !strings.Contains(final.Message, "The srv MCP server sent nothing for 100ms while running mcp__srv__echo (no progress, no result)") || !strings.Contains(final.Message, "idle_timeout of [mcp_servers.srv]") || strings.Contains(final.Message, "did not finish") {
		t.Fatalf("%+v", final)
	}
}

// The total limit names where it came from.
func TestToolTimeoutNamesTheSetting(t *testing.T) {
	src := New(Options{Server: config.MCPServer{Name: "srv", Command: buildFixture(t), Args: []string{"hang"}, ToolTimeout: 100 * time.Millisecond}})
	defer src.Close()
	if _, err := src.Manifest(context.Background()); err != nil {
		t.Fatal(err)
	}
	final, _, _ := callOnce(t, src, "mcp__srv__echo", `{"text":"hi"}`)
	if final.Status != shared.StatusFailed || !strings.Contains(final.Message, "did not finish mcp__srv__echo within 100ms, so it was stopped (tool_timeout of [mcp_servers.srv])") {
		t.Fatalf("%+v", final)
	}
}

// fakeTimer is a timer the test fires.
type fakeTimer struct {
	mu      sync.Mutex
	f       func()
	armed   bool
	resets  int
	stopped int
}

func (f *fakeTimer) Stop() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stopped++
	was := f.armed
	f.armed = false
	return was
}

func (f *fakeTimer) Reset(time.Duration) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.resets++
	was := f.armed
	f.armed = true
	return was
}

// fire runs the timer's function if it is armed, as the clock would.
func (f *fakeTimer) fire() {
	f.mu.Lock()
	armed := f.armed
	f.armed = false
	f.mu.Unlock()
	if armed {
		f.f()
	}
}

// What the server sends for a call restarts the idle wait; a question to
// the user holds it; once it fires, the call's context ends with errIdle.
func TestIdleWatch(t *testing.T) {
	var timer *fakeTimer
	after := func(_ time.Duration, f func()) stopper {
		timer = &fakeTimer{f: f, armed: true}
		return timer
	}
	ctx, w := watchIdle(context.Background(), time.Minute, after)
	w.heard()
	if timer.resets != 1 || ctx.Err() != nil {
		t.Fatalf("heard: resets %d, %v", timer.resets, ctx.Err())
	}
	resume := w.pause()
	timer.fire() // disarmed by the pause: nothing happens
	w.heard()    // progress while the user is asked changes nothing
	if ctx.Err() != nil || timer.resets != 1 {
		t.Fatalf("paused: %v, resets %d", ctx.Err(), timer.resets)
	}
	resume()
	resume()
	if timer.resets != 2 {
		t.Fatalf("resume re-armed %d times", timer.resets-1)
	}
	timer.fire()
	if !errors.Is(context.Cause(ctx), errIdle) {
		t.Fatalf("cause %v", context.Cause(ctx))
	}
	w.stop()
	if !errors.Is(context.Cause(ctx), errIdle) {
		t.Fatal("stop replaced the cause")
	}
	// A watch stopped first never cancels with errIdle.
	ctx2, w2 := watchIdle(context.Background(), time.Minute, after)
	w2.stop()
	timer.f()
	if errors.Is(context.Cause(ctx2), errIdle) {
		t.Fatal("a stopped watch fired")
	}
}

// A tool's output schema is served, and its structured content becomes
// the call's UI payload; a result that breaks the schema's promise fails.
func TestOutputSchemaAndStructuredContent(t *testing.T) {
	t.Setenv("MCPSERVE_SHAPE", "1")
	src := New(Options{Server: config.MCPServer{Name: "srv", Command: buildFixture(t)}})
	defer src.Close()
	m, err := src.Manifest(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var shape *shared.ToolSpec
	for i, ts := range m.Tools {
		if ts.Name == "mcp__srv__shape" {
			shape = &m.Tools[i]
		} else if ts.OutputSchema != nil {
			t.Errorf("%s has an output schema: %s", ts.Name, ts.OutputSchema)
		}
	}
	if shape == nil || !bytes.Contains(shape.OutputSchema, []byte(`"length"`)) {
		t.Fatalf("shape: %+v", shape)
	}
	final, text, _ := callOnce(t, src, "mcp__srv__shape", `{"text":"abc"}`)
	if final.Status != shared.StatusOK || string(final.UIPayload) != `{"length":3}` || text != "measured" {
		t.Fatalf("abc: %+v %q", final, text)
	}
	for in, want := range map[string]string{
		"bad":  "but its structured content does not match its output schema",
		"none": "but it has no structured content, which its output schema promises",
	} {
		final, _, _ := callOnce(t, src, "mcp__srv__shape", `{"text":"`+in+`"}`)
		if final.Status != shared.StatusFailed || !strings.Contains(final.Message, "The srv MCP server answered this call of mcp__srv__shape, "+want) {
			t.Errorf("%s: %+v", in, final)
		}
	}
}

// A tool that requires the tasks extension is left out, named in the
// server's problem, from a fresh list and from the cache alike.
func TestTaskOnlyToolsLeftOut(t *testing.T) {
	t.Setenv("MCPSERVE_TASKS", "1")
	cache := LoadCache(filepath.Join(t.TempDir(), "cache.json"))
	srv := config.MCPServer{Name: "srv", Command: buildFixture(t)}
	for _, from := range []string{"server", "cache"} {
		src := New(Options{Server: srv, Cache: cache})
		m, err := src.Manifest(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		names := toolNames(m)
		if strings.Contains(names, "tasky") || !strings.Contains(names, "mcp__srv__echo") {
			t.Errorf("from the %s: %s", from, names)
		}
		if p := src.Problem(); !strings.Contains(p, `The srv MCP server's tool tasky is left out: it runs only as a task (execution.taskSupport "required")`) {
			t.Errorf("from the %s: problem %q", from, p)
		}
		if from == "server" && src.State() != "running" {
			t.Fatalf("state %s", src.State())
		}
		_ = src.Close()
	}
}

func toolNames(m shared.Manifest) string {
	var names []string
	for _, ts := range m.Tools {
		names = append(names, ts.Name)
	}
	return strings.Join(names, " ")
}

// Over Streamable HTTP too, in a JSON body or an event stream, riot reads
// the raw list and leaves the task-only tool out.
func TestTaskOnlyToolsLeftOutOverHTTP(t *testing.T) {
	for _, jsonResponse := range []bool{false, true} {
		s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
		for _, name := range []string{"plain", "tasky"} {
			mcp.AddTool(s, &mcp.Tool{Name: name, Description: name}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{}, nil, nil
			})
		}
		h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{JSONResponse: jsonResponse})
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h.ServeHTTP(taskMarker{w}, r)
		}))
		src := New(Options{Server: config.MCPServer{Name: "web", URL: ts.URL}})
		m, err := src.Manifest(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if names := toolNames(m); names != "mcp__web__plain" {
			t.Errorf("json %v: %s", jsonResponse, names)
		}
		_ = src.Close()
		ts.Close()
	}
}

// taskMarker adds execution.taskSupport "required" to tasky on the wire.
type taskMarker struct{ http.ResponseWriter }

func (m taskMarker) Write(p []byte) (int, error) {
	q := bytes.Replace(p, []byte(`"name":"tasky"`), []byte(`"execution":{"taskSupport":"required"},"name":"tasky"`), 1)
	if len(q) != len(p) {
		m.Header().Del("Content-Length")
	}
	if _, err := m.ResponseWriter.Write(q); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (m taskMarker) Flush() {
	if f, ok := m.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}
