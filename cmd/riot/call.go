package main

import (
	"context"
	"encoding/json"

	"github.com/spf13/cobra"

	"github.com/riot-tools/riot/cmd/riot/internal/turnio"
	"github.com/riot-tools/riot/core"
)

func (a *app) callCommand() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "call TOOL [JSON|-]",
		Short: "Run one call through the whole pipeline and print its model content",
		Long: `Run one call of TOOL with the JSON input (an argument, stdin for -, or {} when absent)
through validation, the permission chain, the call and the result budget, and print what the
model would see. With --json, print {status, content, ui, describe}. Exits 0 when the call
ended ok, 1 when it failed, was denied or was cancelled, and 2 on a usage or config error:
input that is not a JSON object, or a tool that is not enabled.`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			input, err := a.inputArg(args[1:])
			if err != nil {
				return err
			}
			if err := checkCallInput(args[0], input); err != nil {
				return err
			}
			spin := a.spinner()
			defer spin.stop()
			use := core.ToolUse{ID: turnio.NewCallID(), Name: args[0], Input: json.RawMessage(input)}
			r, err := a.callOne(cmd.Context(), use, spin.onProgress())
			if err != nil {
				return err
			}
			spin.stop()
			if err := turnio.PrintResult(cmd.OutOrStdout(), r, asJSON); err != nil {
				return err
			}
			if r.IsError() {
				return errOutcome
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print {status, content, ui, describe}")
	cmd.Flags().BoolVar(&a.daemon, "daemon", false, "with --session, start a session host when none is running")
	return cmd
}

// callOne runs one call in the session's host when one serves it, and
// otherwise in a host of this invocation's own. An unknown tool is a usage
// error either way: the host's result says the tool is not enabled.
func (a *app) callOne(ctx context.Context, use core.ToolUse, onProgress func(core.Progress)) (core.ToolResult, error) {
	if reply, ok, err := a.attachedTurn(ctx, []core.ToolUse{use}, a.daemon, true, "", onProgress); err != nil {
		return core.ToolResult{}, err
	} else if ok && len(reply.Results) == 1 {
		return reply.Results[0], nil
	}
	h, err := a.host(ctx, core.Options{OnProgress: onProgress, OneShot: true})
	if err != nil {
		return core.ToolResult{}, err
	}
	defer h.Close()
	if err := a.checkToolName(h, use.Name); err != nil {
		return core.ToolResult{}, err
	}
	return h.RunTurn(ctx, []core.ToolUse{use})[0], nil
}
