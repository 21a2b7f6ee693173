//go:build linux

package bash

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/riot-tools/riot/internal/bwrap"
	"github.com/riot-tools/riot/plugin"
	"github.com/riot-tools/riot/plugin/plugintest"
	"github.com/riot-tools/riot/plugin/sandbox"
)

func needBwrap(t *testing.T) {
	t.Helper()
	if _, err := bwrap.Find(); err != nil {
		if os.Getenv("RIOT_REQUIRE_SANDBOX") != "" {
			t.Fatal("RIOT_REQUIRE_SANDBOX is set but bwrap is not installed")
		}
		t.Skip("the sandbox tests need bubblewrap (apt-get install bubblewrap)")
	}
}

// The directory report is in no directory: while a command runs, and so
// whenever the plugin might be killed, no per-call file exists.
func TestCwdReportLeavesNothingOnDisk(t *testing.T) {
	f := newFixture(t, nil)
	step := mkfifo(t, "step")
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.c.Call("Bash", run("cat "+shellQuote(step)))
	}()
	w := reach(t, step)
	left, _ := filepath.Glob(filepath.Join(f.tmp, "*"))
	if len(left) > 0 {
		t.Errorf("a running command has files in the temp dir: %v", left)
	}
	_ = w.Close()
	<-done
}

func (f *fixture) sandbox(writable bool) {
	f.c.Sandbox = &sandbox.Profile{Writable: writable, WritePaths: []string{f.c.Cwd}, Required: true, Reason: "a test profile"}
}

