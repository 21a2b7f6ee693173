package main_test

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/riot-tools/riot/internal/proctest"
)

// readPID starts riot with args and reads the pid its call writes to the
// FIFO at fifo. It fails the test if riot exits first.
func readPID(t *testing.T, e *env, fifo string, args ...string) (riotPID, pid int) {
	t.Helper()
	makeFifo(t, fifo)
	cmd := e.command("", args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	p := startProc(t, cmd)
	s := strings.TrimSpace(p.readFifo(t, fifo, stderr.String))
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("read %q from the FIFO", s)
	}
	return p.Process.Pid, n
}

// Killing riot with SIGKILL mid-call leaves no plugin process: Pdeathsig
// takes the plugin down with it.
func TestNoOrphanPlugins(t *testing.T) {
	e := newEnv(t)
	e.enableTestkit()
	fifo := filepath.Join(t.TempDir(), "pid")
	riotPID, pluginPID := readPID(t, e, fifo, "call", "Block", fmt.Sprintf(`{"pid_file":%q,"safe":true}`, fifo))
	if err := syscall.Kill(riotPID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if !proctest.WaitExit(pluginPID, 3*time.Second) {
		t.Fatalf("plugin %d outlived riot by 3 s", pluginPID)
	}
}

// Killing riot with SIGKILL while Bash runs a command leaves no process
// that command started, grandchildren included: the plugin dies with
// riot, and its guard kills the command's process group.
func TestNoOrphanCommands(t *testing.T) {
	e := newEnv(t)
	e.sandboxOff()
	fifo := filepath.Join(t.TempDir(), "pid")
	cmd := fmt.Sprintf(`sleep 300 & echo $! > %s; wait`, fifo)
	input := fmt.Sprintf(`{"command":%q}`, cmd)
	riotPID, sleepPID := readPID(t, e, fifo, "call", "Bash", input, "--mode", "bypassPermissions")
	if err := syscall.Kill(riotPID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if !proctest.WaitExit(sleepPID, 3*time.Second) {
		t.Fatalf("sleep %d outlived riot by 3 s", sleepPID)
	}
}
