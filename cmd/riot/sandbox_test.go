package main_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sys/unix"

	"github.com/riot-tools/riot/internal/proctest"
)

// requireSandbox skips a test where bubblewrap cannot run a sandbox, and
// fails it instead where RIOT_REQUIRE_SANDBOX is set, as CI does: there the
// suite must run.
func requireSandbox(t *testing.T) {
	t.Helper()
	why := ""
	if path, err := exec.LookPath("bwrap"); err != nil {
		why = "bwrap is not installed (apt-get install bubblewrap)"
	} else if out, err := exec.Command(path, "--unshare-user", "--unshare-pid", "--unshare-net", "--die-with-parent",
		"--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "true").CombinedOutput(); err != nil {
		why = fmt.Sprintf("bwrap cannot start a sandbox here: %v: %s", err, out)
	}
	if why == "" {
		return
	}
	if os.Getenv("RIOT_REQUIRE_SANDBOX") != "" {
		t.Fatalf("RIOT_REQUIRE_SANDBOX is set but %s", why)
	}
	t.Skipf("the kernel sandbox tests need bubblewrap: %s", why)
}

// sandboxConfig writes the workspace config: an allow rule for python3,
// and a [sandbox] table.
func (e *env) sandboxConfig(extra string) {
	e.write(".riot/config.toml", "[permissions]\nallow = [\"Bash(python3:*)\"]\n\n[sandbox]\nmode = \"required\"\n"+extra)
}

// py writes code to a script in the workspace and returns the Bash input
// that runs it: the analysis sees `python3 script`, never what it opens.
func (e *env) py(code string) string {
	e.t.Helper()
	e.scripts++
	name := fmt.Sprintf("script%d.py", e.scripts)
	e.write(name, code+"\n")
	return fmt.Sprintf(`{"command":"python3 %s"}`, name)
}

