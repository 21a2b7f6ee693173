//go:build linux

package bash

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/riot-tools/riot/plugin/plugintest"
)

// fixture serves the tools over plugintest with real processes, their
// temporary files under t.TempDir().
type fixture struct {
	c    *plugintest.Client
	jobs *jobTable
	tmp  string
}

func newFixture(t *testing.T, mod func(*config), opts ...plugintest.Option) *fixture {
	t.Helper()
	cfg := defaultConfig()
	cfg.tempDir = t.TempDir()
	if mod != nil {
		mod(&cfg)
	}
	set := newToolSet(cfg)
	opts = append([]plugintest.Option{plugintest.WithProc(plugintest.RealProc(t))}, opts...)
	c := plugintest.Serve(t, set.handlers, opts...)
	t.Cleanup(func() {
		// A cancelled call may still be finishing on the plugin's side.
		set.bash.calls.wait()
		left, _ := filepath.Glob(filepath.Join(cfg.tempDir, "riot-bash-cwd-*"))
		if len(left) > 0 {
			t.Errorf("per-call files left behind: %v", left)
		}
	})
	return &fixture{c: c, jobs: set.jobs, tmp: cfg.tempDir}
}

// mkfifo makes a named pipe: opening one blocks until the other end is
// opened, which lets a test wait for a command to reach a point without
// sleeping.
func mkfifo(t *testing.T, name string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := unix.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// readFifoLine opens a fifo, blocking until a command opens it to write,
// and returns the first line written.
func readFifoLine(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer func() { _ = f.Close() }()
	line, err := bufio.NewReader(f).ReadString('\n')
	return strings.TrimSuffix(line, "\n"), err
}

// reach opens a fifo to write, which blocks until the command opens it to
// read: the command has reached that point, and waits there (in `cat
// fifo`) until the returned file is closed.
func reach(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	return f
}

func pids(t *testing.T, fields string) []int {
	t.Helper()
	var out []int
	for _, f := range strings.Fields(fields) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Errorf("not a pid: %q in %q", f, fields)
			continue
		}
		out = append(out, pid)
	}
	return out
}

// alive reports whether pid is a running process: a zombie is dead, and
// orphans stay zombies where init does not reap them.
func alive(pid int) bool {
	state, _, ok := procStat(pid)
	return ok && state != 'Z' && state != 'X'
}

// exitWatch holds pidfds of processes, opened while they run, so their
// exit can be awaited without polling.
type exitWatch map[int]int

func watchExit(t *testing.T, pids ...int) exitWatch {
	t.Helper()
	w := exitWatch{}
	for _, pid := range pids {
		fd, err := unix.PidfdOpen(pid, 0)
		if errors.Is(err, unix.ESRCH) {
			continue // already gone and reaped
		}
		if err != nil {
			t.Errorf("pidfd_open(%d): %v", pid, err)
			continue
		}
		w[pid] = fd
	}
	t.Cleanup(func() {
		for _, fd := range w {
			_ = unix.Close(fd)
		}
	})
	return w
}

// wait returns the pids still running when the deadline passed.
func (w exitWatch) wait(deadline time.Time) []int {
	var left []int
	for pid, fd := range w {
		for {
			ms := int(time.Until(deadline).Milliseconds())
			if ms < 0 {
				ms = 0
			}
			fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
			n, err := unix.Poll(fds, ms)
			if errors.Is(err, unix.EINTR) {
				continue
			}
			if n == 0 && alive(pid) {
				left = append(left, pid)
			}
			break
		}
	}
	return left
}
