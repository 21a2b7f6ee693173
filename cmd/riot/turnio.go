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
// content blocks are skipped. A malformed turn is an error saying what riot
// expected and what it found, in its own words: the shapes are checked
// here, not left to encoding/json's messages about Go types.
func parseTurn(data []byte, format string) ([]core.ToolUse, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, fmt.Errorf("the turn is empty; give a JSON array of tool_use blocks, or an assistant message holding them")
	}
	if p := syntaxProblem(data); p != "" {
		return nil, fmt.Errorf("the turn is not valid JSON: %s", p)
	}
	if format == "openai" {
		return parseOpenAI(data)
	}
	return parseAnthropic(data)
}

// object decodes raw, known to be valid JSON, as an object; ok is false
// when it is another kind of value.
func object(raw json.RawMessage) (map[string]json.RawMessage, bool) {
	if jsonKind(raw) != "an object" {
		return nil, false
	}
	var m map[string]json.RawMessage
	return m, json.Unmarshal(raw, &m) == nil
}

// array decodes raw, known to be valid JSON, as an array.
func array(raw json.RawMessage) ([]json.RawMessage, bool) {
	if jsonKind(raw) != "an array" {
		return nil, false
	}
	var a []json.RawMessage
	return a, json.Unmarshal(raw, &a) == nil
}

// stringField is the string at key, "" when absent; ok is false when the
// value is not a string.
func stringField(m map[string]json.RawMessage, key string) (string, bool) {
	raw, present := m[key]
	if !present {
		return "", true
	}
	var s string
	if jsonKind(raw) != "a string" || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

func parseAnthropic(data []byte) ([]core.ToolUse, error) {
	const want = "a JSON array of tool_use blocks, or an assistant message holding them in its content"
	if msg, ok := object(data); ok {
		content, ok := msg["content"]
		if !ok || jsonKind(content) != "an array" {
			return nil, fmt.Errorf("the message has no content array of tool_use blocks; give %s", want)
		}
		data = content
	}
	blocks, ok := array(data)
	if !ok {
		return nil, fmt.Errorf("the turn is %s; give %s", jsonKind(data), want)
	}
	var uses []core.ToolUse
	for i, raw := range blocks {
		b, ok := object(raw)
		if !ok {
			return nil, fmt.Errorf("block %d is %s; each block is an object such as {\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"Read\",\"input\":{}}", i, jsonKind(raw))
		}
		typ, ok := stringField(b, "type")
		if !ok || typ == "" {
			return nil, fmt.Errorf("block %d has no \"type\" string; a tool call is {\"type\":\"tool_use\",\"id\",\"name\",\"input\"}", i)
		}
		if typ != "tool_use" {
			continue
		}
		id, idOK := stringField(b, "id")
		name, nameOK := stringField(b, "name")
		if !idOK || !nameOK || id == "" || name == "" {
			return nil, fmt.Errorf("block %d is a tool_use without an id or a name (each a non-empty string)", i)
		}
		input, present := b["input"]
		if !present {
			input = json.RawMessage("{}")
		} else if jsonKind(input) != "an object" {
			return nil, fmt.Errorf("block %d (%s): input is %s; a tool_use's input is a JSON object", i, id, jsonKind(input))
		}
		uses = append(uses, core.ToolUse{ID: id, Name: name, Input: input})
	}
	return uses, checkIDs(uses)
}

func parseOpenAI(data []byte) ([]core.ToolUse, error) {
	const want = "a JSON array of tool_calls, or an assistant message holding them in tool_calls"
	if msg, ok := object(data); ok {
		calls, ok := msg["tool_calls"]
		if !ok || jsonKind(calls) != "an array" {
			return nil, fmt.Errorf("the message has no tool_calls array; give %s", want)
		}
		data = calls
	}
	calls, ok := array(data)
	if !ok {
		return nil, fmt.Errorf("the turn is %s; give %s", jsonKind(data), want)
	}
	uses := make([]core.ToolUse, 0, len(calls))
	for i, raw := range calls {
		c, ok := object(raw)
		if !ok {
			return nil, fmt.Errorf("tool_calls[%d] is %s; each is an object such as {\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"Read\",\"arguments\":\"{}\"}}", i, jsonKind(raw))
		}
		id, idOK := stringField(c, "id")
		fn, fnOK := object(c["function"])
		var name, args string
		nameOK, argsOK := false, false
		if fnOK {
			name, nameOK = stringField(fn, "name")
			args, argsOK = stringField(fn, "arguments")
		}
		if !idOK || !nameOK || id == "" || name == "" {
			return nil, fmt.Errorf("tool_calls[%d] has no id or no function.name (each a non-empty string)", i)
		}
		if !argsOK {
			return nil, fmt.Errorf("tool_calls[%d] (%s): function.arguments is %s; it is a string holding the JSON arguments", i, id, jsonKind(fn["arguments"]))
		}
		if args == "" {
			args = "{}"
		}
		// Arguments that are not JSON are the model's mistake, not the
		// caller's: the call gets a result saying so.
		uses = append(uses, core.ToolUse{ID: id, Name: name, Input: json.RawMessage(args)})
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

// openaiResult is a tool message. OpenAI's tool messages have no error
// flag, so riot adds the result's status (ok, failed, denied, cancelled),
// the same word as `riot call --json`: a harness tells a denial from
// success without reading the text. OpenAI's API ignores the extra field.
type openaiResult struct {
	Role       string `json:"role"`
	ToolCallID string `json:"tool_call_id"`
	Content    string `json:"content"`
	Status     string `json:"status"`
}

// renderTurn is what riot run prints for results in format, whether the
// turn ran in this process or in a session host (Server.Render).
func renderTurn(results []core.ToolResult, format string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(renderResults(results, format)); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
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
			out[i] = openaiResult{Role: "tool", ToolCallID: r.ToolUseID, Content: text, Status: string(r.Status)}
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
