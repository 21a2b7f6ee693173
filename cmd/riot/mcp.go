package main

import (
	"context"
	"encoding/json"
	"errors"
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

// askKey carries a call's permission exchange with the client.
type askKey struct{}

// mcpAsk is one call's permission exchange. MCP asks the user with
// elicitation as a multi round-trip request: the first time a call needs
// permission, the handler returns the question instead of a result, and
// the client calls again with the user's answer.
type mcpAsk struct {
	session   *mcp.ServerSession
	responses mcp.InputResponseMap
	question  *mcp.ElicitParams
}

// permissionInput is the id of the permission question in a call's
// input requests.
const permissionInput = "riot-permission"

// mcpHandler runs one MCP tool call as a turn of one call.
func mcpHandler(h *core.Host) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args := req.Params.Arguments
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		ask := &mcpAsk{session: req.Session, responses: req.Params.InputResponses}
		ctx = context.WithValue(ctx, askKey{}, ask)
		r := h.RunTurn(ctx, []core.ToolUse{{ID: newCallID(), Name: req.Params.Name, Input: args}})[0]
		if ask.question != nil {
			// The call did not run: ask, and run it when the answer comes.
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{permissionInput: ask.question}}, nil
		}
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
// and cannot ask otherwise.
type mcpPrompter struct{}

// errAsking means the question is on its way to the client.
var errAsking = errors.New("mcp: asking the client")

const (
	answerOnce    = "allow once"
	answerSession = "allow for this session"
	answerAlways  = "always allow"
	answerDeny    = "deny"
)

func (mcpPrompter) Prompt(ctx context.Context, req permission.Request, d permission.Decision) (permission.Answer, error) {
	ask, _ := ctx.Value(askKey{}).(*mcpAsk)
	if ask == nil || ask.session == nil {
		return permission.AnswerDeny, permission.ErrCannotAsk
	}
	init := ask.session.InitializeParams()
	if init == nil || init.Capabilities == nil || init.Capabilities.Elicitation == nil {
		return permission.AnswerDeny, permission.ErrCannotAsk
	}
	if res, ok := ask.responses[permissionInput].(*mcp.ElicitResult); ok {
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
	what := req.Describe
	if what == "" {
		what = req.Tool
	}
	ask.question = &mcp.ElicitParams{
		Message: fmt.Sprintf("riot: allow %s? %s", what, d.Reason),
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
	}
	return permission.AnswerDeny, errAsking
}
