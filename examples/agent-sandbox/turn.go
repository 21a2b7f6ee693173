package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// toolUse is one tool_use block of an assistant turn, as `riot run` reads it.
type toolUse struct {
	Type  string         `json:"type"`
	ID    string         `json:"id"`
	Name  string         `json:"name"`
	Input map[string]any `json:"input"`
}

// toolResult is the tool_result block that answers a toolUse, as `riot
// run` prints it.
type toolResult struct {
	Type      string `json:"type"`
	ToolUseID string `json:"tool_use_id"`
	Content   string `json:"content"`
	IsError   bool   `json:"is_error,omitempty"`
}

// bearer adds the session's token to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// runTurn sends one assistant turn's tool calls to riot's MCP endpoint in
// the session pod and returns a tool_result for each, in order. A call
// riot fails, denies or cancels is a result with is_error, for the model;
// only a session that cannot be reached is an error. This client offers no
// elicitation, so riot denies what it would ask a user about: allow it in
// the pod's config (or the claim's mode) instead.
func runTurn(ctx context.Context, endpoint, token string, uses []toolUse) ([]toolResult, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "riot-agent-sandbox-example", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint:   endpoint,
		HTTPClient: &http.Client{Transport: bearer{token: token, next: http.DefaultTransport}},
	}, nil)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", endpoint, err)
	}
	defer cs.Close()
	results := make([]toolResult, 0, len(uses))
	for _, u := range uses {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: u.Name, Arguments: u.Input})
		if err != nil {
			return results, fmt.Errorf("%s call %s: %w", u.Name, u.ID, err)
		}
		var text strings.Builder
		for _, c := range res.Content {
			if t, ok := c.(*mcp.TextContent); ok {
				text.WriteString(t.Text)
			}
		}
		results = append(results, toolResult{Type: "tool_result", ToolUseID: u.ID, Content: text.String(), IsError: res.IsError})
	}
	return results, nil
}

// parseTurn reads a turn: an array of tool_use blocks, or an assistant
// message holding them.
func parseTurn(data []byte) ([]toolUse, error) {
	var blocks []json.RawMessage
	if err := json.Unmarshal(data, &blocks); err != nil {
		var msg struct {
			Content []json.RawMessage `json:"content"`
		}
		if err2 := json.Unmarshal(data, &msg); err2 != nil || msg.Content == nil {
			return nil, fmt.Errorf("a turn is an array of tool_use blocks or an assistant message: %w", err)
		}
		blocks = msg.Content
	}
	var uses []toolUse
	for _, b := range blocks {
		var u toolUse
		if err := json.Unmarshal(b, &u); err != nil {
			return nil, err
		}
		if u.Type == "tool_use" {
			uses = append(uses, u)
		}
	}
	if len(uses) == 0 {
		return nil, fmt.Errorf("the turn has no tool_use blocks")
	}
	return uses, nil
}
