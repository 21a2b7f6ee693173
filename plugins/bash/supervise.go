package bash

import (
	"context"
	"io"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/riot-tools/riot/plugin"
	"github.com/riot-tools/riot/plugin/sandbox"
)

// supervised is how a foreground command ended.
type supervised struct {
	waitErr error
	// timedOut: the timeout passed and the group was stopped.
	timedOut bool
	// cancelled: the call's context ended; Proc stopped the group.
	cancelled bool
	// strays: processes the command left behind still held the output
	// pipe after bash exited, so the group was stopped.
	strays bool
	// abandoned: the pipe stayed open after the whole group was killed,
	// held by a process that left the group; its output is dropped.
	abandoned bool
	// survivors: processes the command left behind are still running,
	// with their output elsewhere.
	survivors bool
}

func (s supervised) notes() []string {
	var notes []string
	if s.strays {
		notes = append(notes, "Processes this command left running in the background still wrote to its output, so they were stopped when it ended. To keep a process running, set `run_in_background`, or redirect its output (`cmd > log 2>&1 &`).")
	}
	if s.survivors {
		notes = append(notes, "Processes this command started in the background are still running; they stop when the plugin or the session ends. Prefer `run_in_background`, which lets you read their output with BashOutput and stop them with KillShell.")
	}
	if s.abandoned {
		notes = append(notes, "A process that left the command's process group still held its output; output written after the command ended is not shown.")
	}
	return notes
}

// supervise streams r to out until the command is over, and enforces the
// timeout. The command is over when bash has exited and the output pipe is
// closed, or, failing that:
//   - bash exited but processes it left still hold the pipe after
//     drainGrace: the group is stopped (strays);
//   - the timeout passed: the group is stopped;
//   - ctx ended: Proc stops the group.
//
// Stopping is SIGTERM, then SIGKILL after killGrace. If the pipe is still
// open abandonAfter later, it is held by a process that left the group
// (setsid), and is closed on it.
func supervise(ctx context.Context, cfg config, clock plugin.Clock, proc plugin.Process, r *os.File, out io.Writer, timeout time.Duration) supervised {
	var s supervised
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		copyOutput(out, r)
	}()
	exited := make(chan error, 1)
	go func() { exited <- proc.Wait() }()

	timerCtx, stopTimer := context.WithCancel(ctx)
	defer stopTimer()
	timedOut := make(chan struct{})
	go func() {
		if clock.Sleep(timerCtx, timeout) == nil {
			close(timedOut)
		}
	}()

	var (
		leaderDone, eof, stopping bool
		drain, abandon            <-chan time.Time
		killed                    <-chan struct{}
		ctxDone                   = ctx.Done()
	)
	stop := func() {
		if !stopping {
			stopping = true
			drain = nil
			killed = stopGroup(clock, proc, cfg.killGrace)
		}
	}
	for !leaderDone || !eof {
		select {
		case s.waitErr = <-exited:
			exited, leaderDone = nil, true
			if !eof && !stopping && ctxDone != nil {
				drain = time.After(cfg.drainGrace)
			}
		case <-copied:
			copied, eof = nil, true
		case <-timedOut:
			timedOut, s.timedOut = nil, true
			stop()
		case <-drain:
			drain, s.strays = nil, true
			stop()
		case <-killed:
			killed = nil
			abandon = time.After(cfg.abandonAfter)
		case <-ctxDone:
			ctxDone, s.cancelled, drain = nil, true, nil
			abandon = time.After(plugin.DefaultKillGrace + cfg.abandonAfter)
		case <-abandon:
			abandon = nil
			if !eof {
				s.abandoned = true
				// Unblocks the copy, which then ends.
				_ = r.Close()
			}
			if !leaderDone {
				// bash survived SIGKILL (stuck in the kernel); stop waiting
				// for it. Its status is unknown; the call timed out or was
				// cancelled, which is what it reports.
				<-copied
				return s
			}
		}
	}
	if !s.timedOut && !s.cancelled && !s.strays {
		s.survivors = leftRunning(proc)
	}
	return s
}

// stopGroup sends the group SIGTERM and, killGrace later, SIGKILL if any of
// it is left. The returned channel closes once SIGKILL is due. It runs on
// after the call returns if need be, so that a member that ignores SIGTERM
// and no longer holds the output is still killed.
func stopGroup(clock plugin.Clock, proc plugin.Process, grace time.Duration) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = proc.Signal(syscall.SIGTERM)
		_ = clock.Sleep(context.Background(), grace)
		// The group's id cannot be reused while any member, zombies
		// included, is left, so this never reaches another group.
		// A command in a long-lived sandbox is named by its request, not
		// a pid, and signalling it once it has ended does nothing.
		if _, shared := proc.(*sandbox.Process); shared || syscall.Kill(-proc.Pid(), 0) == nil {
			_ = proc.Signal(syscall.SIGKILL)
		}
	}()
	return done
}

// sandboxed reports whether proc runs in the kernel sandbox, where its PID
// namespace ends everything it started when it exits, and where its Pid
// may name no process outside the sandbox: it is never signalled by pid.
func sandboxed(proc plugin.Process) bool {
	sp, ok := proc.(plugin.SandboxedProcess)
	return ok && sp.Sandboxed()
}

// leftRunning reports whether processes of proc's group are still running
// after its leader exited: never in the sandbox.
func leftRunning(proc plugin.Process) bool {
	return !sandboxed(proc) && groupAlive(proc.Pid())
}

// Reads of the output start at firstRead bytes and grow to maxRead at the
// first read that fills the buffer: a short command's call allocates no
// large buffer (one per call, a quarter MiB, made the plugin collect every
// few calls), and a stream is still read in large pieces.
const (
	firstRead = 16 << 10
	maxRead   = 256 << 10
)

// copyOutput copies the pipe to out as the data arrives until the pipe
// closes.
func copyOutput(out io.Writer, r *os.File) {
	buf := make([]byte, firstRead)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			_, _ = out.Write(buf[:n])
		}
		if err != nil {
			return
		}
		if n == len(buf) && len(buf) < maxRead {
			buf = make([]byte, maxRead)
		}
	}
}

// signalName is the name of sig, such as SIGKILL, or "".
func signalName(sig syscall.Signal) string {
	return unix.SignalName(sig)
}
