package kubernetes_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.yaml.in/yaml/v4"
)

// The pod tests run riot's image, which `make image` builds, under podman:
// RIOT_TEST_IMAGE names it (.ci/run sets it). Without it, or without
// podman, they skip, and fail in CI.
func requireImage(t *testing.T) (image string, pm podman) {
	t.Helper()
	missing := func(format string, args ...any) {
		t.Helper()
		if os.Getenv("CI") == "true" {
			t.Fatalf(format, args...)
		}
		t.Skipf(format, args...)
	}
	image = os.Getenv("RIOT_TEST_IMAGE")
	if image == "" {
		missing("RIOT_TEST_IMAGE is not set: build the image with `make image IMAGE=localhost/riot:dev` and set RIOT_TEST_IMAGE=localhost/riot:dev to run the pod tests")
	}
	if _, err := exec.LookPath("podman"); err != nil {
		missing("podman is not installed (apt-get install podman runc): %v", err)
	}
	conf := os.Getenv("CONTAINERS_CONF")
	if conf == "" {
		abs, err := filepath.Abs("../podman/containers.conf")
		if err != nil {
			t.Fatal(err)
		}
		conf = abs
	}
	pm = podman{conf: conf}
	if _, err := pm.run(t.Context(), "", "image", "exists", image); err != nil {
		t.Fatalf("RIOT_TEST_IMAGE=%s is no local image: %v", image, err)
	}
	return image, pm
}

// podman runs podman with the repository's containers.conf.
type podman struct{ conf string }

func (p podman) command(ctx context.Context, dir string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "podman", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CONTAINERS_CONF="+p.conf)
	return cmd
}

// run returns podman's stdout; its error carries stderr.
func (p podman) run(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := p.command(ctx, dir, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), &podmanError{args: args, err: err, stderr: stderr.String()}
	}
	return strings.TrimSpace(string(out)), nil
}

type podmanError struct {
	args   []string
	err    error
	stderr string
}

func (e *podmanError) Error() string {
	return "podman " + strings.Join(e.args, " ") + ": " + e.err.Error() + ": " + strings.TrimSpace(e.stderr)
}

