package main

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/riot-tools/riot/cmd/riot/internal/turnio"
	"github.com/riot-tools/riot/core"
)

func (a *app) runCommand() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "run [FILE|-]",
		Short: "Run one assistant turn's tool calls and print the results",
		Long: `Run one turn. The input (a file, or stdin when FILE is - or absent) is an array of
{"type":"tool_use","id","name","input"} blocks, or an assistant message holding them; with
--format openai, an array of tool_calls or a message holding them. The output is one result per
call, in input order: {"type":"tool_result","tool_use_id","content","is_error"}, or
{"role":"tool","tool_call_id","content","status"} for openai, where status is ok, failed,
denied or cancelled. Exits 0 whenever the turn ran, and 2 when
the input is malformed.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format); err != nil {
				return err
			}
			data, err := a.readInput(args)
			if err != nil {
				return err
			}
			uses, err := turnio.Parse(data, format)
			if err != nil {
				return usageErr("malformed turn: %v", err)
			}
			spin := a.spinner()
			defer spin.stop()
			out, err := a.runTurn(cmd.Context(), uses, format, spin.onProgress())
			if err != nil {
				return err
			}
			spin.stop()
			_, err = cmd.OutOrStdout().Write(out)
			return err
		},
	}
	cmd.Flags().StringVar(&format, "format", "anthropic", "API shape: anthropic or openai")
	cmd.Flags().BoolVar(&a.daemon, "daemon", false, "with --session, start a session host when none is running")
	return cmd
}

// runTurn runs uses in the session's host when one serves, and otherwise
// in a host of this invocation's own, and returns the results rendered in
// format: by the session host when it could, as the same bytes.
func (a *app) runTurn(ctx context.Context, uses []core.ToolUse, format string, onProgress func(core.Progress)) ([]byte, error) {
	reply, ok, err := a.attachedTurn(ctx, uses, a.daemon, false, format, onProgress)
	switch {
	case err != nil:
		return nil, err
	case ok && reply.Output != nil:
		return reply.Output, nil
	case ok:
		return turnio.Render(reply.Results, format)
	}
	h, err := a.host(ctx, core.Options{OnProgress: onProgress, OneShot: true})
	if err != nil {
		return nil, err
	}
	defer h.Close()
	return turnio.Render(h.RunTurn(ctx, uses), format)
}

// readInput reads the file named by args[0], or stdin for "-" or none.
func (a *app) readInput(args []string) ([]byte, error) {
	if len(args) == 0 || args[0] == "-" {
		data, err := io.ReadAll(a.stdin)
		if err != nil {
			return nil, usageErr("cannot read stdin: %v", err)
		}
		return data, nil
	}
	data, err := os.ReadFile(args[0])
	if err != nil {
		return nil, usageErr("cannot read %s: %s; give a readable file, or - for stdin", args[0], fileReason(err))
	}
	return data, nil
}

// fileReason says why a file cannot be read, in words rather than as the
// operation's Go error ("open x: no such file or directory").
func fileReason(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "it does not exist"
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	case errors.Is(err, syscall.EISDIR):
		return "it is a directory"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// inputArg is a call's input: the JSON argument, stdin for "-", or {}
// when absent.
func (a *app) inputArg(args []string) ([]byte, error) {
	switch {
	case len(args) == 0:
		return []byte("{}"), nil
	case args[0] == "-":
		return a.readInput(args)
	default:
		return []byte(args[0]), nil
	}
}
