package kubernetes_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.yaml.in/yaml/v4"

	"github.com/riot-tools/riot/core"
	"github.com/riot-tools/riot/remote"
)

// A session pod's life, end to end, as docs/kubernetes.md describes it:
//
//  1. In the first pod, an MCP client Reads a file, Edits it once the user
//     allows that "for this session" through elicitation, and moves Bash to
//     sub/. `podman pod stop` (SIGTERM) while a Bash call runs: the client
//     gets that call's Cancelled result naming the shutdown, not a dropped
//     connection, and riot exits 0.
//  2. The pod is replaced (kube down, kube play of the same manifest and
//     volumes): the new riot resumes the session from the state volume.
//     Edit works without a new Read and without a new question, and Bash
//     is still in sub/.
//  3. `riot run --remote`, from the image in a container of its own, runs a
//     turn there (Read, Grep, Edit after Read, Bash, a spilled result and a
//     denied call) and the spill's full text is fetched with resources/read
//     of its link; then the pod is killed in the middle of a turn, whose
//     calls all end Failed, naming the cause.
func TestPodShutdownResumeAndRemoteRun(t *testing.T) {
	image, pm := requireImage(t)
	m := sessionManifest(t, image, 1)
	t.Cleanup(func() {
		if err := m.down(context.Background(), pm); err != nil {
			t.Error(err)
		}
	})
	s := &m.sessions[0]
	play := func(file string) {
		t.Helper()
		if _, err := pm.run(t.Context(), m.dir, "kube", "play", "--quiet", file); err != nil {
			t.Fatal(err)
		}
		s.url = waitServing(t, pm, m.dir, s.pod)
	}
	play(m.file)
	if err := importFiles(t.Context(), pm, s.workspace, map[string]string{"notes.txt": "alpha\nbeta\n"}); err != nil {
		t.Fatal(err)
	}
	// The probes need no token and say nothing of the session.
	for _, path := range []string{"healthz", "readyz"} {
		resp, err := http.Get(s.url + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET /%s without the token: %d", path, resp.StatusCode)
		}
	}

	// 1. The first pod.
	asked := make(chan string, 16)
	elicit := func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked <- req.Params.Message
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "allow for this session"}}, nil
	}
	cs := connectAsking(t, *s, elicit)
	const fifoCmd = "echo running > /workspace/running; sleep 600"
	mustCall(t, cs, "Read", map[string]any{"file_path": "/workspace/notes.txt"}, "alpha")
	mustCall(t, cs, "Edit", map[string]any{"file_path": "/workspace/notes.txt", "old_string": "alpha", "new_string": "gamma"}, "")
	mustCall(t, cs, "Bash", map[string]any{"command": "mkdir sub"}, "")
	mustCall(t, cs, "Bash", map[string]any{"command": "cd sub"}, "")
	if n := len(asked); n != 2 {
		t.Fatalf("asked %d questions (Edit, mkdir), want 2", n)
	}
	waitRunning := bashRunning(t, pm, s.pod)
	ended := make(chan *mcp.CallToolResult, 1)
	failed := make(chan error, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "Bash", Arguments: map[string]any{"command": fifoCmd}})
		if err != nil {
			failed <- err
			return
		}
		ended <- res
	}()
	waitRunning()
	if _, err := pm.run(t.Context(), m.dir, "pod", "stop", s.pod); err != nil {
		t.Fatal(err)
	}
	select {
	case res := <-ended:
		if !res.IsError || res.Meta["riot/status"] != "cancelled" || !strings.Contains(text(res), "riot is shutting down (terminated signal received)") {
			t.Errorf("the call in flight at pod stop: %v %s", res.Meta["riot/status"], text(res))
		}
	case err := <-failed:
		t.Fatalf("the call in flight at pod stop was dropped, not answered Cancelled: %v", err)
	}
	if code, err := pm.run(t.Context(), m.dir, "inspect", "--format", "{{.State.ExitCode}}", s.pod+"-riot"); err != nil || code != "0" {
		t.Errorf("riot exited %q (%v) on SIGTERM, want 0", code, err)
	}
	// The pod's network is gone with it: no session is left to close.

	// 2. The replacement.
	if _, err := pm.run(t.Context(), m.dir, "kube", "down", m.file); err != nil {
		t.Fatal(err)
	}
	play(podOnly(t, m))
	noAsk := func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		t.Errorf("the resumed session asked again: %s", req.Params.Message)
		return &mcp.ElicitResult{Action: "decline"}, nil
	}
	cs = connectAsking(t, *s, noAsk)
	mustCall(t, cs, "Edit", map[string]any{"file_path": "/workspace/notes.txt", "old_string": "gamma", "new_string": "delta"}, "")
	mustCall(t, cs, "Bash", map[string]any{"command": "pwd"}, "/workspace/sub\n")
	cs.Close()

	// 3. riot run --remote against the resumed pod.
	tokenDir := t.TempDir()
	if err := os.Chmod(tokenDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tokenDir, "token"), []byte(s.token+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	turn := `[
 {"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"/workspace/notes.txt"}},
 {"type":"tool_use","id":"t2","name":"Grep","input":{"pattern":"del+ta","path":"/workspace"}},
 {"type":"tool_use","id":"t3","name":"Edit","input":{"file_path":"/workspace/notes.txt","old_string":"delta","new_string":"epsilon"}},
 {"type":"tool_use","id":"t4","name":"Bash","input":{"command":"pwd; cat ../notes.txt"}},
 {"type":"tool_use","id":"t5","name":"Bash","input":{"command":"seq 1 30000"}},
 {"type":"tool_use","id":"t6","name":"Bash","input":{"command":"rm /workspace/notes.txt"}}
]`
	rs := remoteRun(t, pm, m.dir, image, tokenDir, s.url, turn, nil)
	if len(rs) != 6 {
		t.Fatalf("%d results for a turn of 6", len(rs))
	}
	for i, w := range []struct {
		isError  bool
		contains string
	}{
		{false, "delta"}, {false, "notes.txt"}, {false, ""}, {false, "/workspace/sub\nepsilon\nbeta"}, {false, "\n100\n"}, {true, "denied"},
	} {
		if rs[i].IsError != w.isError || !strings.Contains(rs[i].Content, w.contains) {
			t.Errorf("riot run --remote, call %s: is_error %v, want %v with %q:\n%s", rs[i].ToolUseID, rs[i].IsError, w.isError, w.contains, rs[i].Content)
		}
	}
	if !strings.Contains(rs[4].Content, "Output too large") || strings.Contains(rs[4].Content, "\n15000\n") {
		t.Errorf("the seq 1 30000 result was not spilled: %d characters", len(rs[4].Content))
	}
	// The spill's full text, through the client riot run --remote uses:
	// resources/read of the result's link.
	c, err := remote.Dial(t.Context(), s.url, remote.Options{Token: s.token})
	if err != nil {
		t.Fatal(err)
	}
	res := c.RunTurn(t.Context(), []core.ToolUse{{ID: "s1", Name: "Bash", Input: json.RawMessage(`{"command":"seq 1 30000"}`)}})[0]
	if res.Spill == nil || !strings.HasPrefix(res.Spill.Path, "riot://results/pod/") {
		t.Fatalf("a spilled result without its resource link: %+v", res)
	}
	full, err := c.FullOutput(t.Context(), res)
	if err != nil || !strings.HasPrefix(full, "1\n2\n") || !strings.HasSuffix(full, "\n29999\n30000\n") {
		t.Fatalf("resources/read of %s: %v, %d characters", res.Spill.Path, err, len(full))
	}
	c.Close()

	// The pod killed in the middle of a turn of riot run --remote.
	waitRunning = bashRunning(t, pm, s.pod)
	rs = remoteRun(t, pm, m.dir, image, tokenDir, s.url, `[
 {"type":"tool_use","id":"k1","name":"Bash","input":{"command":"`+fifoCmd+`"}},
 {"type":"tool_use","id":"k2","name":"Read","input":{"file_path":"/workspace/notes.txt"}}
]`, func() {
		waitRunning()
		if _, err := pm.run(t.Context(), m.dir, "pod", "kill", s.pod); err != nil {
			t.Error(err)
		}
	})
	if len(rs) != 2 {
		t.Fatalf("%d results for a turn of 2", len(rs))
	}
	for _, r := range rs {
		if !r.IsError || !strings.Contains(r.Content, "stopped answering") {
			t.Errorf("call %s of a turn whose pod was killed: is_error %v:\n%s", r.ToolUseID, r.IsError, r.Content)
		}
	}
}

