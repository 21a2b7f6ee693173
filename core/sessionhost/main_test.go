package sessionhost

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core"
	"github.com/riot-tools/riot/core/permission"
)

// bins are the real plugin binaries the tests' hosts run: the testkit and
// the Bash builtin's own plugin.
var bins struct{ testkit, bash string }

func TestMain(m *testing.M) {
	if os.Getenv(clientEnv) != "" {
		os.Exit(clientMain()) // a client process of peer_linux_test.go
	}
	flag.Parse()
	if f := flag.Lookup("test.fuzzworker"); f != nil && f.Value.String() == "true" || flag.Lookup("test.list").Value.String() != "" {
		os.Exit(m.Run()) // a fuzz worker decodes frames, and a listing runs nothing: no plugins
	}
	dir, err := os.MkdirTemp("", "riot-sessionhost-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := func() int {
		defer os.RemoveAll(dir)
		for pkg, dst := range map[string]*string{
			"github.com/riot-tools/riot/internal/testplugins/testkit":    &bins.testkit,
			"github.com/riot-tools/riot/plugins/bash/cmd/riot-tool-bash": &bins.bash,
		} {
			*dst = filepath.Join(dir, filepath.Base(pkg))
			if out, err := exec.Command("go", "build", "-o", *dst, pkg).CombinedOutput(); err != nil {
				fmt.Fprintf(os.Stderr, "build %s: %v\n%s", pkg, err, out)
				return 1
			}
		}
		return m.Run()
	}()
	os.Exit(code)
}

// self is the test host's identity; a client says the same unless a test
// changes it.
func self(ws string) Hello {
	return Hello{Build: "build-1", Session: "S", Workspace: ws, Inputs: "inputs-1"}
}

// testHost is a Server running in the test over real plugin processes.
type testHost struct {
	t      *testing.T
	srv    *Server
	ws     string
	state  string
	builds int
	mu     sync.Mutex
	fp     string // what Current returns
	fpErr  error
	done   chan error
	cancel context.CancelFunc
	logs   []string
}

type hostOpt func(*testHost)

// startHost serves a session host in default permission mode (the
// testkit's State and Block allowed) with the sandbox off, whose Build starts real testkit and Bash plugins.
func startHost(t *testing.T, opts ...hostOpt) *testHost {
	t.Helper()
	root := t.TempDir()
	h := &testHost{t: t, ws: filepath.Join(root, "ws"), state: filepath.Join(root, "state"), fp: "fp-1", done: make(chan error, 1)}
	if err := os.MkdirAll(h.ws, 0o755); err != nil {
		t.Fatal(err)
	}
	h.srv = &Server{
		Paths: PathsFor(Dir(h.state), "S", h.ws),
		Self:  self(h.ws),
		Idle:  time.Hour,
		Build: func(ctx context.Context, relay *Relay) (*core.Host, string, error) {
			h.mu.Lock()
			h.builds++
			fp := h.fp
			h.mu.Unlock()
			cfg, err := config.Load(config.Options{Workspace: h.ws, UserFile: filepath.Join(root, "none.toml"), Getenv: func(string) string { return "" }})
			if err != nil {
				return nil, "", err
			}
			cfg.StateDir = h.state
			cfg.Sandbox.Mode = "off"
			// The testkit's tools run unasked; Bash asks as by default.
			for _, tool := range []string{"State", "Block"} {
				cfg.Permissions.Allow = append(cfg.Permissions.Allow, config.Rule{Text: tool})
			}
			host, err := core.New(ctx, core.Options{
				Config: cfg, Workspace: h.ws, SessionID: "S", Prompter: relay, OnProgress: relay.Progress,
				Plugins: []core.PluginSpec{{Name: "testkit", Path: bins.testkit}, {Name: "bash", Path: bins.bash}},
				Logger:  hclog.New(&hclog.LoggerOptions{Output: testLog{t}, Level: hclog.Warn}),
			})
			return host, fp, err
		},
		Current: func() (string, error) {
			h.mu.Lock()
			defer h.mu.Unlock()
			return h.fp, h.fpErr
		},
		Logf: func(format string, args ...any) {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.logs = append(h.logs, fmt.Sprintf(format, args...))
		},
	}
	for _, o := range opts {
		o(h)
	}
	ready := make(chan struct{})
	h.srv.Ready = func() { close(ready) }
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	go func() { h.done <- h.srv.Serve(ctx) }()
	select {
	case <-ready:
	case err := <-h.done:
		cancel()
		t.Fatalf("the host did not start: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		select {
		case <-h.done:
		case <-time.After(30 * time.Second):
			t.Error("the host did not stop")
		}
	})
	return h
}

// terminalsTrusted lets the test process's own turns be prompted: the
// kernel's checks of the client's process hold, but a process without a
// terminal counts as on one. The tests of the prompts' plumbing use it;
// peer_linux_test.go tests the real check through real client processes.
func terminalsTrusted(h *testHost) {
	h.srv.checkPeer = func(nc net.Conn) (peer, error) {
		p, err := kernelPeer(nc)
		p.terminal = err == nil
		return p, err
	}
}

// exited waits for Serve to return by itself and returns its error.
func (h *testHost) exited() error {
	h.t.Helper()
	select {
	case err := <-h.done:
		h.done <- err // for the cleanup
		return err
	case <-time.After(30 * time.Second):
		h.t.Fatal("the host should have exited")
		return nil
	}
}

func (h *testHost) set(fp string, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.fp, h.fpErr = fp, err
}

func (h *testHost) buildCount() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.builds
}

func (h *testHost) log() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return strings.Join(h.logs, "\n")
}

// turn runs uses through the real client code, as a client of the same
// build.
func (h *testHost) turn(hs Handlers, uses ...core.ToolUse) ([]core.ToolResult, error) {
	return Turn(context.Background(), h.srv.Paths.Socket, self(h.ws), uses, hs)
}

type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func use(id, name string, input any) core.ToolUse {
	data, err := json.Marshal(input)
	if err != nil {
		panic(err)
	}
	return core.ToolUse{ID: id, Name: name, Input: data}
}

func bash(id, command string) core.ToolUse {
	return use(id, "Bash", map[string]string{"command": command})
}

// answering is a prompter that answers every prompt with a, and every
// question about a host with network, and records what it was asked.
type answering struct {
	a       permission.Answer
	network permission.Answer
	mu      sync.Mutex
	asked   []permission.Request
	hosts   []permission.NetworkQuestion
}

func (p *answering) PromptNetwork(_ context.Context, q permission.NetworkQuestion) (permission.Answer, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.hosts = append(p.hosts, q)
	return p.network, nil
}

func (p *answering) Prompt(_ context.Context, req permission.Request, _ permission.Decision) (permission.Answer, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.asked = append(p.asked, req)
	return p.a, nil
}

func text(r core.ToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

func wantStatus(t *testing.T, rs []core.ToolResult, i int, st core.Status, substr string) {
	t.Helper()
	if i >= len(rs) {
		t.Fatalf("want result %d, got %d results", i, len(rs))
	}
	if rs[i].Status != st || !strings.Contains(text(rs[i]), substr) {
		t.Fatalf("result %d: want %s with %q, got %s: %s", i, st, substr, rs[i].Status, text(rs[i]))
	}
}