func randomHex(t *testing.T, n int) string {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// session is pod.yaml played by podman: riot's MCP endpoint and its token,
// the pod, and the podman volume that holds its workspace.
type session struct {
	url, token string
	pod        string
	workspace  string
}

var servingRE = regexp.MustCompile(`serving MCP on http://`)

// playPod plays pod.yaml with `podman kube play` as playPods does, once.
func playPod(t *testing.T, image string, pm podman) session {
	t.Helper()
	return playPods(t, image, pm, 1)[0]
}

// playPods plays n sessions of pod.yaml (sessionManifest) with one `podman
// kube play`, waits until riot serves in every pod, and tears the pods and
// their volumes down when the test ends.
func playPods(t *testing.T, image string, pm podman, n int) []session {
	t.Helper()
	m := sessionManifest(t, image, n)
	t.Cleanup(func() {
		if err := m.down(context.Background(), pm); err != nil {
			t.Error(err)
		}
	})
	if _, err := pm.run(t.Context(), m.dir, "kube", "play", "--quiet", m.file); err != nil {
		t.Fatal(err)
	}
	for i := range m.sessions {
		m.sessions[i].url = waitServing(t, pm, m.dir, m.sessions[i].pod)
	}
	return m.sessions
}

// manifest is pod.yaml written for some sessions, in a directory of its own.
type manifest struct {
	sessions  []session
	claims    []string
	dir, file string
}

// sessionManifest writes pod.yaml for n sessions, changed only where this
// machine needs: the image is RIOT_TEST_IMAGE; each pod and its claims get
// names of their own; the container's port is not published; and each
// token volume is a hostPath directory holding a fresh token of its own,
// because podman 4.3's kube play mounts a Secret volume empty
// (docs/kubernetes.md).
func sessionManifest(t *testing.T, image string, n int) manifest {
	t.Helper()
	var objs []object
	m := manifest{sessions: make([]session, n)}
	for i := range m.sessions {
		suffix := randomHex(t, 4)
		s := &m.sessions[i]
		s.token, s.pod = randomHex(t, 32), "riot-test-"+suffix
		tokenDir := t.TempDir()
		if err := os.Chmod(tokenDir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tokenDir, "token"), []byte(s.token+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, o := range readObjects(t, "pod.yaml") {
			meta := o["metadata"].(map[string]any)
			switch o["kind"] {
			case "PersistentVolumeClaim":
				meta["name"] = meta["name"].(string) + "-" + suffix
				m.claims = append(m.claims, meta["name"].(string))
			case "Pod":
				meta["name"] = s.pod
				spec := o["spec"].(map[string]any)
				c := spec["containers"].([]any)[0].(map[string]any)
				c["image"] = image
				// podman 4.3 publishes a containerPort on the host, as if
				// it were a hostPort, which pods cannot share; the test
				// reaches each pod at its IP.
				delete(c, "ports")
				for _, v := range spec["volumes"].([]any) {
					v := v.(map[string]any)
					if pvc, ok := v["persistentVolumeClaim"].(map[string]any); ok {
						pvc["claimName"] = pvc["claimName"].(string) + "-" + suffix
						if v["name"] == "workspace" {
							s.workspace = pvc["claimName"].(string)
						}
					}
					if _, ok := v["secret"]; ok {
						delete(v, "secret")
						v["hostPath"] = map[string]any{"path": tokenDir, "type": "Directory"}
					}
				}
			}
			objs = append(objs, o)
		}
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	for _, o := range objs {
		if err := enc.Encode(o); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	// kube play builds an image from any subdirectory named like a
	// container: this directory has none.
	m.dir = t.TempDir()
	m.file = filepath.Join(m.dir, "pod.yaml")
	if err := os.WriteFile(m.file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return m
}

// down removes the manifest's pods and their volumes, and checks that no
// pod is left.
func (m manifest) down(ctx context.Context, pm podman) error {
	var errs []error
	// kube down of a running pod takes seconds that stopping it first
	// does not (podman 4.3).
	stop := []string{"pod", "stop"}
	for _, s := range m.sessions {
		stop = append(stop, s.pod)
	}
	if _, err := pm.run(ctx, m.dir, stop...); err != nil {
		errs = append(errs, fmt.Errorf("stop the pods: %w", err))
	}
	if _, err := pm.run(ctx, m.dir, "kube", "down", m.file); err != nil {
		errs = append(errs, fmt.Errorf("tear down: %w", err))
	}
	if len(m.claims) > 0 {
		if _, err := pm.run(ctx, m.dir, append([]string{"volume", "rm", "--force"}, m.claims...)...); err != nil {
			errs = append(errs, fmt.Errorf("remove the pods' volumes: %w", err))
		}
	}
	for _, s := range m.sessions {
		if _, err := pm.run(ctx, m.dir, "pod", "exists", s.pod); err == nil {
			errs = append(errs, fmt.Errorf("pod %s is left after kube down", s.pod))
		}
	}
	return errors.Join(errs...)
}

// waitServing waits until riot serves in pod and returns its MCP URL.
func waitServing(t *testing.T, pm podman, dir, pod string) string {
	t.Helper()
	// riot says it serves once it listens; the log stream ends if it exits.
	logs := pm.command(t.Context(), dir, "logs", "--follow", pod+"-riot")
	out, err := logs.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	logs.Stderr = logs.Stdout
	if err := logs.Start(); err != nil {
		t.Fatal(err)
	}
	serving := make(chan bool, 1)
	var logText strings.Builder
	go func() {
		sc := bufio.NewScanner(out)
		sent := false
		for sc.Scan() {
			logText.WriteString(sc.Text() + "\n")
			if !sent && servingRE.MatchString(sc.Text()) {
				serving <- true
				sent = true
			}
		}
		if !sent {
			serving <- false
		}
	}()
	select {
	case ok := <-serving:
		if !ok {
			_ = logs.Wait()
			t.Fatalf("riot exited in pod %s without serving:\n%s", pod, logText.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("riot did not serve in pod %s within 60 s", pod)
	}
	_ = logs.Process.Kill()
	_ = logs.Wait()

	// The pod's address on podman's bridge, which the test reaches from
	// the same network namespace, as a Service reaches a pod's IP.
	infra, err := pm.run(t.Context(), dir, "pod", "inspect", "--format", "{{.InfraContainerID}}", pod)
	if err != nil {
		t.Fatal(err)
	}
	ip, err := pm.run(t.Context(), dir, "inspect", "--format", "{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}", infra)
	if err != nil || ip == "" {
		t.Fatalf("no IP for pod %s: %q %v", pod, ip, err)
	}
	return "http://" + ip + ":8765/"
}

// bearer adds the token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// initialize posts an MCP initialize with the given Authorization header
// ("" for none) and returns the status.
func initialize(t *testing.T, url, auth string) int {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// The plain Pod of pod.yaml, played by podman from the image `make image`
// builds, serves riot's tools over Streamable HTTP to the official MCP Go
// SDK client with the mounted token, and to no one without it: tools are
// listed, Bash writes once the user allows it through elicitation, Read,
// Grep, and Edit after Read work on the workspace volume, a call the user
// declines is denied and does not run. Bash runs without riot's kernel
// sandbox there, and says so, as docs/kubernetes.md records.
func TestPodOverMCP(t *testing.T) {
	image, pm := requireImage(t)
	s := playPod(t, image, pm)

	for name, auth := range map[string]string{"no token": "", "a wrong token": "Bearer wrong", "not bearer": "Basic " + s.token} {
		if got := initialize(t, s.url, auth); got != http.StatusUnauthorized {
			t.Errorf("with %s: status %d, want 401", name, got)
		}
	}
	if got := initialize(t, s.url, "Bearer "+s.token); got != http.StatusOK {
		t.Fatalf("with the token: status %d", got)
	}

	asked := make(chan string, 16)
	client := mcp.NewClient(&mcp.Implementation{Name: "riot-pod-test", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked <- req.Params.Message
			if strings.Contains(req.Params.Message, "rm notes.txt") {
				return &mcp.ElicitResult{Action: "decline"}, nil
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "allow once"}}, nil
		},
	})
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: s.url, HTTPClient: &http.Client{Transport: bearer{s.token}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	for _, want := range []string{"Bash", "Grep", "Read", "Edit"} {
		if !slices.Contains(names, want) {
			t.Errorf("tools %v lack %s", names, want)
		}
	}

	callTool := func(name string, args map[string]any) *mcp.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s %v: %v", name, args, err)
		}
		return res
	}
	expectAsked := func(what string) {
		t.Helper()
		select {
		case msg := <-asked:
			if !strings.Contains(msg, what) {
				t.Errorf("asked %q, want a question about %q", msg, what)
			}
		default:
			t.Errorf("not asked about %q", what)
		}
	}

	res := callTool("Bash", map[string]any{"command": "printf 'alpha\\nbeta\\n' > notes.txt"})
	if res.IsError {
		t.Fatalf("Bash write: %s", text(res))
	}
	expectAsked("notes.txt")
	// The claim of docs/kubernetes.md: podman's kube play cannot unmask
	// /proc, so bwrap cannot mount one and riot runs Bash unconfined, in
	// sandbox mode auto, with a note.
	if out := text(res); !strings.Contains(out, "Ran without the kernel sandbox") || !strings.Contains(out, "Can't mount proc") {
		t.Errorf("Bash in the pod does not report running without the kernel sandbox:\n%s", out)
	}

	res = callTool("Read", map[string]any{"file_path": "/workspace/notes.txt"})
	if res.IsError || !strings.Contains(text(res), "alpha") {
		t.Fatalf("Read: %s", text(res))
	}
	res = callTool("Grep", map[string]any{"pattern": "bet+a"})
	if res.IsError || !strings.Contains(text(res), "notes.txt") {
		t.Fatalf("Grep: %s", text(res))
	}
	res = callTool("Edit", map[string]any{"file_path": "/workspace/notes.txt", "old_string": "alpha", "new_string": "gamma"})
	if res.IsError {
		t.Fatalf("Edit after Read: %s", text(res))
	}
	expectAsked("notes.txt")
	res = callTool("Bash", map[string]any{"command": "cat notes.txt"})
	if res.IsError || !strings.Contains(text(res), "gamma\nbeta") {
		t.Fatalf("after Edit: %s", text(res))
	}

	res = callTool("Bash", map[string]any{"command": "rm notes.txt"})
	if !res.IsError || !strings.Contains(text(res), "denied") {
		t.Fatalf("a declined call: %s", text(res))
	}
	expectAsked("rm notes.txt")
	if res := callTool("Read", map[string]any{"file_path": "/workspace/notes.txt"}); res.IsError || !strings.Contains(text(res), "gamma") {
		t.Fatalf("the declined rm ran: %s", text(res))
	}
}

// What holds for riot's kernel sandbox in a podman container of the image
// (docs/kubernetes.md): with podman's default masked /proc, bwrap cannot
// mount a new proc and riot runs Bash unconfined, saying so; with /proc
// unmasked, the one change (Kubernetes: procMount: Unmasked), the sandbox
// starts under podman's default seccomp profile and capabilities, and the
// command runs in PID namespaces of its own.
func TestSandboxInContainer(t *testing.T) {
	image, pm := requireImage(t)
	for _, tc := range []struct {
		name string
		opts []string
		on   bool
	}{
		{"default", nil, false},
		{"proc unmasked", []string{"--security-opt", "unmask=/proc/*"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"run", "--rm", "--network", "none", "--entrypoint", "riot"}, tc.opts...)
			args = append(args, image, "call", "--mode", "bypassPermissions", "Bash", `{"command":"grep NSpid /proc/self/status"}`)
			out, err := pm.run(t.Context(), t.TempDir(), args...)
			if err != nil {
				t.Fatal(err)
			}
			off := strings.Contains(out, "Ran without the kernel sandbox")
			m := regexp.MustCompile(`NSpid:((?:\s+\d+)+)`).FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("no NSpid in:\n%s", out)
			}
			nested := len(strings.Fields(m[1])) > 1
			if off == tc.on || nested != tc.on {
				t.Fatalf("sandbox on %v (note %v, PID namespaces nested %v), want %v:\n%s", !off, off, nested, tc.on, out)
			}
		})
	}
}
