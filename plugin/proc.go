package plugin

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"

	"github.com/riot-tools/riot/internal/bwrap"
	"github.com/riot-tools/riot/internal/procguard"
	"github.com/riot-tools/riot/plugin/sandbox"
	"github.com/riot-tools/riot/shared"
)

// Proc is a tool's access to subprocesses, injected so that tools that
// touch no processes can be tested with NullProc.
type Proc interface {
	// Start starts cmd as the leader of a process group of its own, in the
	// call's kernel sandbox when the host sent one. When ctx
	// ends, the whole group gets SIGTERM and, after a short grace, SIGKILL.
	// When the plugin dies by any means, SIGKILL included, the group is
	// killed too. Build cmd with exec.Command, not exec.CommandContext,
	// which would kill only the leader. A nil cmd.Env means the plugin's
	// environment without riot's plugin-protocol variables. A sandbox the
	// profile requires but that cannot start is a *sandbox.UnavailableError,
	// whose text is for the model.
	Start(ctx context.Context, cmd *exec.Cmd) (Process, error)
}

// SandboxingProc is a Proc that can run its processes in a sandbox
// profile. The SDK gives each call's Env the Proc of the call's profile.
type SandboxingProc interface {
	Proc
	// Sandboxed returns a Proc whose processes run in profile; nil means
	// unconfined.
	Sandboxed(profile *sandbox.Profile) Proc
}

// SharingProc is a Proc that can start a command in a long-lived sandbox
// of the call's profile, which costs a fork and an exec instead of a
// bwrap start. Use it through StartShared.
type SharingProc interface {
	Proc
	// StartShared is Start, except that where the call has a sandbox the
	// command may run in a long-lived one. Then cmd.Process and
	// cmd.ProcessState stay nil: the status is in Wait's error (read it
	// with ExitStatus), a sandbox that ended under the command is a
	// *sandbox.LostError whose text is for the model, and Pid names the
	// command inside the sandbox only. A command whose standard streams
	// are not files (or nil) gets a sandbox of its own.
	StartShared(ctx context.Context, cmd *exec.Cmd) (Process, error)
}

// StartShared starts cmd with proc's StartShared where it has one, and
// with Start otherwise.
func StartShared(ctx context.Context, proc Proc, cmd *exec.Cmd) (Process, error) {
	if sp, ok := proc.(SharingProc); ok {
		return sp.StartShared(ctx, cmd)
	}
	return proc.Start(ctx, cmd)
}

// ExitStatus reads the error of a Process's Wait: the wait status, and
// false when the process did not report one (it could not be waited for,
// or its sandbox ended under it).
func ExitStatus(err error) (syscall.WaitStatus, bool) {
	if err == nil {
		return 0, true
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		ws, ok := exit.Sys().(syscall.WaitStatus)
		return ws, ok
	}
	var shared *sandbox.ExitError
	if errors.As(err, &shared) {
		return shared.Status, true
	}
	return 0, false
}

// SandboxedProcess is a Process that can say whether it runs in the kernel
// sandbox. A sandboxed process leaves nothing running once it has exited,
// so a tool need not look for survivors.
type SandboxedProcess interface {
	Sandboxed() bool
}

// Process is a started subprocess and its process group.
type Process interface {
	Pid() int
	// Signal sends sig to the whole process group.
	Signal(sig syscall.Signal) error
	// Wait waits for the leader to exit, like exec.Cmd.Wait. Members of the
	// group that outlive the leader stay killable with Signal.
	Wait() error
}

// DefaultKillGrace is how long a process group has between SIGTERM and
// SIGKILL when its call's context ends. Cancellation must end a call within
// a second.
const DefaultKillGrace = 500 * time.Millisecond

// OSProc starts real processes.
type OSProc struct {
	// KillGrace overrides DefaultKillGrace.
	KillGrace time.Duration
	// guard kills the groups still registered when the plugin dies. Serve
	// sets it; in tests it is nil and each test kills what it started.
	guard *procguard.Guard
	// profile is the sandbox of the call this Proc serves; nil is none.
	profile *sandbox.Profile
	// findBwrap is bwrap.Find, resolved once and shared by every call's
	// copy. The host probed that bwrap starts a sandbox here before it
	// sent a profile, so the SDK needs only the path.
	findBwrap func() (string, error)
	// pool holds the long-lived sandboxes, shared by every call's copy.
	pool *sandbox.Pool
	log  hclog.Logger
}

var (
	_ SandboxingProc = (*OSProc)(nil)
	_ SharingProc    = (*OSProc)(nil)
)

