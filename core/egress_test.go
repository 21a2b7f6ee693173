package core_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core"
	"github.com/riot-tools/riot/core/permission"
	"github.com/riot-tools/riot/internal/proctest"
)

// The network policy through the real egress proxy, a real bwrap sandbox
// and the Bash builtin: the proxy resolves names with a table of the
// test's (names of the reserved .test domain, at the loopback address of
// the test's own server), and dials for real.

// bashBin builds the Bash builtin's standalone binary once, beside the
// test plugins.
var bashBin = sync.OnceValues(func() (string, error) { return buildBash("riot-tool-bash") })

// buildBash builds the Bash builtin beside the test plugins as name, with
// the build tags given.
func buildBash(name string, tags ...string) (string, error) {
	out := filepath.Join(filepath.Dir(bins.testkit), name)
	args := []string{"build"}
	if len(tags) > 0 {
		args = append(args, "-tags", strings.Join(tags, ","))
	}
	cmd := exec.Command("go", append(args, "-o", out, "./plugins/bash/cmd/riot-tool-bash")...)
	cmd.Dir = ".."
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build the Bash plugin %s: %w\n%s", name, err, b)
	}
	return out, nil
}

// requireBwrap skips a test where bubblewrap cannot start a sandbox, and
// fails it where RIOT_REQUIRE_SANDBOX is set.
func requireBwrap(t *testing.T) {
	t.Helper()
	err := core.ProbeSandbox(context.Background())
	if err == nil {
		if _, err = exec.LookPath("curl"); err == nil {
			return
		}
		err = fmt.Errorf("curl is not installed: %w", err)
	}
	if os.Getenv("RIOT_REQUIRE_SANDBOX") != "" {
		t.Fatalf("RIOT_REQUIRE_SANDBOX is set but %v", err)
	}
	t.Skipf("the network policy tests need bubblewrap and curl: %v", err)
}

// names is the proxy's resolver in these tests: every name it knows is at
// the loopback address, where the test's server listens.
type names map[string]bool

func (n names) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if !n[host] {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
}

// webServer answers every request with the Host it was sent for.
func webServer(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello from %s", r.Host)
	})}
	done := make(chan struct{})
	go func() { defer close(done); _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close(); <-done })
	return l.Addr().(*net.TCPAddr).Port
}

// egressHost is a host over the Bash builtin in [sandbox] mode "required"
// and [sandbox.network] mode "proxy", allowing every Bash call, with the
// proxy pointed at names.
func egressHost(t *testing.T, n names, prompter permission.Prompter, mutate func(*config.Config)) (*core.Host, string) {
	t.Helper()
	requireBwrap(t)
	bash, err := bashBin()
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(t, func(c *config.Config) {
		c.Sandbox.Mode = config.SandboxRequired
		c.Sandbox.Network = config.SandboxNetwork{Mode: config.NetworkProxy, AllowPrivate: true}
		c.Permissions.Allow = []config.Rule{{Text: "Bash"}}
		if mutate != nil {
			mutate(c)
		}
	})
	// Registered first, so it runs after the host's Close. What runs the
	// plugin's binary in a sandbox (its init, the proxy's forwarder) dies
	// with the sandbox, which dies with the plugin: waited for, not polled.
	t.Cleanup(func() {
		for _, pid := range processesOf(bash) {
			if cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); !proctest.WaitExit(pid, 10*time.Second) {
				t.Errorf("a process of the Bash plugin's binary outlived its host: %d %q", pid, cmd)
			}
		}
	})
	h := newHost(t, withConfig(cfg), withPlugins(core.PluginSpec{Name: "bash", Path: bash}), func(o *core.Options) { o.Prompter = prompter })
	core.WithEgressResolver(h, n)
	return h, filepath.Dir(cfg.StateDir)
}

func bash(t *testing.T, h *core.Host, id, command string) core.ToolResult {
	t.Helper()
	in, _ := json.Marshal(map[string]string{"command": command})
	return h.RunTurn(context.Background(), []core.ToolUse{{ID: id, Name: "Bash", Input: in}})[0]
}

func allowed(items ...string) []config.Item {
	out := make([]config.Item, len(items))
	for i, s := range items {
		out[i] = config.Item{Text: s}
	}
	return out
}

