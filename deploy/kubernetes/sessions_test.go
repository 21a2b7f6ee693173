package kubernetes_test

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// importFiles puts files into a podman volume from outside any pod, owned
// by the image's user, as a workspace checked out onto the volume would be.
func importFiles(ctx context.Context, pm podman, volume string, files map[string]string) error {
	var archive bytes.Buffer
	tw := tar.NewWriter(&archive)
	for name, body := range files {
		hdr := &tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Uid: 65532, Gid: 65532, Typeflag: tar.TypeReg}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if _, err := tw.Write([]byte(body)); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	cmd := pm.command(ctx, "", "volume", "import", volume, "-")
	cmd.Stdin = &archive
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("podman volume import %s: %w: %s", volume, err, out)
	}
	return nil
}

// connect opens an MCP client session to s with its token. Without an
// elicitation handler, any call riot would ask about is denied.
func connect(ctx context.Context, s session) (*mcp.ClientSession, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "riot-pod-test", Version: "1"}, nil)
	return client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.url, HTTPClient: &http.Client{Transport: bearer{s.token}}}, nil)
}

// Ten session pods at once on one machine, each with its workspace on a
// volume of its own, driven at the same time by ten MCP clients: each
// session's Read, Bash and Grep see its own marker file and nothing of
// the other nine's, and a session's token opens no other pod.
func TestTenSessionPodsStayApart(t *testing.T) {
	image, pm := requireImage(t)
	const n = 10
	sessions := playPods(t, image, pm, n)

	markers := make([]string, n)
	imported := make(chan error, n)
	for i, s := range sessions {
		markers[i] = fmt.Sprintf("riot-marker-%d-%s", i, randomHex(t, 8))
		go func() {
			imported <- importFiles(t.Context(), pm, s.workspace, map[string]string{fmt.Sprintf("marker-%d.txt", i): markers[i] + "\n"})
		}()
	}
	for range sessions {
		if err := <-imported; err != nil {
			t.Fatal(err)
		}
	}
	for i, s := range sessions {
		if got := initialize(t, s.url, "Bearer "+sessions[(i+1)%n].token); got != http.StatusUnauthorized {
			t.Errorf("pod %d took pod %d's token: status %d", i, (i+1)%n, got)
		}
	}

	type result struct {
		session int
		call    string
		text    string
		err     error
	}
	results := make(chan result, 4*n)
	start := make(chan struct{})
	done := make(chan struct{}, n)
	for i, s := range sessions {
		go func() {
			defer func() { done <- struct{}{} }()
			<-start
			cs, err := connect(t.Context(), s)
			if err != nil {
				results <- result{session: i, call: "connect", err: err}
				return
			}
			defer cs.Close()
			for _, c := range []struct {
				name string
				args map[string]any
			}{
				{"Read", map[string]any{"file_path": fmt.Sprintf("/workspace/marker-%d.txt", i)}},
				{"Bash", map[string]any{"command": "cat marker-*.txt"}},
				{"Grep", map[string]any{"pattern": "riot-marker-", "output_mode": "content"}},
				{"Bash", map[string]any{"command": "ls /workspace"}},
			} {
				res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: c.name, Arguments: c.args})
				r := result{session: i, call: fmt.Sprintf("%s %v", c.name, c.args), err: err}
				if err == nil {
					r.text = text(res)
					if res.IsError {
						r.err = errors.New("is_error")
					}
				}
				results <- r
			}
		}()
	}
	close(start)
	for range sessions {
		<-done
	}
	close(results)

	count := make([]int, n)
	for r := range results {
		if r.err != nil {
			t.Errorf("session %d: %s: %v: %s", r.session, r.call, r.err, r.text)
			continue
		}
		count[r.session]++
		if !strings.Contains(r.text, markers[r.session]) && !strings.HasPrefix(r.call, "Bash map[command:ls") {
			t.Errorf("session %d: %s does not show its own marker %s:\n%s", r.session, r.call, markers[r.session], r.text)
		}
		if !strings.Contains(r.text, fmt.Sprintf("marker-%d.txt", r.session)) && !strings.HasPrefix(r.call, "Bash map[command:cat") && !strings.HasPrefix(r.call, "Read") {
			t.Errorf("session %d: %s does not name its own marker file:\n%s", r.session, r.call, r.text)
		}
		for j := range sessions {
			if j != r.session && (strings.Contains(r.text, markers[j]) || strings.Contains(r.text, fmt.Sprintf("marker-%d.txt", j))) {
				t.Errorf("session %d: %s shows session %d's marker:\n%s", r.session, r.call, j, r.text)
			}
		}
	}
	for i, c := range count {
		if c != 4 {
			t.Errorf("session %d: %d of 4 calls answered", i, c)
		}
	}
}