// An allowed command writes inside the roots and nowhere else, and reads
// nothing outside what the sandbox shows: not the home directory's
// secrets, not a directory outside the roots, not through a symlink
// swapped to point outside after the check.
func TestSandboxConfinesAnAllowedCommand(t *testing.T) {
	requireSandbox(t)
	e := newEnv(t)
	e.trust()
	e.sandboxConfig("")
	outside := t.TempDir()
	secretDir := filepath.Join(e.home, ".ssh")
	if err := os.MkdirAll(secretDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(secretDir, "id_rsa"), []byte("PRIVATE KEY\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "notes.txt"), []byte("OUTSIDE DATA\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	e.write("inside.txt", "inside\n")

	// A write outside the roots fails, and nothing is created there.
	r := e.riot("", "call", "Bash", e.py(fmt.Sprintf("open(%q, 'w').write('x')", filepath.Join(outside, "made.txt"))))
	r.want(t, 1, "No such file or directory", "The kernel sandbox may have blocked this command", "a call allowed by the rule Bash(python3:*)", filepath.Join(outside, "made.txt")+" is not in the sandbox")
	if _, err := os.Stat(filepath.Join(outside, "made.txt")); !os.IsNotExist(err) {
		t.Fatalf("a write outside the roots reached the disk: %v", err)
	}
	// So does one to a system directory the sandbox shows read-only.
	etc := fmt.Sprintf("/etc/riot-sandbox-test-%d", os.Getpid())
	r = e.riot("", "call", "Bash", e.py(fmt.Sprintf("open(%q, 'w').write('x')", etc)))
	r.want(t, 1, "Read-only file system", "[sandbox] allow_write")
	if _, err := os.Stat(etc); !os.IsNotExist(err) {
		_ = os.Remove(etc)
		t.Fatalf("a write to /etc reached the disk: %v", err)
	}
	// A write inside the roots works.
	e.riot("", "call", "Bash", e.py("open('made.txt', 'w').write('ok')")).want(t, 0)
	if b, err := os.ReadFile(filepath.Join(e.ws, "made.txt")); err != nil || string(b) != "ok" {
		t.Fatalf("a write inside the roots failed: %q %v", b, err)
	}
	// The fake home's ~/.ssh/id_rsa is not there. The path is built at run
	// time, as the analysis cannot see.
	r = e.riot("", "call", "Bash", e.py(fmt.Sprintf("print(open(%q).read())", filepath.Join(secretDir, "id_rsa"))))
	r.want(t, 1, "No such file or directory")
	if strings.Contains(r.stdout, "PRIVATE KEY") {
		t.Fatal("the sandboxed command read ~/.ssh/id_rsa")
	}
	// Nor is a directory outside the roots.
	r = e.riot("", "call", "Bash", e.py(fmt.Sprintf("print(open(%q).read())", filepath.Join(outside, "notes.txt"))))
	r.want(t, 1, "No such file or directory")
	if strings.Contains(r.stdout, "OUTSIDE DATA") {
		t.Fatal("the sandboxed command read a file outside the roots")
	}
	// A symlink inside the roots, checked while it pointed inside, then
	// swapped to an outside file before the read, finds nothing.
	if err := os.Symlink(filepath.Join(e.ws, "inside.txt"), filepath.Join(e.ws, "link")); err != nil {
		t.Fatal(err)
	}
	swap := fmt.Sprintf("import os; print(open('link').read()); os.remove('link'); os.symlink(%q, 'link'); print(open('link').read())", filepath.Join(outside, "notes.txt"))
	r = e.riot("", "call", "Bash", e.py(swap))
	r.want(t, 1, "inside", "No such file or directory")
	if strings.Contains(r.stdout, "OUTSIDE DATA") {
		t.Fatal("a swapped symlink read a file outside the roots")
	}
}

// With [sandbox.network] mode = "none", a connection to a listener the
// test started on loopback fails, and the listener sees no connection.
func TestSandboxNetworkNone(t *testing.T) {
	requireSandbox(t)
	e := newEnv(t)
	e.trust()
	e.sandboxConfig("\n[sandbox.network]\nmode = \"none\"\n")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var accepted atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	e.write("connect.py", "import socket, sys\nsocket.create_connection(('127.0.0.1', int(sys.argv[1])), timeout=5)\n")
	input := fmt.Sprintf(`{"command":"python3 connect.py %d"}`, port)
	r := e.riot("", "call", "Bash", input)
	r.want(t, 1, "Connection refused", "[sandbox.network] mode = \"none\"")
	if accepted.Load() != 0 {
		t.Fatal("the sandboxed command reached the loopback listener")
	}
	// The same call with mode = "host" connects: the failure was the
	// sandbox's.
	e.sandboxConfig("\n[sandbox.network]\nmode = \"host\"\n")
	e.riot("", "call", "Bash", input).want(t, 0)
	if accepted.Load() != 1 {
		t.Fatalf("with the host network, %d connections arrived", accepted.Load())
	}
}

// blindRiot builds riot with the analyzer forced to call every command
// read-only and to name no path: the first line of defence made wrong.
func blindRiot(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "riot-blind")
	if b, err := exec.Command("go", "build", "-tags", "riot_test_blind_analyzer", "-o", out, "github.com/riot-tools/riot/cmd/riot").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, b)
	}
	return out
}