// podOnly writes m's manifest without its claims, whose volumes outlive
// the pod: a replacement Pod binds the claims that exist, and podman 4.3's
// kube play refuses to make a volume twice.
func podOnly(t *testing.T, m manifest) string {
	t.Helper()
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	for _, o := range readObjects(t, m.file) {
		if o["kind"] == "PersistentVolumeClaim" {
			continue
		}
		if err := enc.Encode(o); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(m.dir, "replacement.yaml")
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// toolResult is one block of riot run's output.
type toolResult struct {
	ToolUseID string `json:"tool_use_id"`
	Content   string `json:"content"`
	IsError   bool   `json:"is_error"`
}

// remoteRun runs turn with `riot run --remote` from image, in a container
// of its own on the pods' network, and returns its results. While the
// turn runs, it runs during, if set.
func remoteRun(t *testing.T, pm podman, dir, image, tokenDir, url, turn string, during func()) []toolResult {
	t.Helper()
	cmd := pm.command(t.Context(), dir, "run", "--rm", "-i", "--network", "podman", "--entrypoint", "riot",
		"-v", tokenDir+":/run/riot:ro", image, "run", "--remote", url, "--token-file", "/run/riot/token", "-")
	cmd.Stdin = strings.NewReader(turn)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Error(err)
		return nil
	}
	if during != nil {
		during()
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("riot run --remote: %v\n%s", err, stderr.String())
		return nil
	}
	var rs []toolResult
	if err := json.Unmarshal([]byte(stdout.String()), &rs); err != nil {
		t.Errorf("riot run --remote printed no results: %v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	return rs
}

// connectAsking connects an MCP client to s that answers questions with
// elicit, and closes it when the test ends unless closed before.
func connectAsking(t *testing.T, s session, elicit func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "riot-pod-test", Version: "1"}, &mcp.ClientOptions{ElicitationHandler: elicit})
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: s.url, HTTPClient: &http.Client{Transport: bearer{s.token}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// mustCall calls a tool and fails the test unless the call is ok and its
// text holds want.
func mustCall(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, want string) {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	if res.IsError || !strings.Contains(text(res), want) {
		t.Fatalf("%s %v: %s", name, args, text(res))
	}
}

// bashRunning makes /workspace/running a FIFO in pod and returns a wait
// that returns once a command wrote to it.
func bashRunning(t *testing.T, pm podman, pod string) func() {
	t.Helper()
	if _, err := pm.run(t.Context(), "", "exec", pod+"-riot", "sh", "-c", "rm -f /workspace/running && mkfifo /workspace/running"); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	go func() {
		out, err := pm.run(ctx, "", "exec", pod+"-riot", "cat", "/workspace/running")
		if err == nil && out != "running" {
			err = fmt.Errorf("read %q from the FIFO", out)
		}
		done <- err
	}()
	return func() {
		t.Helper()
		defer cancel()
		if err := <-done; err != nil {
			t.Fatalf("the Bash call did not start: %v", err)
		}
	}
}
