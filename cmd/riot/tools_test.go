package main

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/riot-tools/riot/core"
)

// The shapes of tools[] as the APIs define them: writeToolsJSON must print
// what json.MarshalIndent prints for these.
type anthropicTool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"input_schema"`
	DeferLoading bool            `json:"defer_loading,omitempty"`
}

type openaiTool struct {
	Type     string         `json:"type"`
	Function openaiFunction `json:"function"`
}

type openaiFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// TestToolsJSONShape: tools --json prints byte for byte what marshalling
// the API's shape with a two-space indent prints, whatever the schemas and
// descriptions hold: nesting, empty objects and arrays, strings with
// characters Marshal escapes, a schema written with its own spacing, and
// a tool without a schema.
func TestToolsJSONShape(t *testing.T) {
	tools := []core.ToolInfo{
		{Name: "Bash", Description: "Runs <cmd> & \"quotes\"\u2028line\tend", InputSchema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string","description":"a <b> & c"},"n":{"type":["integer","null"],"enum":[1,2.5,-3e2]}},"required":["command"],"additionalProperties":false}`)},
		{Name: "Empty", Description: "", InputSchema: json.RawMessage(" {\n\t\"type\" : \"object\" , \"properties\" : { } , \"x\": [ ] }\n ")},
		{Name: "None", Description: "ünïcode ✓"},
		{Name: "Later", Description: "A deferred tool.", InputSchema: json.RawMessage(`{"type":"object"}`), Deferred: true},
	}
	for _, format := range []string{"anthropic", "openai"} {
		for _, list := range [][]core.ToolInfo{tools, tools[:1], tools[3:], nil} {
			want := make([]any, 0, len(list))
			for _, t := range list {
				if format == "openai" && t.Deferred {
					continue // OpenAI has no deferral: ToolSearch returns it
				}
				if format == "openai" {
					want = append(want, openaiTool{Type: "function", Function: openaiFunction{Name: t.Name, Description: t.Description, Parameters: t.InputSchema}})
				} else {
					want = append(want, anthropicTool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema, DeferLoading: t.Deferred})
				}
			}
			wb, err := json.MarshalIndent(want, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := writeToolsJSON(&got, list, format); err != nil {
				t.Fatal(err)
			}
			if got.String() != string(wb)+"\n" {
				t.Errorf("%s, %d tools:\ngot:\n%s\nwant:\n%s", format, len(list), got.String(), wb)
			}
		}
	}
	var out bytes.Buffer
	if err := writeToolsJSON(&out, []core.ToolInfo{{Name: "Bad", InputSchema: json.RawMessage(`{"type":`)}}, "anthropic"); err == nil {
		t.Errorf("a schema that is not JSON was printed: %s", out.String())
	}
}
