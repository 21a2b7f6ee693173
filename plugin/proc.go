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
	// probe is shared by every call's copy, so bwrap is checked once.
	probe *sandbox.Probe
	log   hclog.Logger
}

var _ SandboxingProc = (*OSProc)(nil)

// NewOSProc returns a Proc for tests and hosts that serve tools in-process;
// it has no process guard.
func NewOSProc() *OSProc { return &OSProc{probe: &sandbox.Probe{}} }

// Sandboxed implements SandboxingProc.
func (p *OSProc) Sandboxed(profile *sandbox.Profile) Proc {
	q := *p
	q.profile = profile
	if q.probe == nil {
		q.probe = &sandbox.Probe{}
	}
	return &q
}

// Start implements Proc.
func (p *OSProc) Start(ctx context.Context, cmd *exec.Cmd) (Process, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	sandboxed, err := p.confine(ctx, cmd)
	if err != nil {
		return nil, err
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	setDeathSignal(cmd.SysProcAttr)
	if cmd.Env == nil {
		cmd.Env = ChildEnv(os.Environ())
	}
	// The guard runs before the command does, so that registering the
	// command's group is one write, not a guard start.
	p.guard.Ready()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	proc := &osProcess{cmd: cmd, pgid: cmd.Process.Pid, guard: p.guard, done: make(chan struct{}), sandboxed: sandboxed}
	p.guard.Add(proc.pgid)
	grace := p.KillGrace
	if grace <= 0 {
		grace = DefaultKillGrace
	}
	go proc.killOnCancel(ctx, grace)
	return proc, nil
}

// confine rewrites cmd to run in the call's sandbox. Where bwrap cannot
// run, a required sandbox is an error and any other runs unconfined: the
// host warned the user once when it found bwrap missing.
func (p *OSProc) confine(ctx context.Context, cmd *exec.Cmd) (bool, error) {
	if p.profile == nil {
		return false, nil
	}
	bwrap, err := p.probe.Check(ctx)
	if err != nil {
		if p.profile.Required {
			return false, &sandbox.UnavailableError{Why: err.Error()}
		}
		if p.log != nil {
			p.log.Debug("running unsandboxed: bwrap cannot start", "why", err.Error())
		}
		return false, nil
	}
	p.profile.Wrap(bwrap, cmd)
	return true, nil
}

type osProcess struct {
	// sandboxed: the process runs in a PID namespace of its own, which
	// ends everything it started when it exits.
	sandboxed bool
	cmd       *exec.Cmd
	pgid      int
	guard     *procguard.Guard
	done      chan struct{}
	waitOnce  sync.Once
	waitErr   error
}

func (p *osProcess) Pid() int { return p.pgid }

// Sandboxed implements SandboxedProcess.
func (p *osProcess) Sandboxed() bool { return p.sandboxed }

func (p *osProcess) Signal(sig syscall.Signal) error {
	err := syscall.Kill(-p.pgid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

func (p *osProcess) Wait() error {
	p.waitOnce.Do(func() {
		p.waitErr = p.cmd.Wait()
		close(p.done)
		// Unregister only a group that is gone, so a pgid recycled later is
		// never killed by the guard; a group with survivors stays guarded.
		if errors.Is(syscall.Kill(-p.pgid, 0), syscall.ESRCH) {
			p.guard.Remove(p.pgid)
		}
	})
	return p.waitErr
}

func (p *osProcess) killOnCancel(ctx context.Context, grace time.Duration) {
	select {
	case <-p.done:
		return
	case <-ctx.Done():
	}
	_ = p.Signal(syscall.SIGTERM)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-p.done:
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
