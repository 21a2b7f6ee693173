//go:build linux

package plugin_test

import (
	"context"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/riot-tools/riot/internal/bwrap"
	"github.com/riot-tools/riot/internal/proctest"
	"github.com/riot-tools/riot/plugin"
	"github.com/riot-tools/riot/plugin/sandbox"
)

// A command cancelled while its bwrap starts leaves no sandbox: the
// namespace's first process (in a session of its own, deaf to SIGTERM,
// and missed by --die-with-parent when bwrap dies before it sets it) is
// ended with bwrap.
func TestCancelWhileBwrapStartsLeavesNoSandbox(t *testing.T) {
	if _, err := bwrap.Find(); err != nil {
		if os.Getenv("RIOT_REQUIRE_SANDBOX") != "" {
			t.Fatalf("RIOT_REQUIRE_SANDBOX is set but %v", err)
		}
		t.Skipf("needs bubblewrap: %v", err)
	}
	if err := proctest.Subreap(); err != nil {
		t.Fatal(err)
	}
	proc := plugin.NewOSProc()
	t.Cleanup(proc.Close)
	dir := t.TempDir()
	sp := proc.Sandboxed(&sandbox.Profile{Writable: true, WritePaths: []string{dir}})
	for range 100 {
		ctx, cancel := context.WithCancel(t.Context())
		cmd := exec.Command("/bin/sleep", "300")
		cmd.Dir = dir
		p, err := sp.Start(ctx, cmd)
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		// What a cancellation sends first, once bwrap has made the
		// namespace's first process, which then sets the sandbox up.
		waitChild(t, p.Pid())
		_ = p.Signal(syscall.SIGTERM)
		cancel()
		_ = p.Wait()
	}
	if left := proctest.LeftSandboxes(5 * time.Second); len(left) > 0 {
		t.Fatalf("sandboxes left running: %v", left)
	}
}

// waitChild spins until pid has a child: /proc shows no event to wait on,
// and bwrap makes it within milliseconds of its start.
func waitChild(t *testing.T, pid int) {
	t.Helper()
	path := "/proc/" + strconv.Itoa(pid) + "/task/" + strconv.Itoa(pid) + "/children"
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); {
		if b, err := os.ReadFile(path); err != nil || len(b) > 0 {
			return
		}
		runtime.Gosched()
	}
	t.Fatal("bwrap made no process within 5 s")
}
