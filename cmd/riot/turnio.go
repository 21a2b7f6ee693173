package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/riot-tools/riot/core"
)

// parseTurn reads one assistant turn's tool calls. The Anthropic shape is
// an array of tool_use blocks, or a message whose content holds them; the
// OpenAI shape is an array of tool_calls, or a message holding them. Other
// content blocks are skipped. A malformed turn is an error naming why.
func parseTurn(data []byte, format string) ([]core.ToolUse, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, fmt.Errorf("the turn is empty; give a JSON array of tool_use blocks, or an assistant message holding them")
	}
	if format == "openai" {
		return parseOpenAI(data)
	}
	return parseAnthropic(data)
}

type anthropicBlock struct {
	Type  string          `json:"type"`
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

func parseAnthropic(data []byte) ([]core.ToolUse, error) {
	var blocks []anthropicBlock
	if data[0] == '{' {
		var msg struct {
			Content json.RawMessage `json:"content"`
		}
		if err := json.Unmarshal(data, &msg); err != nil {
			return nil, fmt.Errorf("the turn is not valid JSON: %w", err)
		}
		if len(msg.Content) == 0 || msg.Content[0] != '[' {
			return nil, fmt.Errorf("the message has no content array of tool_use blocks")
		}
		data = msg.Content
	}
	if err := json.Unmarshal(data, &blocks); err != nil {
		return nil, fmt.Errorf("the turn is not a JSON array of content blocks: %w", err)
	}
	var uses []core.ToolUse
	for i, b := range blocks {
		if b.Type != "tool_use" {
			continue
		}
		if b.ID == "" || b.Name == "" {
			return nil, fmt.Errorf("block %d is a tool_use without an id or a name", i)
		}
		input := b.Input
		if len(input) == 0 {
			input = json.RawMessage("{}")
		}
		uses = append(uses, core.ToolUse{ID: b.ID, Name: b.Name, Input: input})
	}
	return uses, checkIDs(uses)
}

type openaiCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

func parseOpenAI(data []byte) ([]core.ToolUse, error) {
	var calls []openaiCall
	if data[0] == '{' {
		var msg struct {
			ToolCalls json.RawMessage `json:"tool_calls"`
		}
		if err := json.Unmarshal(data, &msg); err != nil {
			return nil, fmt.Errorf("the turn is not valid JSON: %w", err)
		}
		if len(msg.ToolCalls) == 0 {
			return nil, fmt.Errorf("the message has no tool_calls array")
		}
		data = msg.ToolCalls
	}
	if err := json.Unmarshal(data, &calls); err != nil {
		return nil, fmt.Errorf("the turn is not a JSON array of tool_calls: %w", err)
	}
	uses := make([]core.ToolUse, 0, len(calls))
	for i, c := range calls {
		if c.ID == "" || c.Function.Name == "" {
			return nil, fmt.Errorf("tool_calls[%d] has no id or no function.name", i)
		}
		args := c.Function.Arguments
		if args == "" {
			args = "{}"
		}
		// Arguments that are not JSON are the model's mistake, not the
		// caller's: the call gets a result saying so.
		uses = append(uses, core.ToolUse{ID: c.ID, Name: c.Function.Name, Input: json.RawMessage(args)})
	}
	return uses, checkIDs(uses)
}

func checkIDs(uses []core.ToolUse) error {
	seen := map[string]bool{}
	for _, u := range uses {
		if seen[u.ID] {
			return fmt.Errorf("two tool calls share the id %q; each needs its own result", u.ID)
		}
		seen[u.ID] = true
	}
	return nil
}

// anthropicResult is a tool_result block.
type anthropicResult struct {
	Type      string `json:"type"`
	ToolUseID string `json:"tool_use_id"`
	Content   any    `json:"content"`
	IsError   bool   `json:"is_error"`
}

type openaiResult struct {
	Role       string `json:"role"`
	ToolCallID string `json:"tool_call_id"`
	Content    string `json:"content"`
}

// renderResults is the turn's results in the named API's shape.
func renderResults(results []core.ToolResult, format string) any {
	if format == "openai" {
		out := make([]openaiResult, len(results))
		for i, r := range results {
			text := r.Text()
			for _, b := range r.Content {
				if b.Type == "image" {
					text += fmt.Sprintf("\n[An image (%s, %d bytes) was omitted: OpenAI tool messages carry text only.]", b.MediaType, len(b.Data))
				}
			}
			out[i] = openaiResult{Role: "tool", ToolCallID: r.ToolUseID, Content: text}
		}
		return out
	}
	out := make([]anthropicResult, len(results))
	for i, r := range results {
		out[i] = anthropicResult{Type: "tool_result", ToolUseID: r.ToolUseID, Content: anthropicContent(r), IsError: r.IsError()}
	}
	return out
}

// anthropicContent is a string when the result is text only, else an array
// of text and image blocks.
func anthropicContent(r core.ToolResult) any {
	hasImage := false
	for _, b := range r.Content {
		hasImage = hasImage || b.Type == "image"
	}
	if !hasImage {
		return r.Text()
	}
	blocks := make([]any, 0, len(r.Content))
	for _, b := range r.Content {
		if b.Type == "image" {
			blocks = append(blocks, map[string]any{
				"type": "image",
				"source": map[string]string{
					"type": "base64", "media_type": b.MediaType, "data": base64.StdEncoding.EncodeToString(b.Data),
				},
			})
		} else {
			blocks = append(blocks, map[string]string{"type": "text", "text": b.Text})
		}
	}
	return blocks
}
