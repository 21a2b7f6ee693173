package main

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/spf13/cobra"

	"github.com/riot-tools/riot/cmd/riot/internal/turnio"
	"github.com/riot-tools/riot/core"
	"github.com/riot-tools/riot/core/mcpsource"
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
	if err := mcpNotStarted(h, use.Name); err != nil {
		return core.ToolResult{}, err
	}
	if err := a.checkToolName(h, use.Name); err != nil {
		return core.ToolResult{}, err
	}
	return h.RunTurn(ctx, []core.ToolUse{use})[0], nil
}

// mcpNotStarted makes a call of a tool of an MCP server that did not start
// a usage error that names the server and why, rather than an unknown
// tool: the server's tools are missing because it did not start.
func mcpNotStarted(h *core.Host, name string) error {
	if !strings.HasPrefix(name, mcpsource.Prefix) {
		return nil
	}
	for _, t := range h.Tools() {
		if t.Name == name {
			return nil
		}
	}
	// The longest server name that prefixes the tool's is its server.
	var owner *core.MCPServerInfo
	servers := h.MCPServers()
	for i, srv := range servers {
		if strings.HasPrefix(name, mcpsource.ToolName(srv.Name, "")) && (owner == nil || len(srv.Name) > len(owner.Name)) {
			owner = &servers[i]
		}
	}
	if owner == nil || owner.Problem == "" || len(owner.Tools) > 0 {
		return nil
	}
	return usageErr("the MCP server %s did not start, so %s cannot be called: %s Fix [mcp_servers.%s] and run the call again (`riot plugins` shows the server's state).", owner.Name, name, serverCause(owner.Problem), owner.Name)
}
