package proctest

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// Subreap makes this process the subreaper of every process it starts,
// however deep: one whose parent dies is reparented here, not to init, so
// that LeftSandboxes still finds it. Call it first thing in TestMain.
func Subreap() error {
	return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
}

// LeftSandboxes waits up to within for the bwrap processes this process
// started (its descendants, orphans included once Subreap ran) to end, and
// returns those still running, SIGKILLed so they do not outlive the run.
// A sandbox ends with what ends it (a command, a pool's Close), so any
// left once every test has returned is a leak.
func LeftSandboxes(within time.Duration) []string {
	deadline := time.Now().Add(within)
	var left []string
	for _, pid := range descendants("bwrap") {
		if WaitExit(pid, time.Until(deadline)) {
			continue
		}
		cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		left = append(left, fmt.Sprintf("%d (%s)", pid, bytes.ReplaceAll(bytes.TrimRight(cmdline, "\x00"), []byte{0}, []byte{' '})))
		_ = unix.Kill(pid, unix.SIGKILL)
	}
	return left
}

// CheckSandboxes is TestMain's end: code, or 1 with the leaks on stderr
// when bwrap processes outlived the tests.
func CheckSandboxes(code int) int {
	if left := LeftSandboxes(5 * time.Second); len(left) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: sandbox processes outlived the tests that started them:\n")
		for _, l := range left {
			fmt.Fprintln(os.Stderr, "  "+l)
		}
		return 1
	}
	return code
}

// descendants are the live processes named comm whose parent chain leads
// to this process.
func descendants(comm string) []int {
	self := os.Getpid()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		name, state, _, ok := stat(pid)
		if !ok || name != comm || state == 'Z' || state == 'X' {
			continue
		}
		for p, hops := pid, 0; p > 1 && hops < 64; hops++ {
			_, _, ppid, ok := stat(p)
			if !ok {
				break
			}
			if ppid == self {
				out = append(out, pid)
				break
			}
			p = ppid
		}
	}
	return out
}

// stat reads a process's name, state and parent from /proc.
func stat(pid int) (comm string, state byte, ppid int, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return "", 0, 0, false
	}
	open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || end < open {
		return "", 0, 0, false
	}
	f := bytes.Fields(b[end+1:])
	if len(f) < 2 || len(f[0]) != 1 {
		return "", 0, 0, false
	}
	ppid, err = strconv.Atoi(string(f[1]))
	return string(b[open+1 : end]), f[0][0], ppid, err == nil
}