// A pod killed while a Bash call runs in it: the client's call ends with
// an error at once, not when the command would have finished, nor when
// the test's own deadline would cut it. Killing the riot container alone
// (the pod's network stays) and the whole pod (its network goes too) are
// both covered.
func TestPodKilledMidCall(t *testing.T) {
	image, pm := requireImage(t)
	for _, tc := range []struct {
		name string
		kill func(s session) []string
	}{
		{"container", func(s session) []string { return []string{"kill", s.pod + "-riot"} }},
		{"pod", func(s session) []string { return []string{"pod", "kill", s.pod} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := playPod(t, image, pm)
			// The command signals through a FIFO once it runs: reading it
			// in the pod blocks until then.
			if _, err := pm.run(t.Context(), "", "exec", s.pod+"-riot", "mkfifo", "/workspace/running"); err != nil {
				t.Fatal(err)
			}
			client := mcp.NewClient(&mcp.Implementation{Name: "riot-pod-test", Version: "1"}, &mcp.ClientOptions{
				ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "allow once"}}, nil
				},
			})
			cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: s.url, HTTPClient: &http.Client{Transport: bearer{s.token}}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			// Once the pod is killed there is no session to close: its
			// DELETE would wait for the address to fail.
			gone := false
			defer func() {
				if !gone {
					cs.Close()
				}
			}()

			// The bound a hang would run into; the command alone would
			// run longer still.
			const bound = 60 * time.Second
			ctx, cancel := context.WithTimeout(t.Context(), bound)
			defer cancel()
			type outcome struct {
				res *mcp.CallToolResult
				err error
			}
			ended := make(chan outcome, 1)
			go func() {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "Bash", Arguments: map[string]any{
					"command": "echo running > /workspace/running; sleep 600",
				}})
				ended <- outcome{res, err}
			}()
			running := make(chan error, 1)
			go func() {
				out, err := pm.run(ctx, "", "exec", s.pod+"-riot", "cat", "/workspace/running")
				if err == nil && out != "running" {
					err = fmt.Errorf("read %q from the FIFO", out)
				}
				running <- err
			}()
			select {
			case err := <-running:
				if err != nil {
					t.Fatalf("the Bash call did not start: %v", err)
				}
			case o := <-ended:
				t.Fatalf("the Bash call ended before the kill: %v %+v", o.err, o.res)
			}
			killed := time.Now()
			if _, err := pm.run(t.Context(), "", tc.kill(s)...); err != nil {
				t.Fatal(err)
			}
			gone = true
			o := <-ended
			took := time.Since(killed)
			if o.err == nil {
				t.Fatalf("the call to a killed pod returned no error: %+v", o.res)
			}
			if ctx.Err() != nil || took > bound/4 {
				t.Fatalf("the call ended %v after the kill (%v), near the test's bound of %v: a hang", took.Round(time.Millisecond), o.err, bound)
			}
			t.Logf("the call failed %v after the kill: %v", took.Round(time.Millisecond), o.err)
		})
	}
}
