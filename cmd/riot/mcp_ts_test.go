package main_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/riot-tools/riot/internal/proctest"
)

// tsClient runs testdata/mcp/client.mjs, the official TypeScript MCP SDK
// as a client of riot, and returns the facts it printed. .ci/run installs
// the SDK and sets $RIOT_TEST_MCP_SDK, so these tests run in CI.
func (e *env) tsClient(t *testing.T, mode string, args ...string) map[string]any {
	t.Helper()
	sdk := os.Getenv("RIOT_TEST_MCP_SDK")
	if sdk == "" {
		t.Skip("RIOT_TEST_MCP_SDK is not set (.ci/run installs @modelcontextprotocol/sdk and sets it)")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	script, err := filepath.Abs("testdata/mcp/client.mjs")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, append([]string{script, mode, e.exe}, args...)...)
	cmd.Dir = e.ws
	cmd.Env = append(e.environ(), "RIOT_TEST_MCP_SDK="+sdk)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("the TypeScript client failed (%v):\n%s\n%s", err, errb.String(), out.String())
	}
	var facts map[string]any
	if err := json.Unmarshal(bytes.TrimSpace(out.Bytes()), &facts); err != nil {
		t.Fatalf("the TypeScript client printed %q", out.String())
	}
	return facts
}

// The TypeScript SDK client: initialize, tools/list in order with schemas
// and annotations, calls, bad-argument hints, the UI payload in _meta,
// elicitation accepted and declined, ten calls in parallel, a spilled
// result read as a resource, and cancellation killing the process.
func TestMCPTypeScriptClient(t *testing.T) {
	e := newEnv(t)
	e.enableTestkit()
	e.sandboxOff() // the cancelled call's process is followed by its host pid
	e.write("a.txt", "alpha\n")
	// The client reads the pid of the call it cancels from this FIFO.
	fifo := filepath.Join(t.TempDir(), "pid")
	if err := mkfifo(fifo); err != nil {
		t.Fatal(err)
	}
	f := e.tsClient(t, "stdio", fifo)
	pid, _ := f["cancelledPid"].(float64)
	if pid == 0 {
		t.Fatalf("facts = %v", f)
	}
	if !proctest.WaitExit(int(pid), 5*time.Second) {
		t.Fatalf("the cancelled call's sleep %d still runs", int(pid))
	}
	if _, err := os.Stat(filepath.Join(e.ws, "made-by-ts")); err != nil {
		t.Fatal("the call the user allowed did not run")
	}
	if _, err := os.Stat(filepath.Join(e.ws, "not-made")); !os.IsNotExist(err) {
		t.Fatal("the call the user declined ran")
	}
}

// A 70 s Bash call completes through the TypeScript SDK, whose requests
// time out after 60 s, because progress notifications reset its timeout.
func TestMCPTypeScriptLongCall(t *testing.T) {
	if testing.Short() {
		t.Skip("a 70 s call")
	}
	e := newEnv(t)
	f := e.tsClient(t, "progress", "70")
	if secs, _ := f["seconds"].(float64); secs < 70 {
		t.Fatalf("the call took %v s", secs)
	}
	if n, _ := f["progress"].(float64); n < 7 {
		t.Fatalf("%v progress notifications in 70 s, want at least one every 10 s", n)
	}
}

// Streamable HTTP through the TypeScript SDK's transport, with the token.
func TestMCPTypeScriptHTTP(t *testing.T) {
	e := newEnv(t)
	e.sandboxOff() // the cancelled call's process is followed by its host pid
	e.write("a.txt", "alpha\n")
	h := e.listen(t, nil, "--token", "ts-token", "--allow", "Bash(sleep:*)", "--allow", "Bash(echo:*)")
	fifo := filepath.Join(t.TempDir(), "pid")
	if err := mkfifo(fifo); err != nil {
		t.Fatal(err)
	}
	f := e.tsClient(t, "http", h.url, "ts-token", fifo)
	if _, err := os.Stat(filepath.Join(e.ws, "over-http")); !os.IsNotExist(err) {
		t.Fatal("a denied call ran over HTTP")
	}
	pid, _ := f["cancelledPid"].(float64)
	if pid == 0 || !proctest.WaitExit(int(pid), 5*time.Second) {
		t.Fatalf("the call cancelled over HTTP left sleep %v running", pid)
	}
}
