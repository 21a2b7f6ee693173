package procguard

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"sync"
	"syscall"

	"github.com/hashicorp/go-hclog"
)

// Guard is a small process that outlives its owner by a moment. The owner
// tells it, over a pipe, which process groups it started and which are
// gone, and marks the commands it starts with the Guard's tag (Env). When
// the pipe closes, because the owner exited or was killed with SIGKILL,
// the guard kills every group still registered and every process that
// carries the tag, and exits. Pdeathsig alone reaches only the owner's
// direct child, not the processes a shell command forks; the tag reaches
// what a command forked before the owner could register its group, in the
// moment between a command's start and its registration. A nil *Guard
// does nothing.
type Guard struct {
	log hclog.Logger
	env []string

	mu      sync.Mutex
	started bool
	w       io.WriteCloser
	// tag is the variable Env adds, "" until the guard runs.
	tag string
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
		if g.w != nil {
			g.tag = newTag()
			if g.tag != "" {
				g.writeLocked("=" + g.tag + "\n")
			}
		}
	}
}

// Env returns env, a command's environment, with the guard's tag added,
// starting the guard if it is not running. An owner calls it just before
// it starts the command, whose environment it then is. Where the guard
// does not run, env is returned as it is.
func (g *Guard) Env(env []string) []string {
	if g == nil {
		return env
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.startLocked()
	if g.w == nil || g.tag == "" {
		return env
	}
	// Clipped, so that the append copies: the caller's slice may be shared.
	return append(slices.Clip(env), g.tag+"=1")
}

// writeLocked sends one line; a guard that is gone is reported once.
func (g *Guard) writeLocked(line string) {
	if g.w == nil {
		return
	}
	if _, err := io.WriteString(g.w, line); err != nil {
		g.log.Warn("process guard is gone; tool processes may outlive the plugin", "error", err)
		g.w = nil
	}
}

func (g *Guard) send(op byte, pgid int) {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.startLocked()
	g.writeLocked(string(op) + strconv.Itoa(pgid) + "\n")
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

// RunGuard is a Guard's main: it records groups and its tag until its
// input ends, then kills the groups and the tagged processes.
func RunGuard(in io.Reader) {
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE)
	groups := map[int]bool{}
	tag := ""
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		line := sc.Text()
		if len(line) < 2 {
			continue
		}
		if line[0] == '=' {
			// Only a tag as newTag makes them: a Guard kills whatever
			// carries it, and a short or common name could be anyone's.
			if validTag(line[1:]) {
				tag = line[1:]
			}
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
	if tag != "" {
		killTagged(tag)
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
