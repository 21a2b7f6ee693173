package hook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// exec runs a command hook: exit 0 is Done with stdout as the answer,
// exit 2 Blocked with stderr as the reason, anything else a failure.
func (r *Runner) exec(ctx context.Context, h Handler, input []byte) (Result, []byte, bool) {
	var cmd *exec.Cmd
	if len(h.Args) > 0 {
		cmd = exec.CommandContext(ctx, h.Args[0], h.Args[1:]...)
	} else {
		cmd = exec.CommandContext(ctx, "sh", "-c", h.Command)
	}
	cmd.Dir = r.Dir
	cmd.Env = r.Env
	cmd.Stdin = bytes.NewReader(input)
	var stdout, stderr capped
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// Its own process group, killed whole on timeout, and dead with riot.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setDeathSignal(cmd.SysProcAttr)
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	// Under the guard, the whole tree ends with the hook, on timeout, and
	// with riot however riot dies, whatever left the group.
	guarded := r.Guard != nil && r.Guard.Enabled()
	release := func() {}
	if r.Guard != nil {
		var err error
		if release, err = r.Guard.Wrap(cmd); err != nil {
			return Fail(h, "it could not be started"), nil, false
		}
	}
	defer release()
	// A grandchild that left the group may hold the pipes open.
	cmd.WaitDelay = 2 * time.Second
	err := cmd.Run()
	if cmd.Process != nil && !guarded {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // what it left in its group
	}
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return Result{Status: Failed}, nil, false // Run reads the context
	case err == nil:
		return Result{Status: Done}, stdout.bytes(), stdout.over()
	case errors.As(err, &exit) && exit.ExitCode() == 2:
		reason := strings.TrimSpace(stderr.String())
		if stderr.over() {
			reason += fmt.Sprintf(" [cut: the hook wrote more than %s, and riot keeps that much]", size(OutputCap))
		}
		return Result{Status: Blocked, Reason: reason}, nil, false
	case errors.As(err, &exit):
		return Fail(h, fmt.Sprintf("it exited with status %d%s", exit.ExitCode(), note(stderr.String()))), nil, false
	default:
		return Fail(h, "it could not be started"+note(err.Error())), nil, false
	}
}

// capped keeps the first OutputCap bytes written to it and discards the
// rest, so that a hook never blocks on a full pipe.
type capped struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	lost bool // bytes past the cap were discarded
}

func (b *capped) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	room := max(0, OutputCap-b.buf.Len())
	b.buf.Write(p[:min(len(p), room)])
	b.lost = b.lost || len(p) > room
	return len(p), nil
}

func (b *capped) over() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.lost
}

func (b *capped) String() string { return string(b.bytes()) }

func (b *capped) bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return bytes.Clone(b.buf.Bytes())
}
