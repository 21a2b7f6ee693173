// Package proctest finds and waits for processes by their host pid, for
// the tests that prove a command, a hook or a sandbox leaves nothing
// running: they are in several packages, and each needs the same two
// questions answered without sleeping.
package proctest

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// HostPIDs are the processes whose command line is exactly argv, as this
// process's /proc shows them. An unreadable /proc fails the test: an empty
// answer would pass a test that nothing is left.
func HostPIDs(tb testing.TB, argv ...string) []int {
	tb.Helper()
	want := strings.Join(argv, "\x00") + "\x00"
	entries, err := os.ReadDir("/proc")
	if err != nil {
		tb.Fatal(err)
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && string(b) == want {
			pids = append(pids, pid)
		}
	}
	return pids
}

// WaitExit waits on a pidfd, without polling, until pid has exited or
// within is up; it reports whether the process is gone.
func WaitExit(pid int, within time.Duration) bool {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		// ESRCH: it is already gone.
		return err == unix.ESRCH
	}
	defer unix.Close(fd)
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, int(within.Milliseconds()))
		if err == unix.EINTR {
			continue
		}
		return err == nil && n == 1
	}
}
