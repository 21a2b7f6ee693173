package core

import (
	"bytes"
	"encoding/json"
)

// params are the tool's parameters, the top-level properties of its input
// schema, against which the permission rules naming it are checked
// (permission.Policy.CheckTool); nil when the schema does not say.
func (t *tool) params() []string {
	t.paramsOnce.Do(func() { t.paramNames = schemaParams(t.spec.InputSchema) })
	return t.paramNames
}

func schemaParams(schema []byte) []string {
	var s struct {
		Properties *json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return nil
	}
	out := []string{} // no properties: a tool without parameters, checked as such
	if s.Properties == nil {
		return out
	}
	// Decoded in order, as the schema lists them, for the messages.
	dec := json.NewDecoder(bytes.NewReader(*s.Properties))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		name, _ := tok.(string)
		out = append(out, name)
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return nil
		}
	}
	return out
}