// NewOSProc returns a Proc for tests and hosts that serve tools in-process;
// it has no process guard. Close ends the sandboxes it keeps.
func NewOSProc() *OSProc { return newOSProc(nil, nil) }

// NewOSProcFindingBwrap is NewOSProc resolving bwrap with find, once,
// instead of bwrap.Find: for tests that stand for a machine without bwrap
// or with a broken one (bwrap is found in the system directories only, so
// no PATH hides it).
func NewOSProcFindingBwrap(find func() (string, error)) *OSProc {
	p := newOSProc(nil, nil)
	p.findBwrap = sync.OnceValues(find)
	return p
}

func newOSProc(g *procguard.Guard, log hclog.Logger) *OSProc {
	return &OSProc{guard: g, findBwrap: sync.OnceValues(bwrap.Find), pool: &sandbox.Pool{Started: g.Add, Ended: g.Remove}, log: log}
}

// Close ends the long-lived sandboxes and every command still in them.
func (p *OSProc) Close() {
	if p.pool != nil {
		p.pool.Close()
	}
}

// Sandboxed implements SandboxingProc.
func (p *OSProc) Sandboxed(profile *sandbox.Profile) Proc {
	q := *p
	q.profile = profile
	if q.findBwrap == nil {
		q.findBwrap = sync.OnceValues(bwrap.Find)
	}
	return &q
}

// StartShared implements SharingProc. Where the long-lived sandbox cannot
// take cmd, or cannot run here at all, cmd gets a bwrap of its own.
func (p *OSProc) StartShared(ctx context.Context, cmd *exec.Cmd) (Process, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if p.profile == nil || p.pool == nil {
		return p.Start(ctx, cmd)
	}
	bin, err := p.findBwrap()
	if err != nil {
		return p.Start(ctx, cmd)
	}
	if cmd.Env == nil {
		cmd.Env = ChildEnv(os.Environ())
	}
	if cmd.Err != nil {
		return nil, cmd.Err
	}
	// The guard runs before the sandbox does, as in Start.
	p.guard.Ready()
	proc, err := p.pool.Start(bin, p.profile, cmd)
	var lost *sandbox.LostError
	var setup *sandbox.SetupError
	switch {
	case errors.As(err, &lost):
		return nil, err
	case errors.As(err, &setup):
		// The command runs in a bwrap of its own, without what only the
		// long-lived sandbox needs; should that fail too, the model is
		// told what the long-lived one could not mount.
		if p.log != nil {
			p.log.Debug("the long-lived sandbox could not be set up; running in a sandbox of its own", "why", err.Error())
		}
		return p.start(ctx, cmd, setup)
	case err != nil:
		if p.log != nil {
			p.log.Debug("running in a sandbox of its own", "why", err.Error())
		}
		return p.Start(ctx, cmd)
	}
	go stopOnCancel(ctx, proc, proc.Done(), p.grace())
	return proc, nil
}

func (p *OSProc) grace() time.Duration {
	if p.KillGrace > 0 {
		return p.KillGrace
	}
	return DefaultKillGrace
}

// Start implements Proc.
func (p *OSProc) Start(ctx context.Context, cmd *exec.Cmd) (Process, error) {
	return p.start(ctx, cmd, nil)
}

