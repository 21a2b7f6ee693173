package quickrun

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"path"
	"syscall"

	"github.com/riot-tools/riot/cmd/riot/internal/ident"
	"github.com/riot-tools/riot/cmd/riot/internal/riotenv"
	"github.com/riot-tools/riot/cmd/riot/internal/turnio"
	"github.com/riot-tools/riot/core/sessionhost/wire"
	"github.com/riot-tools/riot/core/toolcall"
)

// riot's exit statuses (cmd/riot's exit.go): a call that did not end ok,
// and an error of the command's own, such as a failed write.
const (
	exitOutcome = 1
	exitError   = 2
)

// attach runs inv's turn in the session host that serves its session and
// workspace, as cmd/riot's attachedTurn does for a client without a
// terminal, and prints what `riot run` or `riot call` prints. ok is false
// when it cannot: no host, a refusal, or anything about the command line
// or its input that the full command must report; h then holds what it
// read of stdin and the host's refusal.
func (p process) attach(inv Invocation) (code int, ok bool, h Handoff) {
	if inv.Session == "" || inv.Command == "run" && inv.Format != "anthropic" && inv.Format != "openai" {
		return 0, false, h
	}
	// A person who may answer a prompt, or a spinner to draw: the full
	// command's.
	if isTerminal(p.stdin) && isTerminal(p.stderr) || !inv.Quiet && isTerminal(p.stderr) {
		return 0, false, h
	}
	ws, ok := p.workspace(inv.Cwd)
	if !ok {
		return 0, false, h
	}
	flags := inv.Flags
	if inv.Config != "" {
		if flags.ConfigFile, ok = p.abs(inv.Config); !ok {
			return 0, false, h
		}
	}
	state, ok := riotenv.StateDir(p.getenv)
	if !ok {
		return 0, false, h
	}
	socket := wire.PathsFor(wire.Dir(state), inv.Session, ws).Socket
	// No host, or none safe to use: before the turn is read, so that
	// stdin is the full command's to read.
	if wire.CheckSocket(socket) != nil {
		return 0, false, h
	}
	uses, ok := p.turn(inv, &h)
	if !ok {
		return 0, false, h
	}
	hello := wire.Hello{Build: ident.Build(), Session: inv.Session, Workspace: ws,
		Inputs: ident.Inputs(flags, p.environ()), KnownOnly: inv.Command == "call", Render: inv.Format}
	// A signal before they are registered ends the process, which hangs
	// up and so cancels the turn in the host all the same.
	ctx, _ := SignalContext()
	reply, err := wire.Turn(ctx, socket, hello, uses, wire.Handlers{
		Warn:   func(line string) { _, _ = p.stderr.WriteString("riot: warning: " + line + "\n") },
		Notice: func(line string) { _, _ = p.stderr.WriteString("riot: " + line + "\n") },
	})
	var refused *wire.RefusedError
	switch {
	case errors.As(err, &refused):
		h.Refused = refused.Reason
		return 0, false, h
	case errors.Is(err, wire.ErrHostDied):
		reply = wire.Reply{Results: turnio.HostDied(uses)}
	case err != nil:
		return 0, false, h // no host after all, or a call of a tool it does not know
	}
	if inv.Command == "call" {
		return p.printCall(reply.Results, uses, inv.JSON), true, h
	}
	return p.printRun(reply, inv.Format), true, h
}

// turn is inv's calls: run's turn, from its file or stdin, or call's one
// call, of its input (the argument, stdin for -, or {}). ok is false for a
// turn or input the full command must report on.
func (p process) turn(inv Invocation, h *Handoff) ([]toolcall.ToolUse, bool) {
	if inv.Command == "run" {
		file := ""
		if len(inv.Args) == 1 {
			file = inv.Args[0]
		}
		data, ok := p.input(file, h)
		if !ok {
			return nil, false
		}
		uses, err := turnio.Parse(data, inv.Format)
		return uses, err == nil
	}
	input := []byte("{}")
	if len(inv.Args) == 2 {
		if inv.Args[1] != "-" {
			input = []byte(inv.Args[1])
		} else if data, ok := p.input("-", h); ok {
			input = data
		} else {
			return nil, false
		}
	}
	if turnio.InputProblem(inv.Args[0], input) != "" {
		return nil, false
	}
	return []toolcall.ToolUse{{ID: turnio.NewCallID(), Name: inv.Args[0], Input: input}}, true
}

// printRun prints what `riot run` prints of the host's reply: its text,
// rendered by the host in format, or the results rendered here.
func (p process) printRun(reply wire.Reply, format string) int {
	out := reply.Output
	if out == nil {
		var err error
		if out, err = turnio.Render(reply.Results, format); err != nil {
			return p.fail(err)
		}
	}
	if _, err := p.stdout.Write(out); err != nil {
		return p.fail(err)
	}
	return 0
}

// printCall prints what `riot call` prints of the one result, and returns
// its exit status: 1 for a call that did not end ok. A reply without
// exactly one result is the host's fault after it took the call, which
// may have run.
func (p process) printCall(results []toolcall.ToolResult, uses []toolcall.ToolUse, asJSON bool) int {
	if len(results) != 1 {
		results = turnio.HostDied(uses)
	}
	if err := turnio.PrintResult(p.stdout, results[0], asJSON); err != nil {
		return p.fail(err)
	}
	if results[0].IsError() {
		return exitOutcome
	}
	return 0
}

// fail reports an error of the command's own, as riot does.
func (p process) fail(err error) int {
	_, _ = p.stderr.WriteString("riot: " + err.Error() + "\n")
	return exitError
}

// workspace is cmd/riot's workspace: the --cwd directory, absolute, or
// the working directory; ok is false where cmd/riot would say why not.
func (p process) workspace(cwd string) (string, bool) {
	if cwd == "" {
		wd, err := os.Getwd()
		return wd, err == nil
	}
	abs, ok := p.abs(cwd)
	if !ok {
		return "", false
	}
	info, err := os.Stat(abs)
	return abs, err == nil && info.IsDir()
}

// abs is config.ExpandHome then filepath.Abs, as cmd/riot resolves --cwd
// and --config: on Unix path.Join and path.Clean mean what filepath's do.
func (p process) abs(name string) (string, bool) {
	name, ok := riotenv.ExpandHome(p.getenv, name)
	if !ok {
		return "", false
	}
	if path.IsAbs(name) {
		return path.Clean(name), true
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", false
	}
	return path.Join(wd, name), true
}

// input reads file, or stdin for "" and "-"; what it read of stdin goes
// into h, for the full command if the quick path declines.
func (p process) input(file string, h *Handoff) ([]byte, bool) {
	if file != "" && file != "-" {
		data, err := os.ReadFile(file)
		return data, err == nil
	}
	h.Stdin, h.StdinErr = io.ReadAll(p.stdin)
	h.StdinRead = true
	return h.Stdin, h.StdinErr == nil
}

// SignalContext is a context that SIGINT and SIGTERM cancel, with the
// signal as its cause, for the quick path and cmd/riot alike. It is
// returned at once and the signals are registered beside the caller, ready
// closing once they are: registering starts a thread of the runtime's own
// and waits for it, a third of a millisecond at the start of each
// invocation. The registration is never undone: the process exits when
// the command returns, and undoing it waits for the runtime's signal loop
// to go idle.
func SignalContext() (context.Context, <-chan struct{}) {
	ctx, cancel := context.WithCancelCause(context.Background())
	ready := make(chan struct{})
	go func() {
		sctx, _ := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		close(ready)
		<-sctx.Done()
		cancel(context.Cause(sctx))
	}()
	return ctx, ready
}
