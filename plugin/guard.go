package plugin

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"sync"
	"syscall"

	"github.com/hashicorp/go-hclog"
)

// guardEnv marks a re-executed plugin binary as its plugin's process guard.
const guardEnv = "RIOT_PROC_GUARD"

// guard is a small process that outlives its plugin by a moment. The plugin
// tells it, over a pipe, which process groups its tools started and which
// are gone. When the pipe closes, because the plugin exited or was killed
// with SIGKILL, the guard kills every group still registered and exits.
// Pdeathsig alone reaches only a tool's direct child, not the processes a
// shell command forks.
type guard struct {
	log hclog.Logger

	mu      sync.Mutex
	started bool
	w       io.WriteCloser
}

func newGuard(log hclog.Logger) *guard { return &guard{log: log} }

func (g *guard) add(pgid int)    { g.send('+', pgid) }
func (g *guard) remove(pgid int) { g.send('-', pgid) }

// ready starts the guard if it is not running yet. Start calls it before
// it starts a command: starting the guard takes a fork and an exec, and a
// plugin killed during them, after its command had started but before the
// command was registered, would leave the command's group behind.
func (g *guard) ready() {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.startLocked()
}

func (g *guard) startLocked() {
	if !g.started {
		g.started = true
		g.w = g.start()
	}
}

func (g *guard) send(op byte, pgid int) {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.startLocked()
	if g.w == nil {
		return
	}
	if _, err := fmt.Fprintf(g.w, "%c%d\n", op, pgid); err != nil {
		g.log.Warn("process guard is gone; tool processes may outlive the plugin", "error", err)
		g.w = nil
	}
}

// start re-executes this binary with the same arguments, so that both a
// standalone plugin and `riot __plugin NAME` reach Serve, which runs the
// guard instead of serving. It is started on first use, so plugins that
// start no processes never pay for it.
func (g *guard) start() io.WriteCloser {
	exe, err := os.Executable()
	if err != nil {
		g.log.Warn("cannot start the process guard; tool processes may outlive the plugin", "error", err)
		return nil
	}
	cmd := exec.Command(exe, os.Args[1:]...)
	cmd.Env = append(ChildEnv(os.Environ()), guardEnv+"=1")
	cmd.Stderr = os.Stderr
	// Its own group, so a signal to the plugin's group does not reach it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	w, err := cmd.StdinPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		g.log.Warn("cannot start the process guard; tool processes may outlive the plugin", "error", err)
		return nil
	}
	// Reap it if it ever exits first; it is not waited for otherwise.
	go func() { _ = cmd.Wait() }()
	return w
}

// isGuard reports whether this process was started as a guard.
func isGuard() bool { return os.Getenv(guardEnv) == "1" }

// runGuard is the guard's main: it records groups until its input ends,
// then kills them all.
func runGuard(in io.Reader) {
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE)
	groups := map[int]bool{}
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		line := sc.Text()
		if len(line) < 2 {
			continue
		}
		pgid, err := strconv.Atoi(line[1:])
		if err != nil || pgid <= 1 {
			continue
		}
		switch line[0] {
		case '+':
			groups[pgid] = true
		case '-':
			delete(groups, pgid)
		}
	}
	for pgid := range groups {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
}
