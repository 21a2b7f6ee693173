package bash

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/riot-tools/riot/plugin"
	"github.com/riot-tools/riot/plugin/sandbox"
)

// runUI is the UI payload of a foreground command.
type runUI struct {
	// ExitCode is null when the command did not exit by itself: it timed
	// out, was cancelled or was killed by a signal.
	ExitCode    *int   `json:"exit_code"`
	Signal      string `json:"signal,omitempty"`
	TimedOut    bool   `json:"timed_out,omitempty"`
	Cancelled   bool   `json:"cancelled,omitempty"`
	Cwd         string `json:"cwd"`
	DurationMs  int64  `json:"duration_ms"`
	OutputBytes int64  `json:"output_bytes"`
}

// noMatchNotes are the notes of an exit status 1 that means "no" rather than
// "error", by the last command of the last pipeline.
var noMatchNotes = map[string]string{
	"grep": "no match",
	"rg":   "no match",
	"diff": "files differ",
	"cmp":  "files differ",
	"test": "false",
	"[":    "false",
}

// runForeground runs a command to its end, streaming its output, and
// returns how it ended with the directory it ended in as session state.
func runForeground(ctx context.Context, cfg config, bash string, in Input, env *plugin.Env) plugin.Outcome {
	dir, dirNote := sessionDir(env)
	if msg := dirProblem(dir); msg != "" {
		return plugin.Failed(msg)
	}
	report, err := newCwdReport(cfg.tempDir)
	if err != nil {
		return plugin.Failed("Could not create the file that reports the command's final directory; the plugin may be out of file descriptors or memory. Retry later.")
	}
	defer report.close()

	r, w, err := os.Pipe()
	if err != nil {
		return plugin.Failed("Could not create a pipe for the command's output; the plugin may be out of file descriptors. Retry later.")
	}
	growPipe(w)
	cmd := shellCommand(bash, in.Command, dir, report)
	// One pipe for both, so their writes stay in the order they were made.
	cmd.Stdout, cmd.Stderr = w, w
	began := env.Clock.Now()
	proc, err := plugin.StartShared(ctx, env.Proc, cmd)
	_ = w.Close()
	if err != nil {
		_ = r.Close()
		if ctx.Err() != nil {
			return plugin.Failed("Cancelled.\nThe command was not started.")
		}
		return startFailed(err)
	}

	// The end of the output is kept to tell the model when the sandbox,
	// not the command, refused something.
	var tail *sandbox.Tail
	sink := env.Output()
	if env.Sandbox != nil {
		tail = &sandbox.Tail{}
		sink = io.MultiWriter(sink, tail)
	}
	out := &trackingWriter{w: sink}
	s := supervise(ctx, cfg, env.Clock, proc, r, out, in.timeout())
	_ = r.Close()

	ui := runUI{Cwd: dir, DurationMs: env.Clock.Now().Sub(began).Milliseconds(), OutputBytes: out.n}
	var notes []string
	if dirNote != "" {
		notes = append(notes, dirNote)
	}
	// The directory is known even after a timeout: bash runs the EXIT trap
	// on SIGTERM. When it is not (exec, a replaced trap, SIGKILL), the
	// previous directory stays, or the fallback when that one was gone.
	var outcome plugin.Outcome
	newDir, known := report.read()
	switch {
	case known:
		ui.Cwd = newDir
	case dirNote != "":
		newDir, known = dir, true
	}

	switch {
	case s.cancelled:
		ui.Cancelled = true
		out.trailer("(Cancelled: the command was stopped before it finished; the output above is incomplete.)")
		outcome = plugin.Failed(lines("Cancelled.", "The command was stopped before it finished; it may have partially run.", notes))
	case s.timedOut:
		ui.TimedOut = true
		secs := formatSeconds(in.timeout())
		out.trailer(fmt.Sprintf("(Command timed out after %s s and was stopped; the output above is incomplete.)", secs))
		outcome = plugin.Failed(lines(fmt.Sprintf("Command timed out after %s s.", secs),
			fmt.Sprintf("Retry with a larger `timeout` (at most %d ms), or set `run_in_background` and read the output with BashOutput.", maxTimeoutMs), notes))
	case errors.As(s.waitErr, new(*sandbox.LostError)):
		out.trailer("(The sandbox ended under the command; the output above is incomplete.)")
		outcome = plugin.Failed(lines(s.waitErr.Error(), "", notes))
	case errors.As(s.waitErr, new(*sandbox.SetupError)):
		// What is above is bwrap's, not the command's: the reason is
		// riot's.
		out.trailer("(The sandbox could not be set up; the command did not run, and the output above is not its.)")
		outcome = plugin.Failed(lines(s.waitErr.Error(), "", notes))
	default:
		code, sig := exitStatus(s.waitErr)
		ui.Signal = sig
		if code >= 0 {
			ui.ExitCode = &code
		}
		notes = append(notes, s.notes()...)
		if tail != nil && (code != 0 || sig != "") {
			if note := sandbox.Note(env.Sandbox, in.Command, tail.Signs()); note != "" {
				notes = append(notes, note)
			}
		}
		outcome = exitOutcome(in.Command, code, sig, notes)
	}
	outcome = outcome.WithUI(ui)
	if known {
		outcome = outcome.WithState(cwdStateKey, cwdUpdate(env.Cwd, newDir))
	}
	return outcome
}

