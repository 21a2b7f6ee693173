package main_test

import (
	"bufio"
	"fmt"
	"os"
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
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := e.command("", args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	pids := make(chan string, 1)
	go func() {
		f, err := os.Open(fifo) // blocks until the call opens it to write
		if err != nil {
			pids <- ""
			return
		}
		defer f.Close()
		line, _ := bufio.NewReader(f).ReadString('\n')
		pids <- strings.TrimSpace(line)
	}()
	select {
	case s := <-pids:
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("read %q from the FIFO", s)
		}
		return cmd.Process.Pid, n
	case err := <-exited:
		exited <- err // for the cleanup
		// Unblock the reader.
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
		t.Fatalf("riot exited before the call started: %v\n%s", err, stderr.String())
	}
	return 0, 0
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
