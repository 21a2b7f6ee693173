package diagnostics

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/riot-tools/riot/plugin"
)

const (
	// DefaultTimeout bounds one checker run. A cold `cargo check` of a large
	// workspace takes minutes; past this the model is better served by a
	// narrower path.
	DefaultTimeout = 5 * time.Minute
	// maxStreamBytes caps what is kept of each of the checker's streams. The
	// rest is drained and dropped, so a runaway checker cannot exhaust the
	// plugin's memory; the result then says it is incomplete.
	maxStreamBytes = 64 << 20
	// waitDelay is how long Wait keeps reading after the checker exits, for
	// output still held by processes it left behind; they are killed after.
	waitDelay = time.Second
	// deadlineMargin is kept before the host's deadline, so the tool can
	// stop the checker and say it timed out before the host gives up.
	deadlineMargin = time.Second
)

// runResult is how a checker run ended.
type runResult struct {
	Stdout, Stderr []byte
	// Cut reports that a stream passed maxStreamBytes.
	Cut bool
	// ExitCode is the exit status, or -1 when a signal ended the checker.
	ExitCode int
	Signal   string
	Duration time.Duration
	// Timeout is the limit that applied; TimedOut reports it was hit.
	Timeout  time.Duration
	TimedOut bool
	// Cancelled reports that the caller ended the call.
	Cancelled bool
	// StartErr is set when the checker could not be started at all.
	StartErr error
}

// observer sees each complete output line as it arrives, for progress.
// stdout tells which stream it came from. It may be called from two
// goroutines at once.
type observer func(stdout bool, line []byte)

// run runs the plan's command in its own process group. The group is killed
// when ctx ends or the timeout passes, and once the checker has exited, so
// nothing it started outlives the call.
func run(ctx context.Context, p *plan, env *plugin.Env, o options, observe observer) runResult {
	timeout := o.timeout
	if !env.Deadline.IsZero() {
		// The host's deadline is wall-clock time, so it is compared with
		// the real clock, not env.Clock.
		if left := time.Until(env.Deadline) - deadlineMargin; left > 0 && left < timeout {
			timeout = left
		}
	}
	res := runResult{Timeout: timeout}
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	stdout := &capture{stdout: true, limit: maxStreamBytes, observe: observe}
	stderr := &capture{limit: maxStreamBytes, observe: observe}
	cmd := exec.Command(p.Binary, p.Args...)
	cmd.Dir = p.Dir
	if o.environ != nil {
		cmd.Env = plugin.ChildEnv(o.environ)
	}
	cmd.Stdout = stdout
	cmd.Stderr = stderr
	cmd.WaitDelay = waitDelay

	clock := env.Clock
	if clock == nil {
		clock = plugin.SystemClock{}
	}
	started := clock.Now()
	// Checkers run build scripts (cargo's build.rs, go's cgo) and write
	// caches and build output, so they get the sandbox of an allowed call
	// even though Diagnostics itself is read-only.
	proc, err := env.ProcIn(env.Sandbox.AllowedCall()).Start(runCtx, cmd)
	if err != nil {
		res.StartErr = err
		return res
	}
	_ = proc.Wait()
	// Whatever the checker left running in its group goes with it.
	_ = proc.Signal(syscall.SIGKILL)
	res.Duration = clock.Now().Sub(started)

	res.Stdout, res.Stderr = stdout.bytes(), stderr.bytes()
	res.Cut = stdout.cut || stderr.cut
	// ExitCode is -1 for a nil state too, and when a signal ended it.
	res.ExitCode = cmd.ProcessState.ExitCode()
	if st := cmd.ProcessState; st != nil {
		if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			res.Signal = ws.Signal().String()
		}
	}
	switch {
	case ctx.Err() != nil:
		res.Cancelled = true
	case errors.Is(runCtx.Err(), context.DeadlineExceeded):
		res.TimedOut = true
	}
	return res
}

// capture keeps a stream up to limit bytes and hands each complete line
// to the observer, until the limit is reached.
type capture struct {
	stdout  bool
	limit   int
	observe observer

	mu      sync.Mutex
	buf     bytes.Buffer
	cut     bool
	partial []byte
}

func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := c.limit - c.buf.Len(); len(p) > room {
		c.buf.Write(p[:room])
		c.cut = true
	} else {
		c.buf.Write(p)
	}
	if c.observe != nil && !c.cut {
		c.partial = append(c.partial, p...)
		for {
			i := bytes.IndexByte(c.partial, '\n')
			if i < 0 {
				break
			}
			c.observe(c.stdout, c.partial[:i])
			c.partial = c.partial[i+1:]
		}
		// A line with no end in sight is not progress; stop holding it.
		if len(c.partial) > 1<<20 {
			c.partial = nil
		}
	}
	return len(p), nil
}

func (c *capture) bytes() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.Bytes()
}
