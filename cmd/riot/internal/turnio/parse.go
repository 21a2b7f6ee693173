// Package turnio reads one assistant turn's tool calls as the CLI takes
// them (riot run's Anthropic and OpenAI shapes, riot call's input) and
// writes their results as the CLI prints them, with its messages for a
// malformed turn in riot's own words.
//
// A session host renders its clients' results with it too, so that a turn
// run there prints the same bytes as one run in the client.
package turnio

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/riot-tools/riot/core/toolcall"
)

// Parse reads one assistant turn's tool calls. The Anthropic shape is
// an array of tool_use blocks, or a message whose content holds them; the
// OpenAI shape is an array of tool_calls, or a message holding them. Other
// content blocks are skipped. A malformed turn is an error saying what riot
// expected and what it found, in its own words: the shapes are checked
// here, not left to encoding/json's messages about Go types.
func Parse(data []byte, format string) ([]toolcall.ToolUse, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, fmt.Errorf("the turn is empty; give a JSON array of tool_use blocks, or an assistant message holding them")
	}
	if p := SyntaxProblem(data); p != "" {
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
	if Kind(raw) != "an object" {
		return nil, false
	}
	var m map[string]json.RawMessage
	return m, json.Unmarshal(raw, &m) == nil
}

// array decodes raw, known to be valid JSON, as an array.
func array(raw json.RawMessage) ([]json.RawMessage, bool) {
	if Kind(raw) != "an array" {
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
	if Kind(raw) != "a string" || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

func parseAnthropic(data []byte) ([]toolcall.ToolUse, error) {
	const want = "a JSON array of tool_use blocks, or an assistant message holding them in its content"
	if msg, ok := object(data); ok {
		content, ok := msg["content"]
		if !ok || Kind(content) != "an array" {
			return nil, fmt.Errorf("the message has no content array of tool_use blocks; give %s", want)
		}
		data = content
	}
	blocks, ok := array(data)
	if !ok {
		return nil, fmt.Errorf("the turn is %s; give %s", Kind(data), want)
	}
	var uses []toolcall.ToolUse
	for i, raw := range blocks {
		b, ok := object(raw)
		if !ok {
			return nil, fmt.Errorf("block %d is %s; each block is an object such as {\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"Read\",\"input\":{}}", i, Kind(raw))
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
		} else if Kind(input) != "an object" {
			return nil, fmt.Errorf("block %d (%s): input is %s; a tool_use's input is a JSON object", i, id, Kind(input))
		}
		uses = append(uses, toolcall.ToolUse{ID: id, Name: name, Input: input})
	}
	return uses, checkIDs(uses)
}

func parseOpenAI(data []byte) ([]toolcall.ToolUse, error) {
	const want = "a JSON array of tool_calls, or an assistant message holding them in tool_calls"
	if msg, ok := object(data); ok {
		calls, ok := msg["tool_calls"]
		if !ok || Kind(calls) != "an array" {
			return nil, fmt.Errorf("the message has no tool_calls array; give %s", want)
		}
		data = calls
	}
	calls, ok := array(data)
	if !ok {
		return nil, fmt.Errorf("the turn is %s; give %s", Kind(data), want)
	}
	uses := make([]toolcall.ToolUse, 0, len(calls))
	for i, raw := range calls {
		c, ok := object(raw)
		if !ok {
			return nil, fmt.Errorf("tool_calls[%d] is %s; each is an object such as {\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"Read\",\"arguments\":\"{}\"}}", i, Kind(raw))
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
			return nil, fmt.Errorf("tool_calls[%d] (%s): function.arguments is %s; it is a string holding the JSON arguments", i, id, Kind(fn["arguments"]))
		}
		if args == "" {
			args = "{}"
		}
		// Arguments that are not JSON are the model's mistake, not the
		// caller's: the call gets a result saying so.
		uses = append(uses, toolcall.ToolUse{ID: id, Name: name, Input: json.RawMessage(args)})
	}
	return uses, checkIDs(uses)
}

func checkIDs(uses []toolcall.ToolUse) error {
	seen := map[string]bool{}
	for _, u := range uses {
		if seen[u.ID] {
			return fmt.Errorf("two tool calls share the id %q; each needs its own result", u.ID)
		}
		seen[u.ID] = true
	}
	return nil
}
