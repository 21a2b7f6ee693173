package core_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core"
	"github.com/riot-tools/riot/core/permission"
	"github.com/riot-tools/riot/internal/proctest"
)

// requireSandbox skips a test where bubblewrap cannot start a sandbox,
// and fails it where RIOT_REQUIRE_SANDBOX or CI is set.
func requireSandbox(t *testing.T) {
	t.Helper()
	if err := core.ProbeSandbox(context.Background()); err != nil {
		if os.Getenv("RIOT_REQUIRE_SANDBOX") != "" || os.Getenv("CI") == "true" {
			t.Fatalf("the kernel sandbox is required here but %v", err)
		}
		t.Skipf("needs bubblewrap: %v", err)
	}
}

// askRecorder is a prompter that refuses every question and keeps it.
type askRecorder struct {
	mu    sync.Mutex
	asked []string
}

func (a *askRecorder) Prompt(_ context.Context, req permission.Request, d permission.Decision) (permission.Answer, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, req.Describe+": "+d.Check+" "+d.Reason)
	return permission.AnswerDeny, nil
}

func (a *askRecorder) questions() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.asked...)
}

// tmpHost is a host over the Bash builtin in [sandbox] mode "required",
// allowing every Bash command by rule (the safety checks still run), for
// the session id with cfg's state dir.
func tmpHost(t *testing.T, cfg *config.Config, session string, oneShot bool, asks *askRecorder) *core.Host {
	t.Helper()
	bash, err := bashBin()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, pid := range processesOf(bash) {
			if cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); !proctest.WaitExit(pid, 10*time.Second) {
				t.Errorf("a process of the Bash plugin's binary outlived its host: %d %q", pid, cmd)
			}
		}
	})
	return newHost(t, withConfig(cfg), withPlugins(core.PluginSpec{Name: "bash", Path: bash}), func(o *core.Options) {
		o.Prompter, o.SessionID, o.OneShot = asks, session, oneShot
	})
}

// tmpConfig is [sandbox] mode "required" without network, allowing every
// Bash command by rule (the safety checks still run).
func tmpConfig(t *testing.T) *config.Config {
	t.Helper()
	return testConfig(t, func(c *config.Config) {
		c.Sandbox.Mode = config.SandboxRequired
		c.Sandbox.Network = config.SandboxNetwork{Mode: config.NetworkNone}
		c.Permissions.Allow = []config.Rule{{Text: "Bash"}}
	})
}

func runTool(t *testing.T, h *core.Host, id, tool string, input map[string]any) core.ToolResult {
	t.Helper()
	in, _ := json.Marshal(input)
	return h.RunTurn(context.Background(), []core.ToolUse{{ID: id, Name: tool, Input: in}})[0]
}

