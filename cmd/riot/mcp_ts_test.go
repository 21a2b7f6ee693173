package main_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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

// A 3 s Bash call completes through the TypeScript SDK with a 1.5 s
// request timeout, because riot reports it by progress each [mcp]
// progress_interval (here 300ms) and progress resets the timeout.
func TestMCPTypeScriptLongCall(t *testing.T) {
	e := newEnv(t)
	e.userConfig("[mcp]\nprogress_interval = \"300ms\"\n")
	f := e.tsClient(t, "progress", "3", "1500")
	if secs, _ := f["seconds"].(float64); secs < 3 {
		t.Fatalf("the call took %v s", secs)
	}
	if n, _ := f["progress"].(float64); n < 5 {
		t.Fatalf("%v progress notifications in 3 s, want about one every 300ms", n)
	}
}

// Streamable HTTP through the TypeScript SDK's transport, with the token.
func TestMCPTypeScriptHTTP(t *testing.T) {
	e := newEnv(t)
	e.userConfig("[mcp]\nprogress_interval = \"500ms\"\n")
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

// The TypeScript SDK v2 client (@modelcontextprotocol/client, installed by
// .ci/run, $RIOT_TEST_MCP_SDK_V2) over stdio and HTTP, on the 2025 era and
// pinned to 2026-07-28: it sees riot's tools, calls them, gets a wrapped
// tool's output schema and structured content (which it validates), and a
// wrapped server's multi-select question passed up and answered, and the
// tool a call added listed at the end once the call returns.
func TestMCPTypeScriptV2Client(t *testing.T) {
	sdk := os.Getenv("RIOT_TEST_MCP_SDK_V2")
	if sdk == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("RIOT_TEST_MCP_SDK_V2 is not set in CI (.ci/run installs @modelcontextprotocol/client)")
		}
		t.Skip("RIOT_TEST_MCP_SDK_V2 is not set (.ci/run installs @modelcontextprotocol/client and sets it)")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	script, err := filepath.Abs("testdata/mcp/client_v2.mjs")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := mcpserveBin()
	if err != nil {
		t.Fatal(err)
	}
	for _, era := range []string{"legacy", "2026-07-28"} {
		for _, transport := range []string{"stdio", "http"} {
			t.Run(era+"/"+transport, func(t *testing.T) {
				e := newEnv(t)
				e.userConfig(fmt.Sprintf("[permissions]\nallow = [\"mcp__srv\"]\n\n[mcp_servers.srv]\ncommand = %q\nenv = { MCPSERVE_SHAPE = \"1\", MCPSERVE_PICK = \"1\" }\n", srv))
				args := []string{script, era, e.exe}
				if transport == "http" {
					h := e.listen(t, nil, "--token", "v2-token")
					args = []string{script, era, "-", h.url, "v2-token"}
				}
				cmd := exec.Command(node, args...)
				cmd.Dir = e.ws
				cmd.Env = append(e.environ(), "RIOT_TEST_MCP_SDK_V2="+sdk)
				var out, errb bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &errb
				if err := cmd.Run(); err != nil {
					t.Fatalf("the v2 client failed (%v):\n%s\n%s", err, errb.String(), out.String())
				}
				var facts struct {
					Protocol string   `json:"protocol"`
					Added    []string `json:"added"`
				}
				if err := json.Unmarshal(bytes.TrimSpace(out.Bytes()), &facts); err != nil {
					t.Fatalf("the v2 client printed %q", out.String())
				}
				want := era
				if era == "legacy" {
					want = "2025-11-25"
				}
				if facts.Protocol != want {
					t.Fatalf("negotiated %q, want %q", facts.Protocol, want)
				}
				// riot announces the tool grow added before grow's result,
				// so the client's next list has it, appended.
				if !slices.Equal(facts.Added, []string{"mcp__srv__aaa-new"}) {
					t.Fatalf("added after grow: %v, want [mcp__srv__aaa-new]", facts.Added)
				}
			})
		}
	}
}