// A writable call reaches an allowed name through the proxy; a name no
// rule covers, with nobody to ask, is refused, and the result names it
// with the line that would allow it.
func TestEgressAllowsAndRefuses(t *testing.T) {
	port := webServer(t)
	h, _ := egressHost(t, names{"allowed.test": true, "unlisted.test": true}, nil, func(c *config.Config) {
		c.Sandbox.Network.AllowedDomains = allowed("allowed.test")
	})
	r := bash(t, h, "ok", fmt.Sprintf("curl -sS --max-time 20 http://allowed.test:%d/", port))
	if r.IsError() || !strings.Contains(r.Text(), fmt.Sprintf("hello from allowed.test:%d", port)) {
		t.Fatalf("the allowed name: %s %s", r.Status, r.Text())
	}
	if strings.Contains(r.Text(), "refused") {
		t.Errorf("an allowed call's result carries a refusal: %s", r.Text())
	}
	dir := core.EgressDir(h)
	if dir == "" {
		t.Fatal("the proxy did not start")
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the proxy's directory: %v %v", fi, err)
	}

	r = bash(t, h, "refused", fmt.Sprintf("curl -sS --fail --max-time 20 http://unlisted.test:%d/", port))
	want := []string{
		fmt.Sprintf("unlisted.test:%d: unlisted.test is not an allowed domain, and nobody could be asked.", port),
		`allowed_domains = ["unlisted.test"] under [sandbox.network] in .riot/config.toml`,
		"Do not retry these connections",
	}
	for _, w := range want {
		if !r.IsError() || !strings.Contains(r.Text(), w) {
			t.Fatalf("the refused name: %s, lacks %q: %s", r.Status, w, r.Text())
		}
	}

	// A denied name is refused whatever allows it, with its rule.
	h2, _ := egressHost(t, names{"denied.test": true}, nil, func(c *config.Config) {
		c.Sandbox.Network.AllowedDomains = allowed("*.test")
		c.Sandbox.Network.DeniedDomains = allowed("denied.test")
	})
	r = bash(t, h2, "denied", fmt.Sprintf("curl -sS --fail --max-time 20 http://denied.test:%d/", port))
	if !r.IsError() || !strings.Contains(r.Text(), fmt.Sprintf(`denied.test:%d: denied.test:%d is refused by the deny rule "denied.test" in denied_domains`, port, port)) {
		t.Fatalf("the denied name: %s %s", r.Status, r.Text())
	}

	// The proxy's socket goes with the host.
	_ = h.Close()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the proxy's directory outlived the host: %v", err)
	}
}

// terminal plays the user at a TTYPrompter: each question it sees is sent
// on questions, and the test answers with answer.
type terminal struct {
	w         *io.PipeWriter
	mu        sync.Mutex
	buf       strings.Builder
	questions chan string
}

func newTerminal(t *testing.T) (*terminal, *permission.TTYPrompter) {
	r, w := io.Pipe()
	tm := &terminal{w: w, questions: make(chan string, 8)}
	t.Cleanup(func() { _ = w.Close() })
	return tm, &permission.TTYPrompter{In: r, Out: tm}
}

func (tm *terminal) Write(p []byte) (int, error) {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	tm.buf.Write(p)
	if strings.HasSuffix(tm.buf.String(), "Answer: ") {
		tm.questions <- tm.buf.String()
		tm.buf.Reset()
	}
	return len(p), nil
}

// runAnswering runs command, answering the one question it raises with
// answer; it fails the test if no question comes.
func runAnswering(t *testing.T, h *core.Host, tm *terminal, command, answer string) (core.ToolResult, string) {
	t.Helper()
	done := make(chan core.ToolResult, 1)
	go func() { done <- bash(t, h, "asks", command) }()
	select {
	case q := <-tm.questions:
		if _, err := io.WriteString(tm.w, answer+"\n"); err != nil {
			t.Fatal(err)
		}
		return <-done, q
	case r := <-done:
		t.Fatalf("no question was asked: %s %s", r.Status, r.Text())
	}
	return core.ToolResult{}, ""
}