// A background command writes a log in /tmp and the session's next calls
// read it, read-only ones without a question; another session's /tmp
// does not have it; the directory goes when the session ends.
func TestSessionTmpIsSharedByTheSessionsCalls(t *testing.T) {
	requireSandbox(t)
	cfg := tmpConfig(t)
	asks := &askRecorder{}
	h := tmpHost(t, cfg, "tmp-one", false, asks)
	dir := core.SessionTempDir(h)
	if dir == "" {
		t.Fatal("a sandboxed session has no temporary directory")
	}

	// The fifo orders the calls: the job writes it only once the log is
	// written, and reading it waits for that.
	if r := runTool(t, h, "t1", "Bash", map[string]any{"command": "mkfifo /tmp/ready"}); r.IsError() {
		t.Fatalf("mkfifo: %s", r.Text())
	}
	if r := runTool(t, h, "t2", "Bash", map[string]any{"command": "echo hello from the job > /tmp/x.log; echo done > /tmp/ready", "run_in_background": true}); r.IsError() {
		t.Fatalf("the background job did not start: %s", r.Text())
	}
	if r := runTool(t, h, "t3", "Bash", map[string]any{"command": "cat /tmp/ready"}); r.IsError() || !strings.Contains(r.Text(), "done") {
		t.Fatalf("waiting for the job: %s", r.Text())
	}
	r := runTool(t, h, "t4", "Bash", map[string]any{"command": "cat /tmp/x.log"})
	if r.IsError() || !strings.Contains(r.Text(), "hello from the job") {
		t.Fatalf("the next call does not find what the job wrote in /tmp: %s", r.Text())
	}
	// Scratch files of a read-only call go to TMPDIR, its own.
	if r := runTool(t, h, "t5", "Bash", map[string]any{"command": "ls /tmp"}); r.IsError() || !strings.Contains(r.Text(), "x.log") {
		t.Fatalf("ls /tmp: %s", r.Text())
	}
	if q := asks.questions(); len(q) != 0 {
		t.Fatalf("the session's own /tmp was asked about: %q", q)
	}
	if b, err := os.ReadFile(dir + "/x.log"); err != nil || !strings.Contains(string(b), "hello from the job") {
		t.Fatalf("the session's directory %s does not hold the log: %q %v", dir, b, err)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("the session's directory is not private: %v %v", fi, err)
	}

	// Another session: its own /tmp, without the log, asked nothing.
	other := &askRecorder{}
	h2 := tmpHost(t, cfg, "tmp-two", false, other)
	if r := runTool(t, h2, "o1", "Bash", map[string]any{"command": "cat /tmp/x.log"}); !r.IsError() || !strings.Contains(r.Text(), "No such file") {
		t.Fatalf("another session sees the first one's /tmp: %s", r.Text())
	}
	if q := other.questions(); len(q) != 0 {
		t.Fatalf("another session's read of its /tmp was asked about: %q", q)
	}

	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the session's temporary directory outlived the session: %v", err)
	}
	if err := h2.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(core.SessionTempDir(h2)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the second session's temporary directory outlived it: %v", err)
	}
}

// A one-shot invocation of a named session leaves its /tmp to the next
// invocation of the session; a session host of it removes it as it exits.
func TestSessionTmpOfANamedOneShotSessionStays(t *testing.T) {
	requireSandbox(t)
	cfg := tmpConfig(t)
	asks := &askRecorder{}
	first := tmpHost(t, cfg, "tmp-named", true, asks)
	if r := runTool(t, first, "a", "Bash", map[string]any{"command": "echo kept > /tmp/kept.txt"}); r.IsError() {
		t.Fatal(r.Text())
	}
	dir := core.SessionTempDir(first)
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	host := tmpHost(t, cfg, "tmp-named", false, asks)
	if r := runTool(t, host, "b", "Bash", map[string]any{"command": "cat /tmp/kept.txt"}); r.IsError() || !strings.Contains(r.Text(), "kept") {
		t.Fatalf("the next invocation of the session lost its /tmp: %s", r.Text())
	}
	if err := host.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the session host left the session's temporary directory: %v", err)
	}
	if q := asks.questions(); len(q) != 0 {
		t.Fatalf("asked: %q", q)
	}
}

// Without a sandbox /tmp is the host's: reading it asks, as any path
// outside the workspace does.
func TestHostTmpAsksWithoutASandbox(t *testing.T) {
	cfg := testConfig(t, func(c *config.Config) {
		c.Sandbox.Mode = config.SandboxAuto
		c.Permissions.Allow = []config.Rule{{Text: "Bash"}}
	})
	asks := &askRecorder{}
	h := tmpHost(t, cfg, "", false, asks)
	core.WithoutBwrap(h)
	r := runTool(t, h, "u", "Bash", map[string]any{"command": "cat /tmp/riot-no-such-session-file.log"})
	if !r.IsError() || len(asks.questions()) != 1 || !strings.Contains(asks.questions()[0], "outside the workspace: /tmp/riot-no-such-session-file.log") {
		t.Fatalf("an unsandboxed read of the host's /tmp was not asked about: %q %s", asks.questions(), r.Text())
	}
}