// start is Start; known is what a sandbox of the same profile could not
// mount, if that is known, for the model should this one fail too.
func (p *OSProc) start(ctx context.Context, cmd *exec.Cmd, known *sandbox.SetupError) (Process, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// Before the sandbox takes from it what the profile hides.
	if cmd.Env == nil {
		cmd.Env = ChildEnv(os.Environ())
	}
	watch, err := p.confine(cmd)
	if err != nil {
		return nil, err
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	// A session of its own, sandboxed or not: a command never has the
	// user's controlling terminal, so it cannot push input into the
	// user's shell (TIOCSTI) nor read the terminal. A session leader
	// leads its process group too, so the group is still the command's
	// and is signalled as one. bwrap's --new-session does the same inside.
	cmd.SysProcAttr.Setsid = true
	cmd.SysProcAttr.Setpgid = false
	setDeathSignal(cmd.SysProcAttr)
	// The guard runs before the command does, so that registering the
	// command's group is one write, not a guard start. Its tag marks all
	// the command forks, even before that write, should the plugin die
	// between the command's start and its registration.
	cmd.Env = p.guard.Env(cmd.Env)
	err = cmd.Start()
	if watch != nil {
		watch.Started(err)
	}
	if err != nil {
		return nil, err
	}
	proc := &osProcess{cmd: cmd, pgid: cmd.Process.Pid, guard: p.guard, done: make(chan struct{}), sandboxed: watch != nil, watch: watch, known: known}
	p.guard.Add(proc.pgid)
	go stopOnCancel(ctx, proc, proc.done, p.grace())
	return proc, nil
}

// confine rewrites cmd to run in the call's sandbox. Where bwrap cannot
// run, a required sandbox is an error and any other runs unconfined: the
// host warned the user once when it found bwrap missing. Unconfined, the
// command still goes without the variables the profile hides, and
// without riot's proxy, which it could not reach.
//
// The Watch it returns for a sandboxed command tells a sandbox that could
// not be set up from a command that failed, and ends the sandbox with
// bwrap; nil is unconfined.
func (p *OSProc) confine(cmd *exec.Cmd) (*sandbox.Watch, error) {
	if p.profile == nil {
		return nil, nil
	}
	bin, err := p.findBwrap()
	if err != nil {
		if p.profile.Required {
			return nil, &sandbox.UnavailableError{Why: err.Error()}
		}
		if p.log != nil {
			p.log.Debug("running unsandboxed: bwrap cannot start", "why", err.Error())
		}
		cmd.Env = sandbox.HideEnv(p.profile, cmd.Env)
		return nil, nil
	}
	return sandbox.WrapWatched(p.profile, bin, cmd)
}

type osProcess struct {
	// sandboxed: the process runs in a PID namespace of its own, which
	// ends everything it started when it exits.
	sandboxed bool
	// watch follows the bwrap of a sandboxed process; known is what a
	// sandbox of its profile could not mount, if known.
	watch    *sandbox.Watch
	known    *sandbox.SetupError
	cmd      *exec.Cmd
	pgid     int
	guard    *procguard.Guard
	done     chan struct{}
	waitOnce sync.Once
	waitErr  error
}

func (p *osProcess) Pid() int { return p.pgid }

// Sandboxed implements SandboxedProcess.
func (p *osProcess) Sandboxed() bool { return p.sandboxed }

func (p *osProcess) Signal(sig syscall.Signal) error {
	if p.sandboxed && sig == syscall.SIGTERM {
		// The group is bwrap's, never the command's (a session of its own
		// in the sandbox), so SIGTERM reaches no command; and while bwrap
		// sets the sandbox up, the namespace's first process is in this
		// group but, as a PID namespace's init, deaf to SIGTERM: it would
		// outlive bwrap, which is how sandboxes were left running. SIGKILL
		// ends both; End ends the first process after it left the group.
		sig = syscall.SIGKILL
	}
	err := syscall.Kill(-p.pgid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

func (p *osProcess) Wait() error {
	p.waitOnce.Do(func() {
		p.waitErr = p.cmd.Wait()
		if p.watch != nil {
			// What bwrap left of the sandbox ends with it, and a sandbox
			// that never ran the command says so in riot's words.
			p.watch.End()
			p.waitErr = p.watch.Check(p.waitErr, p.known)
		}
		close(p.done)
		// Unregister only a group that is gone, so a pgid recycled later is
		// never killed by the guard; a group with survivors stays guarded.
		if errors.Is(syscall.Kill(-p.pgid, 0), syscall.ESRCH) {
			p.guard.Remove(p.pgid)
		}
	})
	return p.waitErr
}

// stopOnCancel stops p's group when ctx ends before done closes: SIGTERM,
// then SIGKILL after grace.
func stopOnCancel(ctx context.Context, p Process, done <-chan struct{}, grace time.Duration) {
	select {
	case <-done:
		return
	case <-ctx.Done():
	}
	_ = p.Signal(syscall.SIGTERM)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
	// The leader may be gone while the rest of its group lingers.
	_ = p.Signal(syscall.SIGKILL)
}

// protocolEnv are the variables a plugin receives to speak to its host;
// a tool's subprocesses never inherit them.
var protocolEnv = []string{
	shared.Handshake.MagicCookieKey,
	shared.TLSEnv,
	procguard.Env,
	shared.OneShotEnv,
	"PLUGIN_MIN_PORT",
	"PLUGIN_MAX_PORT",
	"PLUGIN_PROTOCOL_VERSIONS",
	"PLUGIN_CLIENT_CERT",
	"PLUGIN_MULTIPLEX_GRPC",
	goplugin.EnvUnixSocketDir,
	goplugin.EnvUnixSocketGroup,
}

// ChildEnv is environ without riot's plugin-protocol variables.
func ChildEnv(environ []string) []string {
	out := make([]string, 0, len(environ))
next:
	for _, kv := range environ {
		for _, k := range protocolEnv {
			if strings.HasPrefix(kv, k+"=") {
				continue next
			}
		}
		out = append(out, kv)
	}
	return out
}