// In a read-only profile a write fails in the kernel and the model is told
// which profile refused it; the final directory is still known.
func TestSandboxedCommandReadOnly(t *testing.T) {
	needBwrap(t)
	f := newFixture(t, nil)
	f.sandbox(false)
	if err := os.Mkdir(filepath.Join(f.c.Cwd, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	res := f.c.Call("Bash", run("cd sub && touch x"))
	if res.Ok || !strings.Contains(res.Text, "Read-only file system") || !strings.Contains(res.Message, "a test profile") || !strings.Contains(res.Message, "read-only, nothing writable") {
		t.Fatalf("ok=%v text=%q msg=%q", res.Ok, res.Text, res.Message)
	}
	if _, err := os.Stat(filepath.Join(f.c.Cwd, "sub", "x")); !os.IsNotExist(err) {
		t.Fatal("the write reached the disk")
	}
	if got := f.c.State[cwdStateKey]; got != filepath.Join(f.c.Cwd, "sub") {
		t.Fatalf("the directory after the command is %q", got)
	}
	f.sandbox(true)
	if res := f.c.Call("Bash", run("touch x")); !res.Ok {
		t.Fatalf("a write profile refused a write in its root: %q %q", res.Text, res.Message)
	}
}

// sleepPID is the host pid of the one process running `sleep secs`.
func sleepPID(t *testing.T, secs string) int {
	t.Helper()
	entries, _ := os.ReadDir("/proc")
	var found []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && string(b) == "sleep\x00"+secs+"\x00" {
			found = append(found, pid)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d processes run sleep %s", len(found), secs)
	}
	return found[0]
}

// KillShell ends every process a sandboxed background job started, one
// that left with setsid included; so does the end of a foreground command.
func TestSandboxEndsDetachedProcesses(t *testing.T) {
	needBwrap(t)
	f := newFixture(t, nil)
	f.sandbox(true)
	ready := filepath.Join(f.c.Cwd, "ready")
	if err := unix.Mkfifo(ready, 0o600); err != nil {
		t.Fatal(err)
	}
	secs := fmt.Sprintf("%d.%d", 4000+os.Getpid()%1000, time.Now().UnixNano()%1_000_000)
	wait := fmt.Sprintf("until pgrep -x -f 'sleep %s' >/dev/null; do :; done; echo ready > ready", secs)
	res := f.c.Call("Bash", map[string]any{"command": fmt.Sprintf("setsid sleep %s & %s; sleep 300", secs, wait), "run_in_background": true})
	if !res.Ok {
		t.Fatalf("start: %s", res.Message)
	}
	if _, err := readFifoLine(ready); err != nil {
		t.Fatal(err)
	}
	watch := watchExit(t, sleepPID(t, secs))
	if res := f.c.Call("KillShell", map[string]any{"shell_id": "bash_1"}); !res.Ok {
		t.Fatalf("KillShell: %s", res.Message)
	}
	if left := watch.wait(time.Now().Add(3 * time.Second)); len(left) > 0 {
		t.Fatalf("KillShell left %v running", left)
	}

	// In the foreground, the call's end ends what it detached.
	secs += "1"
	wait = fmt.Sprintf("until pgrep -x -f 'sleep %s' >/dev/null; do :; done", secs)
	step := filepath.Join(f.c.Cwd, "step")
	if err := unix.Mkfifo(step, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.c.Call("Bash", run(fmt.Sprintf("setsid sleep %s & %s; echo ready > ready; cat step", secs, wait)))
	}()
	if _, err := readFifoLine(ready); err != nil {
		t.Fatal(err)
	}
	watch = watchExit(t, sleepPID(t, secs))
	_ = reach(t, step).Close()
	<-done
	if left := watch.wait(time.Now().Add(3 * time.Second)); len(left) > 0 {
		t.Fatalf("the call's end left %v running", left)
	}
}

// sandboxInits are the host pids of this process's long-lived sandboxes
// (bwrap running the plugin's binary as their init).
func sandboxInits(t *testing.T) []int {
	t.Helper()
	entries, _ := os.ReadDir("/proc")
	var found []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		argv, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		stat, err2 := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil || err2 != nil || !strings.HasSuffix(string(argv), "\x00__riot_sandbox_init\x00") {
			continue
		}
		// "pid (comm) S ppid ...": bwrap's parent is this test binary.
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(f) > 1 && f[1] == strconv.Itoa(os.Getpid()) {
			found = append(found, pid)
		}
	}
	return found
}

// A long-lived sandbox that dies under a command fails the call with what
// to do, and the next call runs in a new sandbox.
func TestSandboxLostFailsTheCall(t *testing.T) {
	needBwrap(t)
	f := newFixture(t, nil)
	f.sandbox(true)
	// In the workspace: the sandbox shows nothing else of the test's.
	step := filepath.Join(f.c.Cwd, "step")
	if err := unix.Mkfifo(step, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan plugintest.Result)
	go func() { done <- f.c.Call("Bash", runT("cat step; sleep 100", 20000)) }()
	w := reach(t, step)
	inits := sandboxInits(t)
	if len(inits) != 1 {
		t.Fatalf("%d long-lived sandboxes", len(inits))
	}
	if err := unix.Kill(-inits[0], unix.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = w.Close()
	res := <-done
	if res.Ok || !strings.Contains(res.Message, "The kernel sandbox the command ran in ended unexpectedly") || !strings.Contains(res.Message, "Check its effects before retrying") {
		t.Fatalf("ok=%v msg=%q", res.Ok, res.Message)
	}
	if res := f.c.Call("Bash", run("echo again")); !res.Ok || !strings.Contains(res.Text, "again") {
		t.Fatalf("the next call: ok=%v %q %q", res.Ok, res.Text, res.Message)
	}
}

// A required sandbox that cannot start fails the call with how to install
// it, and runs nothing.
func TestSandboxRequiredWithoutBwrap(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	bin := t.TempDir()
	if err := os.Symlink(bash, filepath.Join(bin, "bash")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	proc := plugin.NewOSProcFindingBwrap(func() (string, error) { return "", bwrap.ErrNotFound })
	t.Cleanup(proc.Close)
	f := newFixture(t, nil, plugintest.WithProc(proc))
	f.sandbox(true)
	res := f.c.Call("Bash", run("echo hi > x"))
	if res.Ok || !strings.Contains(res.Message, "kernel sandbox is required") || !strings.Contains(res.Message, "apt-get install bubblewrap") {
		t.Fatalf("ok=%v msg=%q", res.Ok, res.Message)
	}
	if _, err := os.Stat(filepath.Join(f.c.Cwd, "x")); !os.IsNotExist(err) {
		t.Fatal("the command ran unsandboxed")
	}
	f.c.Sandbox.Required = false
	if res := f.c.Call("Bash", run("echo hi > x")); !res.Ok {
		t.Fatalf("a sandbox that is not required falls back: %q", res.Message)
	}
}
