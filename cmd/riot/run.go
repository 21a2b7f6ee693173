package main

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/riot-tools/riot/cmd/riot/internal/ident"
	"github.com/riot-tools/riot/cmd/riot/internal/turnio"
	"github.com/riot-tools/riot/core"
	"github.com/riot-tools/riot/core/permission"
	"github.com/riot-tools/riot/remote"
)

func (a *app) runCommand() *cobra.Command {
	var format, remoteURL, tokenFile string
	cmd := &cobra.Command{
		Use:   "run [FILE|-]",
		Short: "Run one assistant turn's tool calls and print the results",
		Long: `Run one turn. The input (a file, or stdin when FILE is - or absent) is an array of
{"type":"tool_use","id","name","input"} blocks, or an assistant message holding them; with
--format openai, an array of tool_calls or a message holding them. The output is one result per
call, in input order: {"type":"tool_result","tool_use_id","content","is_error"}, or
{"role":"tool","tool_call_id","content","status"} for openai, where status is ok, failed,
denied or cancelled. Exits 0 whenever the turn ran, and 2 when
the input is malformed.

With --remote URL (or [remote] url in the config) the turn runs in the session that
riot mcp --listen serves at URL, a pod say, with the bearer token in --token-file (or
[remote] token_file), and prints what a local run prints. Exits 1 when the session
cannot be reached, and 2 when it refuses the token.`,
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
			target, err := a.remoteTarget(remoteURL, tokenFile)
			if err != nil {
				return err
			}
			spin := a.spinner()
			defer spin.stop()
			var out []byte
			if target != nil {
				out, err = a.remoteTurn(cmd.Context(), target, uses, format, spin.onProgress())
			} else {
				out, err = a.runTurn(cmd.Context(), uses, format, spin.onProgress())
			}
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
	cmd.Flags().StringVar(&remoteURL, "remote", "", "run the turn in the session riot mcp --listen serves at this URL (default [remote] url)")
	cmd.Flags().StringVar(&tokenFile, "token-file", "", "with --remote, a file holding the session's bearer token (default [remote] token_file)")
	return cmd
}

// remoteSession is where riot run sends its turn instead of running it.
type remoteSession struct {
	url, tokenFile string
	timeout        time.Duration
	maxParallel    int
	turnBudget     int
}

// remoteTarget is the remote session of --remote, or else of [remote] url
// (which an untrusted workspace's files cannot set), or nil to run here.
func (a *app) remoteTarget(flagURL, flagToken string) (*remoteSession, error) {
	cfg, ws, err := a.loadConfig()
	if err == nil {
		a.preloaded = &loadedConfig{cfg, ws}
	}
	if err != nil {
		if flagURL == "" {
			// Left to the local run, which says what is wrong.
			return nil, nil
		}
		return nil, err
	}
	t := &remoteSession{url: cfg.Remote.URL, tokenFile: cfg.Remote.TokenFile, timeout: cfg.Remote.Timeout, maxParallel: cfg.Limits.MaxParallel, turnBudget: cfg.Limits.TurnBudgetChars}
	if flagURL != "" {
		t.url = flagURL
	}
	if flagToken != "" {
		t.tokenFile = flagToken
	}
	switch {
	case t.url == "" && flagToken != "":
		return nil, usageErr("--token-file is the token of a remote session; give --remote URL too")
	case t.url == "":
		return nil, nil
	case a.session != "":
		return nil, usageErr("a remote session keeps its own state; drop --session, or run without --remote and [remote] url")
	case t.tokenFile == "":
		return nil, usageErr("the remote session at %s needs its bearer token: give --token-file FILE (or [remote] token_file)", t.url)
	}
	return t, nil
}

// remoteTurn runs uses in the remote session and renders the results as
// a local run does. A question the session asks goes to the terminal, as
// a local run's would; without one the session denies the call.
func (a *app) remoteTurn(ctx context.Context, t *remoteSession, uses []core.ToolUse, format string, onProgress func(core.Progress)) ([]byte, error) {
	data, err := os.ReadFile(t.tokenFile)
	if err != nil {
		return nil, usageErr("cannot read the token file %s: %s", t.tokenFile, fileReason(err))
	}
	token := strings.TrimSpace(string(data))
	if token == "" {
		return nil, usageErr("the token file %s is empty; write the remote session's bearer token in it", t.tokenFile)
	}
	opts := remote.Options{Token: token, Timeout: t.timeout, MaxParallel: t.maxParallel, TurnBudgetChars: t.turnBudget, OnProgress: onProgress, Version: ident.Version}
	if interactive(a.stdin, a.stderr) {
		opts.Elicitor = &permission.TTYPrompter{In: a.stdin, Out: a.stderr}
	}
	c, err := remote.Dial(ctx, t.url, opts)
	switch {
	case errors.Is(err, remote.ErrUnauthorized):
		return nil, &exitError{code: exitUsage, msg: err.Error()}
	case err != nil:
		return nil, &exitError{code: exitOutcome, msg: err.Error()}
	}
	defer c.Close()
	return turnio.Render(c.RunTurn(ctx, uses), format)
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
