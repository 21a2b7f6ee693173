package procguard

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// treeSupported: Linux has child subreapers.
const treeSupported = true

// treeKillBound is how long a tree guard keeps killing a tree that will
// not die (a process in uninterruptible sleep) before it gives up.
const treeKillBound = 5 * time.Second

// runTree is a Tree guard's main: argv is the command's path and then its
// argv. It runs the command as its child, in a process group of its own,
// and returns the command's exit status (128 plus the signal for a command
// killed by one) once nothing of the tree is left. Its lifeline is fd 3.
func runTree(argv []string) int {
	if len(argv) < 2 {
		fmt.Fprintln(os.Stderr, "procguard: no command to guard")
		return 127
	}
	lifeline := os.NewFile(3, "lifeline")
	if lifeline == nil {
		fmt.Fprintln(os.Stderr, "procguard: no lifeline")
		return 127
	}
	syscall.CloseOnExec(3)
	// Orphans of the tree become the guard's children, not init's, so that
	// however they detach they stay within reach.
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		fmt.Fprintln(os.Stderr, "procguard: cannot become a child subreaper:", err)
		return 127
	}
	// Caught, not ignored: an ignored signal would stay ignored in the
	// command. SIGTERM ends the tree; the others reach only the guard.
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	signal.Notify(make(chan os.Signal, 1), syscall.SIGINT, syscall.SIGHUP, syscall.SIGPIPE, syscall.SIGQUIT)

	pid, err := syscall.ForkExec(argv[0], argv[1:], &syscall.ProcAttr{
		Env:   withoutEnv(os.Environ()),
		Files: []uintptr{0, 1, 2},
		// The command dies with the guard if the guard is killed outright.
		Sys: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "procguard: cannot start %s: %v\n", argv[0], err)
		return 127
	}
	exited := make(chan int, 1)
	reaped := make(chan struct{}, 1)
	gone := make(chan struct{})
	go reap(pid, exited, reaped, gone)
	dead := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, lifeline)
		close(dead)
	}()
	code := 128 + int(syscall.SIGKILL)
	select {
	case code = <-exited:
	case <-dead:
	case <-term:
	}
	killTree(reaped, gone)
	return code
}

// reap waits for every child, the command's and the orphans it adopts,
// sends the command's status on exited, pulses reaped at each, and closes
// gone once the guard has no child left, which for a subreaper means no
// descendant left.
func reap(cmd int, exited chan<- int, reaped chan<- struct{}, gone chan<- struct{}) {
	defer close(gone)
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, 0, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return // ECHILD
		}
		if pid == cmd {
			if ws.Signaled() {
				exited <- 128 + int(ws.Signal())
			} else {
				exited <- ws.ExitStatus()
			}
		}
		select {
		case reaped <- struct{}{}:
		default:
		}
	}
}

// killTree kills every descendant of the guard, round after round, until
// none is left: a process forked during a round is found in the next,
// since its parent's death makes it the guard's child.
func killTree(reaped <-chan struct{}, gone <-chan struct{}) {
	self := os.Getpid()
	deadline := time.NewTimer(treeKillBound)
	defer deadline.Stop()
	for {
		for _, pid := range descendants(self) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		// A round ends when a child is reaped, or after a moment when a
		// grandchild died whose parent is still dying.
		tick := time.NewTimer(10 * time.Millisecond)
		select {
		case <-gone:
			tick.Stop()
			return
		case <-deadline.C:
			tick.Stop()
			fmt.Fprintln(os.Stderr, "procguard: processes of the command would not die")
			return
		case <-reaped:
		case <-tick.C:
		}
		tick.Stop()
	}
}

// descendants lists the processes below pid, read from /proc.
func descendants(pid int) []int {
	children := map[int][]int{}
	for _, p := range allPIDs() {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(p) + "/stat")
		if err != nil {
			continue // gone meanwhile
		}
		if ppid, ok := parseStatPPID(b); ok {
			children[ppid] = append(children[ppid], p)
		}
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// allPIDs lists the processes /proc shows, or none where it cannot be read.
func allPIDs() []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	pids := make([]int, 0, len(ents))
	for _, ent := range ents {
		if p, ok := atoiPID(ent.Name()); ok {
			pids = append(pids, p)
		}
	}
	return pids
}
