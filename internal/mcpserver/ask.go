package mcpserver

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/riot-tools/riot/core/permission"
)

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
	// questions carries a wrapped MCP server's questions during the call
	// to the request that waits on the call.
	questions chan *question
}

// permissionInput is the id of the permission question in a call's
// input requests.
const permissionInput = "riot-permission"

// prompter asks through MCP elicitation when the client supports it, and
// cannot ask otherwise.
type prompter struct{}

// errAsking means the question is on its way to the client.
var errAsking = errors.New("mcp: asking the client")

const (
	answerOnce    = "allow once"
	answerSession = "allow for this session"
	answerAlways  = "always allow"
	answerDeny    = "deny"
)

func (prompter) Prompt(ctx context.Context, req permission.Request, d permission.Decision) (permission.Answer, error) {
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
