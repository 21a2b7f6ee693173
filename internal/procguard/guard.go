package procguard

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

// Guard is a small process that outlives its owner by a moment. The owner
// tells it, over a pipe, which process groups it started and which are
// gone. When the pipe closes, because the owner exited or was killed with
// SIGKILL, the guard kills every group still registered and exits.
// Pdeathsig alone reaches only the owner's direct child, not the processes
// a shell command forks. A nil *Guard does nothing.
type Guard struct {
	log hclog.Logger
	env []string

	mu      sync.Mutex
	started bool
	w       io.WriteCloser
}

// New returns a guard that starts on first use, with env (without Env) as
// its environment.
func New(log hclog.Logger, env []string) *Guard { return &Guard{log: log, env: env} }

// Add registers a process group to kill if the owner dies.
func (g *Guard) Add(pgid int) { g.send('+', pgid) }

// Remove unregisters a process group that is gone.
func (g *Guard) Remove(pgid int) { g.send('-', pgid) }

// Ready starts the guard if it is not running yet. An owner calls it
// before it starts a command: starting the guard takes a fork and an exec,
// and an owner killed during them, after its command had started but
// before the command was registered, would leave the command's group
// behind.
func (g *Guard) Ready() {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.startLocked()
}

func (g *Guard) startLocked() {
	if !g.started {
		g.started = true
		g.w = g.start()
	}
}

func (g *Guard) send(op byte, pgid int) {
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
// standalone plugin and `riot __plugin NAME` reach Main, which runs the
// guard instead of serving. It is started on first use, so owners that
// start no processes never pay for it.
func (g *Guard) start() io.WriteCloser {
	exe, err := os.Executable()
	if err != nil {
		g.log.Warn("cannot start the process guard; tool processes may outlive the plugin", "error", err)
		return nil
	}
	cmd := exec.Command(exe, os.Args[1:]...)
	cmd.Env = append(withoutEnv(g.env), Env+"=1")
	cmd.Stderr = os.Stderr
	// Its own group, so a signal to the owner's group does not reach it.
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

// IsGuard reports whether this process was started as a Guard.
func IsGuard() bool { return os.Getenv(Env) == "1" }

// RunGuard is a Guard's main: it records groups until its input ends, then
// kills them all.
func RunGuard(in io.Reader) {
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

// withoutEnv is environ without the guard mark, so that nothing a guard
// starts believes it is one.
func withoutEnv(environ []string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		if len(kv) > len(Env) && kv[:len(Env)+1] == Env+"=" {
			continue
		}
		out = append(out, kv)
	}
	return out
}
