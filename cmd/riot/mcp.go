package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/riot-tools/riot/core"
	"github.com/riot-tools/riot/core/permission"
)

func (a *app) mcpCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "Serve riot's tools over MCP on stdio",
		Long: `Serve riot's tools to any MCP client over stdio, behind riot's permission chain and result
budgets. A call that needs permission is asked through MCP elicitation when the client
supports it, and denied otherwise.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			h, err := a.host(cmd.Context(), core.Options{Prompter: mcpPrompter{}})
			if err != nil {
				return err
			}
			defer h.Close()
			server := mcp.NewServer(&mcp.Implementation{Name: "riot", Version: version}, nil)
			for _, t := range h.Tools() {
				server.AddTool(&mcp.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema}, mcpHandler(h))
			}
			err = server.Run(cmd.Context(), &mcp.IOTransport{Reader: io.NopCloser(a.stdin), Writer: nopWriteCloser{a.stdout}})
			if err != nil && cmd.Context().Err() == nil {
				return &exitError{code: exitOutcome, msg: "mcp: " + err.Error()}
			}
			return nil
		},
	}
}

type sessionKey struct{}

// mcpHandler runs one MCP tool call as a turn of one call.
func mcpHandler(h *core.Host) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args := req.Params.Arguments
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		ctx = context.WithValue(ctx, sessionKey{}, req.Session)
		r := h.RunTurn(ctx, []core.ToolUse{{ID: newCallID(), Name: req.Params.Name, Input: args}})[0]
		res := &mcp.CallToolResult{IsError: r.IsError()}
		for _, b := range r.Content {
			if b.Type == "image" {
				res.Content = append(res.Content, &mcp.ImageContent{Data: b.Data, MIMEType: b.MediaType})
			} else {
				res.Content = append(res.Content, &mcp.TextContent{Text: b.Text})
			}
		}
		if len(r.UI) > 0 {
			res.StructuredContent = r.UI
		}
		return res, nil
	}
}

// mcpPrompter asks through MCP elicitation when the client supports it,
// and denies otherwise.
type mcpPrompter struct{}

const (
	answerOnce    = "allow once"
	answerSession = "allow for this session"
	answerAlways  = "always allow"
	answerDeny    = "deny"
)

func (mcpPrompter) Prompt(ctx context.Context, req permission.Request, d permission.Decision) (permission.Answer, error) {
	ss, _ := ctx.Value(sessionKey{}).(*mcp.ServerSession)
	if ss == nil {
		return permission.AnswerDeny, permission.ErrCannotAsk
	}
	init := ss.InitializeParams()
	if init == nil || init.Capabilities == nil || init.Capabilities.Elicitation == nil {
		return permission.AnswerDeny, permission.ErrCannotAsk
	}
	what := req.Describe
	if what == "" {
		what = req.Tool
	}
	res, err := ss.Elicit(ctx, &mcp.ElicitParams{
		Message: fmt.Sprintf("riot: allow %s? (%s)", what, d.Reason),
		RequestedSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"decision": map[string]any{
					"type": "string", "title": "Decision",
					"enum": []string{answerOnce, answerSession, answerAlways, answerDeny},
				},
			},
			"required": []string{"decision"},
		},
	})
	if err != nil {
		return permission.AnswerDeny, err
	}
	if res.Action != "accept" {
		return permission.AnswerDeny, nil
	}
	switch res.Content["decision"] {
	case answerOnce:
		return permission.AnswerAllowOnce, nil
	case answerSession:
		return permission.AnswerAllowSession, nil
	case answerAlways:
		return permission.AnswerAllowAlways, nil
	default:
		return permission.AnswerDeny, nil
	}
}