// When the analysis wrongly calls a command read-only, the kernel still
// refuses its writes and the reads a deny rule forbids: the second line of
// defence holds on its own.
func TestSandboxHoldsWhenTheAnalysisIsWrong(t *testing.T) {
	requireSandbox(t)
	e := newEnv(t)
	e.trust()
	e.exe = blindRiot(t)
	e.write(".riot/config.toml", "[permissions]\ndeny = [\"Read(./secret.txt)\", \"Read(./private/**)\"]\n\n[sandbox]\nmode = \"required\"\n")
	e.write("keep.txt", "keep\n")
	e.write("secret.txt", "TOP SECRET\n")
	e.write("private/key.pem", "PEM DATA\n")
	for _, tc := range []struct{ command, want string }{
		{"touch made", "Read-only file system"},
		{"rm keep.txt", "Read-only file system"},
		{"echo hi > redirected", "Read-only file system"},
		{"echo more >> keep.txt", "Read-only file system"},
		{"mkdir newdir", "Read-only file system"},
	} {
		r := e.riot("", "call", "Bash", fmt.Sprintf(`{"command":%q}`, tc.command))
		r.want(t, 1, tc.want, "allowed as read-only", "a call allowed as read-only")
	}
	for _, name := range []string{"made", "redirected", "newdir"} {
		if _, err := os.Stat(filepath.Join(e.ws, name)); !os.IsNotExist(err) {
			t.Errorf("%s was created", name)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(e.ws, "keep.txt")); string(b) != "keep\n" {
		t.Errorf("keep.txt changed: %q", b)
	}
	// The analysis named no path, so the chain let these through; the
	// sandbox hides what the deny rules name.
	for _, cmd := range []string{"cat secret.txt", "cat private/key.pem", "cat ./sec*.txt", "cat private/*", "grep -r DATA private"} {
		r := e.riot("", "call", "Bash", fmt.Sprintf(`{"command":%q}`, cmd))
		if strings.Contains(r.stdout, "TOP SECRET") || strings.Contains(r.stdout, "PEM DATA") {
			t.Errorf("%s read a denied file: %s", cmd, r.stdout)
		}
	}
	if r := e.riot("", "call", "Bash", `{"command":"ls private"}`); strings.Contains(r.stdout, "key.pem") {
		t.Errorf("ls listed a denied directory: %s", r.stdout)
	}
	// Reading what is allowed still works.
	e.riot("", "call", "Bash", `{"command":"cat keep.txt"}`).want(t, 0, "keep")
}

// Protected paths inside the roots stay read-only for a call allowed to
// write, and riot's own config too.
func TestSandboxKeepsProtectedPathsReadOnly(t *testing.T) {
	requireSandbox(t)
	e := newEnv(t)
	e.trust()
	e.sandboxConfig("")
	e.write(".git/hooks/pre-commit", "#!/bin/sh\n")
	e.write(".git/config", "[core]\n")
	r := e.riot("", "call", "Bash", e.py("open('.git/hooks/pre-commit', 'a').write('evil')"))
	r.want(t, 1, "Read-only file system")
	r = e.riot("", "call", "Bash", e.py("open('.riot/config.toml', 'a').write('evil')"))
	r.want(t, 1, "Read-only file system")
	if b, _ := os.ReadFile(filepath.Join(e.ws, ".git/hooks/pre-commit")); string(b) != "#!/bin/sh\n" {
		t.Fatalf("a protected path was written: %q", b)
	}
}

// mode = "required" where bwrap cannot be found fails the call with how
// to install it; mode = "auto" runs it unsandboxed with one warning.
func TestSandboxUnavailable(t *testing.T) {
	e := newEnv(t)
	e.trust()
	// A riot that finds no bwrap, as on a machine without it: bwrap is
	// looked for in the system directories only, so no PATH hides it.
	e.exe = noBwrapRiot(t)
	run := func(args ...string) result {
		cmd := e.command("", args...)
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return result{out.String(), errb.String(), code}
	}
	e.sandboxConfig("")
	r := run("call", "Bash", `{"command":"echo hi > x"}`, "--mode", "bypassPermissions")
	r.want(t, 1, "the kernel sandbox is required", "apt-get install bubblewrap")
	if _, err := os.Stat(filepath.Join(e.ws, "x")); !os.IsNotExist(err) {
		t.Fatal("a call ran without its required sandbox")
	}
	// Grep and Read start no processes: they run all the same, and
	// explain says why they have no sandbox.
	e.write("needle.txt", "a needle\n")
	run("call", "Grep", `{"pattern":"needle"}`).want(t, 0, "needle.txt")
	run("call", "Read", `{"file_path":"needle.txt"}`).want(t, 0, "a needle")
	run("explain", "Grep", `{"pattern":"needle"}`).want(t, 0, "sandbox: none needed: the grep plugin declares that it starts no processes")
	e.write(".riot/config.toml", "[sandbox]\nmode = \"auto\"\n")
	r = run("call", "Bash", `{"command":"echo hi > x"}`, "--mode", "bypassPermissions")
	r.want(t, 0, "the kernel sandbox is off for this session", "bubblewrap")
	if n := strings.Count(r.stderr, "the kernel sandbox is off"); n != 1 {
		t.Fatalf("warned %d times:\n%s", n, r.stderr)
	}
	// The model's result and explain say so too.
	r.want(t, 0, "Ran without the kernel sandbox: bwrap was not found", `[sandbox] mode = "auto"`)
	run("explain", "Bash", `{"command":"echo hi > x"}`).want(t, 0, "sandbox: off, so the call would run unconfined", "bwrap was not found")
	// Write starts no processes: nothing of it is unconfined, and it says nothing.
	if r = run("call", "Write", `{"file_path":"new.txt","content":"x\n"}`, "--mode", "bypassPermissions"); strings.Contains(r.stdout, "Ran without the kernel sandbox") {
		t.Fatalf("a tool that starts no processes got the unconfined note: %s", r.stdout)
	}
	r.want(t, 0, "new.txt")
}

// noBwrapRiot builds riot finding no bwrap (the riot_test_no_bwrap tag),
// as on a machine without it.
func noBwrapRiot(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "riot-no-bwrap")
	if b, err := exec.Command("go", "build", "-tags", "riot_test_no_bwrap", "-o", out, "github.com/riot-tools/riot/cmd/riot").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, b)
	}
	return out
}