// exitOutcome turns an exit status into Ok or Failed. Exit status 1 of a
// command whose 1 means "no" (grep, diff, test) is Ok with a note, so that
// it does not cascade.
func exitOutcome(command string, code int, sig string, notes []string) plugin.Outcome {
	switch {
	case sig != "":
		return plugin.Failed(lines(fmt.Sprintf("Killed by signal %s.", sig), "", notes))
	case code < 0:
		return plugin.Failed(lines("The command ended with an unknown status.", "It may have partially run; check its effects before retrying.", notes))
	case code == 0:
		return plugin.Ok().WithNote(strings.Join(notes, "\n"))
	case code == 1:
		if note, ok := noMatchNotes[Analyze(command).NoMatchExit]; ok {
			return plugin.Ok().WithNote(strings.Join(append([]string{"(exit status 1: " + note + ")"}, notes...), "\n"))
		}
	}
	detail := ""
	if code > 128 {
		if name := signalName(syscall.Signal(code - 128)); name != "" {
			detail = fmt.Sprintf("(%d is 128 + %d: the command was probably killed by %s.)", code, code-128, name)
		}
	}
	return plugin.Failed(lines(fmt.Sprintf("Exit status %d.", code), detail, notes))
}

// lines joins a message's first line, an optional detail and the notes.
func lines(first, detail string, notes []string) string {
	all := []string{first}
	if detail != "" {
		all = append(all, detail)
	}
	return strings.Join(append(all, notes...), "\n")
}

// exitStatus reads a wait error: the exit code, or the signal that killed
// bash itself; -1 and "" when there is neither (Wait failed, or the
// sandbox ended under the command).
func exitStatus(err error) (code int, sig string) {
	ws, ok := plugin.ExitStatus(err)
	switch {
	case !ok:
		return -1, ""
	case ws.Signaled():
		name := signalName(ws.Signal())
		if name == "" {
			name = "signal " + strconv.Itoa(int(ws.Signal()))
		}
		return -1, name
	}
	return ws.ExitStatus(), ""
}

// startFailed is the outcome of a command that could not start: the
// sandbox's own message when a required sandbox cannot start.
func startFailed(err error) plugin.Outcome {
	var unavailable *sandbox.UnavailableError
	var lost *sandbox.LostError
	var setup *sandbox.SetupError
	switch {
	case errors.As(err, &unavailable):
		return plugin.Failed(unavailable.Error())
	case errors.As(err, &lost):
		return plugin.Failed(lost.Error())
	case errors.As(err, &setup):
		return plugin.Failed(setup.Error())
	}
	return plugin.Failed("Could not start bash to run the command. Retry once; if it fails again, tell the user that riot cannot start processes.")
}

func formatSeconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
}

// trackingWriter counts what reaches the call's output and remembers the
// last byte, for the trailer. Once the host's stream fails it discards, so
// the command never blocks on a dead stream; the call's context ends too.
type trackingWriter struct {
	w    io.Writer
	n    int64
	last byte
	err  error
}

func (t *trackingWriter) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	t.n += int64(len(p))
	t.last = p[len(p)-1]
	if t.err == nil {
		_, t.err = t.w.Write(p)
	}
	return len(p), nil
}

// trailer appends a line saying the output is incomplete, on a line of its
// own.
func (t *trackingWriter) trailer(s string) {
	if t.n > 0 && t.last != '\n' {
		s = "\n" + s
	}
	_, _ = t.Write([]byte(s + "\n"))
}
