package turnio

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzParseTurn: any input either parses into calls that each have an id,
// a name and a JSON input, or fails with riot's own message, never a
// panic or encoding/json's text about Go types.
func FuzzParseTurn(f *testing.F) {
	for _, s := range []string{
		``, `null`, `[null]`, `[{}]`, `nope`, `[1,`, `{"content":[{"type":"tool_use","id":"a","name":"Read","input":{}}]}`,
		`[{"type":"tool_use","id":"a","name":"Read","input":[1]}]`, `{"tool_calls":[{"id":"c","function":{"name":"R","arguments":"{}"}}]}`,
		"[\n {\"a\":\xff}]", `[] x`, `[{"type":"text","text":"hi"}]`,
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, openai bool) {
		format := "anthropic"
		if openai {
			format = "openai"
		}
		uses, err := Parse(data, format)
		if err != nil {
			msg := err.Error()
			for _, raw := range []string{"json:", "Go value", "main.", "invalid character", "unmarshal"} {
				if strings.Contains(msg, raw) {
					t.Fatalf("library text %q in %q", raw, msg)
				}
			}
			return
		}
		ids := map[string]bool{}
		for _, u := range uses {
			if u.ID == "" || u.Name == "" || ids[u.ID] {
				t.Fatalf("a call without an id or a name, or a repeated id: %+v", u)
			}
			ids[u.ID] = true
			if !openai && (!json.Valid(u.Input) || Kind(u.Input) != "an object") {
				t.Fatalf("an input that is not a JSON object: %s", u.Input)
			}
		}
	})
}