// A [sandbox] path that is relative or does not exist is a config error
// naming the file and line.
func TestSandboxConfigErrors(t *testing.T) {
	e := newEnv(t)
	e.trust()
	cfg := e.write(".riot/config.toml", "[sandbox]\nmode = \"auto\"\nallow_write = [\n  \"relative/dir\",\n]\n")
	e.riot("", "call", "Bash", `{"command":"true"}`).want(t, 2, cfg+":4", "is relative")
	e.write(".riot/config.toml", "[sandbox]\ndeny_read = [\"/no/such/path\"]\n")
	e.riot("", "call", "Bash", `{"command":"true"}`).want(t, 2, cfg+":2", "does not exist")
	e.write(".riot/config.toml", "[sandbox]\nmode = \"sometimes\"\n")
	e.riot("", "call", "Bash", `{"command":"true"}`).want(t, 2, cfg+":2", "auto, required, off")
}

// escapes are the ways a command detaches a process from its call.
var escapes = map[string]string{
	"setsid":       "setsid sleep %s &",
	"double fork":  "(sleep %s &) &",
	"nohup":        "nohup sleep %s >/dev/null 2>&1 &",
	"ignored TERM": "(trap '' TERM; exec sleep %s) &",
}

// startEscape starts riot with args, whose Bash call runs the escape with
// a unique sleep and then tells the test through a FIFO in the workspace.
// It returns riot's process and the sleep's host pid.
func startEscape(t *testing.T, e *env, name string, start func(command string) *exec.Cmd) (*exec.Cmd, int) {
	t.Helper()
	secs := fmt.Sprintf("%d.%d", 3000+os.Getpid()%1000, time.Now().UnixNano()%1_000_000)
	fifo := makeFifo(t, filepath.Join(e.ws, "ready"))
	// It tells the test once the sleep runs: pgrep without a sleep of its
	// own, busy but short.
	command := fmt.Sprintf(escapes[name], secs) + fmt.Sprintf(" until pgrep -x -f 'sleep %s' >/dev/null; do :; done; echo ready > ready; sleep 300", secs)
	cmd := start(command)
	// A file, not a buffer: Wait then never waits on a pipe that a
	// process riot left behind still holds.
	out, err := os.Create(filepath.Join(t.TempDir(), "riot.out"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd.Stdout, cmd.Stderr = out, out
	output := func() string {
		b, _ := os.ReadFile(out.Name())
		return string(b)
	}
	line := startProc(t, cmd).readFifo(t, fifo, output)
	pids := proctest.HostPIDs(t, "sleep", secs)
	if len(pids) != 1 {
		ps, _ := exec.Command("ps", "-eo", "pid,ppid,args").Output()
		t.Fatalf("found %d processes running sleep %s (ready %q)\n%s\n%s", len(pids), secs, line, output(), ps)
	}
	return cmd, pids[0]
}

// SIGKILL of riot mid-call, under call, run and mcp, leaves nothing the
// command started, however it detached itself: the PID namespace ends it.
func TestSandboxLeavesNoOrphans(t *testing.T) {
	requireSandbox(t)
	modes := map[string]func(t *testing.T, e *env, command string) *exec.Cmd{
		"call": func(_ *testing.T, e *env, command string) *exec.Cmd {
			return e.command("", "call", "Bash", fmt.Sprintf(`{"command":%q}`, command), "--mode", "bypassPermissions")
		},
		"run": func(_ *testing.T, e *env, command string) *exec.Cmd {
			turn, _ := json.Marshal([]map[string]any{{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": map[string]any{"command": command}}})
			return e.command(string(turn), "run", "--mode", "bypassPermissions")
		},
		"mcp": func(t *testing.T, e *env, command string) *exec.Cmd {
			cmd := e.command("", "mcp", "--mode", "bypassPermissions")
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			// The cleanup keeps w reachable: were it collected, its
			// finalizer would close stdin and end the server mid-call.
			t.Cleanup(func() { r.Close(); w.Close() })
			cmd.Stdin = r
			call, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": map[string]any{"name": "Bash", "arguments": map[string]any{"command": command}}})
			go func() {
				fmt.Fprintln(w, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
				fmt.Fprintln(w, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
				fmt.Fprintln(w, string(call))
				// Stays open: stdin's end would end the server.
			}()
			return cmd
		},
	}
	for mode, start := range modes {
		for name := range escapes {
			t.Run(mode+"/"+name, func(t *testing.T) {
				e := newEnv(t)
				e.trust()
				e.write(".riot/config.toml", "[sandbox]\nmode = \"required\"\n")
				riot, sleepPID := startEscape(t, e, name, func(command string) *exec.Cmd { return start(t, e, command) })
				if err := riot.Process.Signal(syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
				if !proctest.WaitExit(sleepPID, 3*time.Second) {
					_ = syscall.Kill(sleepPID, syscall.SIGKILL)
					t.Fatalf("%s: sleep %d outlived riot by 3 s", name, sleepPID)
				}
			})
		}
	}
}

// `riot explain` shows the profile a call would get, and `riot config`
// the sandbox settings and whether bwrap works.
func TestSandboxShownByExplainAndConfig(t *testing.T) {
	requireSandbox(t)
	e := newEnv(t)
	e.trust()
	e.sandboxConfig("\n[sandbox.network]\nmode = \"none\"\n")
	e.riot("", "explain", "Bash", `{"command":"ls"}`).want(t, 0, "sandbox: read-only, nothing writable; no network", "a call allowed as read-only")
	e.riot("", "explain", "Bash", e.py("print(1)")).want(t, 0, "sandbox: writable only in "+e.ws, "a call allowed by the rule Bash(python3:*)")
	e.riot("", "config").want(t, 0, "sandbox.mode", "required", "sandbox.network", "none", "bwrap: works")
}

// Background jobs started through a one-shot `riot call` say they end with
// it, and the MCP server's jobs run on.
func TestOneShotBackgroundJobSaysItEnds(t *testing.T) {
	e := newEnv(t)
	e.trust()
	r := e.riot("", "call", "Bash", `{"command":"true","run_in_background":true}`, "--mode", "bypassPermissions")
	r.want(t, 0, "This riot invocation is one-shot", "will not find it")
	s := e.connect(t, nil, "--mode", "bypassPermissions")
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "Bash", Arguments: map[string]any{"command": "true", "run_in_background": true}})
	if err != nil || res.IsError || strings.Contains(text(res), "one-shot") || !strings.Contains(text(res), "BashOutput") {
		t.Fatalf("mcp job: %v %s", err, text(res))
	}
}

// noNewPrivs reads whether the builtin plugin NAME of exe runs with
// no_new_privs, which Landlock's restriction sets.
func noNewPrivs(t *testing.T, exe, name string) (bool, bool) {
	t.Helper()
	for _, pid := range proctest.HostPIDs(t, exe, "__plugin", name) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "NoNewPrivs:"); ok {
				return strings.TrimSpace(v) == "1", true
			}
		}
	}
	return false, false
}

// The Grep and Read plugin processes restrict themselves with Landlock
// once they serve; Bash, which starts processes, does not.
func TestReadOnlyPluginsAreConfined(t *testing.T) {
	// landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION)
	if abi, _, errno := syscall.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, 1); errno != 0 || int(abi) < 1 {
		t.Skipf("this kernel has no Landlock (%v); the restriction is best effort", errno)
	}
	e := newEnv(t)
	e.trust()
	e.write("a.txt", "alpha\n")
	s := e.connect(t, nil, "--mode", "bypassPermissions")
	for _, call := range []*mcp.CallToolParams{
		{Name: "Read", Arguments: map[string]any{"file_path": "a.txt"}},
		{Name: "Grep", Arguments: map[string]any{"pattern": "alpha"}},
		{Name: "Bash", Arguments: map[string]any{"command": "true"}},
	} {
		if res, err := s.CallTool(context.Background(), call); err != nil || res.IsError {
			t.Fatalf("%s: %v %s", call.Name, err, text(res))
		}
	}
	for name, want := range map[string]bool{"read": true, "grep": true, "bash": false} {
		got, found := noNewPrivs(t, e.exe, name)
		if !found {
			t.Fatalf("no %s plugin process found", name)
		}
		if got != want {
			t.Errorf("%s plugin: no_new_privs = %v, want %v", name, got, want)
		}
	}
}

// Through one long-lived host, commands of one profile share a sandbox
// (each is PID 1 of its own PID namespace in it), and a path a decision
// made writable for one call stays out of the next call's sandbox: the
// write outside the roots that bypassPermissions allowed by name works,
// the same write hidden in a script, which no decision named, fails in
// the kernel.
func TestSandboxWritableSetStaysWithItsCall(t *testing.T) {
	requireSandbox(t)
	e := newEnv(t)
	e.trust()
	e.sandboxConfig("")
	outside := t.TempDir()
	s := e.connect(t, nil, "--mode", "bypassPermissions")
	for range 2 {
		if res := call(t, s, "Bash", map[string]any{"command": "echo $$"}); res.IsError || strings.TrimSpace(text(res)) != "1" {
			t.Fatalf("a command did not run in the long-lived sandbox: %q", text(res))
		}
	}
	named := filepath.Join(outside, "named.txt")
	if res := call(t, s, "Bash", map[string]any{"command": "echo x > " + named}); res.IsError {
		t.Fatalf("an allowed write outside the roots failed: %s", text(res))
	}
	if _, err := os.Stat(named); err != nil {
		t.Fatalf("the allowed write did not reach the disk: %v", err)
	}
	hidden := filepath.Join(outside, "hidden.txt")
	var input map[string]any
	if err := json.Unmarshal([]byte(e.py(fmt.Sprintf("open(%q, 'w').write('x')", hidden))), &input); err != nil {
		t.Fatal(err)
	}
	res := call(t, s, "Bash", input)
	if !res.IsError || !strings.Contains(text(res), "No such file or directory") {
		t.Fatalf("a write no decision named reached outside the roots: %s", text(res))
	}
	if _, err := os.Stat(hidden); !os.IsNotExist(err) {
		t.Fatalf("the write reached the disk: %v", err)
	}
}