// An unknown name is asked about once per session; "session" lets it
// through for the rest of the session and is written nowhere.
func TestEgressSessionAnswerIsRemembered(t *testing.T) {
	port := webServer(t)
	tm, tty := newTerminal(t)
	h, ws := egressHost(t, names{"asked.test": true}, tty, nil)
	command := fmt.Sprintf("curl -sS --fail --max-time 20 http://asked.test:%d/", port)
	r, q := runAnswering(t, h, tm, command, "s")
	if !strings.Contains(q, fmt.Sprintf("wants to connect to asked.test:%d", port)) || !strings.Contains(q, "[s] allow") {
		t.Errorf("the question: %s", q)
	}
	if r.IsError() || !strings.Contains(r.Text(), "hello from asked.test") {
		t.Fatalf("after allowing it for the session: %s %s", r.Status, r.Text())
	}
	// The next call is not asked: a question would block it.
	r = bash(t, h, "again", command)
	if r.IsError() || !strings.Contains(r.Text(), "hello from asked.test") {
		t.Fatalf("the next call: %s %s", r.Status, r.Text())
	}
	select {
	case q := <-tm.questions:
		t.Fatalf("asked again: %s", q)
	default:
	}
	// Nothing on disk names it: not the config, not the session's state.
	_ = h.Close()
	if err := filepath.Walk(ws, func(path string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		if b, err := os.ReadFile(path); err == nil && strings.Contains(string(b), "asked.test") {
			t.Errorf("%s names the session's answer: %s", path, b)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// "Always" is written to allowed_domains in .riot/config.local.toml; "no"
// refuses, and the result says the user refused.
func TestEgressAlwaysIsWritten(t *testing.T) {
	port := webServer(t)
	tm, tty := newTerminal(t)
	h, ws := egressHost(t, names{"always.test": true, "refused.test": true}, tty, nil)
	r, _ := runAnswering(t, h, tm, fmt.Sprintf("curl -sS --fail --max-time 20 http://always.test:%d/", port), "a")
	if r.IsError() || !strings.Contains(r.Text(), "hello from always.test") {
		t.Fatalf("after allowing it always: %s %s", r.Status, r.Text())
	}
	b, err := os.ReadFile(config.LocalFile(ws))
	if want := fmt.Sprintf("[sandbox.network]\nallowed_domains = [\"always.test:%d\"]\n", port); err != nil || !strings.Contains(string(b), want) {
		t.Errorf("config.local.toml = %q, %v; want it to hold %q", b, err, want)
	}

	r, _ = runAnswering(t, h, tm, fmt.Sprintf("curl -sS --fail --max-time 20 http://refused.test:%d/", port), "n")
	if !r.IsError() || !strings.Contains(r.Text(), fmt.Sprintf("refused.test:%d: the user refused it for this session.", port)) {
		t.Fatalf("after refusing it: %s %s", r.Status, r.Text())
	}
	if b, _ := os.ReadFile(config.LocalFile(ws)); strings.Contains(string(b), "refused.test") {
		t.Errorf("a refusal was written: %s", b)
	}
}

// [sandbox] excluded_commands takes a call out of the sandbox only when
// every command of it matches, as its tool reported them: the permission
// chain still decides it.
func TestExcludedCommandsLeaveTheSandbox(t *testing.T) {
	h, _ := egressHost(t, nil, nil, func(c *config.Config) {
		c.Sandbox.ExcludedCommands = allowed("readlink *")
		// /proc/self paths ask otherwise; the deny rule still applies.
		c.Permissions.Mode = config.ModeBypassPermissions
		c.Permissions.Deny = []config.Rule{{Text: "Bash(readlink /etc/*)"}}
	})
	host, err := os.Readlink("/proc/self/ns/mnt")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		command string
		outside bool
	}{
		{"readlink /proc/self/ns/mnt", true},
		{"readlink /proc/self/ns/mnt; echo done", false},
		{"cat /proc/self/mountinfo >/dev/null; readlink /proc/self/ns/mnt", false},
		{"stat -L -c mnt:[%i] /proc/self/ns/mnt", false},
	} {
		r := bash(t, h, "ns", tc.command)
		if r.IsError() {
			t.Fatalf("%s: %s %s", tc.command, r.Status, r.Text())
		}
		if got := strings.Contains(r.Text(), host); got != tc.outside {
			t.Errorf("%s: outside the sandbox = %v, want %v (host %s): %s", tc.command, got, tc.outside, host, r.Text())
		}
	}
	in, _ := json.Marshal(map[string]string{"command": "readlink /proc/self/ns/mnt"})
	if ex := h.Explain(context.Background(), "Bash", in, core.ExplainOptions{}); ex.Sandbox != nil || ex.NoSandbox != "excluded by [sandbox] excluded_commands, the user's decision" {
		t.Errorf("explain: %+v %q", ex.Sandbox, ex.NoSandbox)
	}
	// The chain runs first: a deny rule still denies an excluded command.
	if r := bash(t, h, "denied", "readlink /etc/hostname"); r.Status != core.StatusDenied {
		t.Errorf("a denied excluded command: %s %s", r.Status, r.Text())
	}
}
