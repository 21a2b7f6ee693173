package core

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/riot-tools/riot/internal/jsonschema"
	"github.com/riot-tools/riot/internal/jsonschema/kind"
)

// validator checks inputs against one tool's schema. It is compiled once
// per Manifest, and turns each kind of violation into an imperative hint
// for the model; a validator's own messages never reach the model.
type validator struct {
	tool   string
	schema *jsonschema.Schema
	props  map[string]propInfo
	fields []string
}

type propInfo struct {
	typ         string
	description string
}

// compileValidator compiles a tool's input schema into its validator.
//
// checked says the schema passed its meta-schema check when its plugin
// sent the manifest (in this process, or in the one whose cache entry
// says so), so it compiles without it: the check is
// the only use of the meta-schemas in compiling, and compiling them costs
// a one-shot riot's first call 2-3 ms of CPU. Compiled without the check,
// a mistyped keyword (a cache file edited by hand) reads as absent, and
// the plugin's strict decoding still runs (TestCheckedSchemaCompilesAsAChecked).
func compileValidator(tool string, raw []byte, checked bool) (*validator, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("schema of %s is not JSON: %w", tool, err)
	}
	c := jsonschema.NewCompiler()
	if checked {
		c.SkipMetaValidation()
	}
	url := "riot:///tools/" + tool + ".json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("schema of %s: %w", tool, err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("schema of %s does not compile: %w", tool, err)
	}
	v := &validator{tool: tool, schema: sch, props: map[string]propInfo{}}
	var shape struct {
		Properties map[string]struct {
			Type        any    `json:"type"`
			Description string `json:"description"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(raw, &shape)
	for name, p := range shape.Properties {
		typ := ""
		switch t := p.Type.(type) {
		case string:
			typ = t
		case []any:
			parts := make([]string, 0, len(t))
			for _, x := range t {
				parts = append(parts, fmt.Sprint(x))
			}
			typ = strings.Join(parts, " or ")
		}
		v.props[name] = propInfo{typ: typ, description: p.Description}
		v.fields = append(v.fields, name)
	}
	slices.Sort(v.fields)
	return v, nil
}

// check returns "" if input is valid, or the hint for the model.
func (v *validator) check(input json.RawMessage) string {
	if len(bytes.TrimSpace(input)) == 0 {
		input = json.RawMessage("{}")
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(input))
	if err != nil {
		return fmt.Sprintf("The input for %s is not valid JSON. Send a JSON object with %s.", v.tool, v.takes())
	}
	if _, ok := inst.(map[string]any); !ok {
		return fmt.Sprintf("The input for %s must be a JSON object, not %s. Send an object with %s.", v.tool, jsonKind(inst), v.takes())
	}
	err = v.schema.Validate(inst)
	if err == nil {
		return ""
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return fmt.Sprintf("The input for %s does not match its schema. Send an object with %s.", v.tool, v.takes())
	}
	var hints []string
	for _, leaf := range leaves(ve) {
		h := v.hint(leaf)
		if h != "" && !slices.Contains(hints, h) {
			hints = append(hints, h)
		}
	}
	if len(hints) == 1 {
		return fmt.Sprintf("The input for %s is invalid: %s", v.tool, hints[0])
	}
	return fmt.Sprintf("The input for %s is invalid:\n- %s", v.tool, strings.Join(hints, "\n- "))
}

func leaves(ve *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(ve.Causes) == 0 {
		return []*jsonschema.ValidationError{ve}
	}
	var out []*jsonschema.ValidationError
	for _, c := range ve.Causes {
		out = append(out, leaves(c)...)
	}
	return out
}

func (v *validator) hint(ve *jsonschema.ValidationError) string {
	field := "`" + strings.Join(ve.InstanceLocation, ".") + "`"
	switch k := ve.ErrorKind.(type) {
	case *kind.Required:
		var parts []string
		for _, m := range k.Missing {
			parts = append(parts, v.describeField(ve.InstanceLocation, m))
		}
		return "add the required field " + strings.Join(parts, ", and ") + "."
	case *kind.AdditionalProperties:
		names := make([]string, len(k.Properties))
		for i, p := range k.Properties {
			names[i] = "`" + p + "`"
		}
		what := "is not a field"
		if len(names) > 1 {
			what = "are not fields"
		}
		return fmt.Sprintf("%s %s of %s; remove it and use only %s.", strings.Join(names, ", "), what, v.tool, v.fieldList())
	case *kind.Enum:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			b, _ := json.Marshal(w)
			want[i] = string(b)
		}
		return fmt.Sprintf("set %s to one of %s.", field, strings.Join(want, ", "))
	case *kind.Const:
		b, _ := json.Marshal(k.Want)
		return fmt.Sprintf("set %s to %s.", field, b)
	case *kind.Type:
		return fmt.Sprintf("send %s as %s, not %s.", field, article(strings.Join(k.Want, " or ")), article(k.Got))
	case *kind.Minimum:
		return fmt.Sprintf("%s must be at least %s.", field, ratString(k.Want))
	case *kind.Maximum:
		return fmt.Sprintf("%s must be at most %s.", field, ratString(k.Want))
	case *kind.ExclusiveMinimum:
		return fmt.Sprintf("%s must be more than %s.", field, ratString(k.Want))
	case *kind.ExclusiveMaximum:
		return fmt.Sprintf("%s must be less than %s.", field, ratString(k.Want))
	case *kind.MinLength:
		if k.Want == 1 {
			return fmt.Sprintf("%s must not be empty.", field)
		}
		return fmt.Sprintf("%s must be at least %d characters long.", field, k.Want)
	case *kind.MaxLength:
		return fmt.Sprintf("%s must be at most %d characters long.", field, k.Want)
	case *kind.MinItems:
		return fmt.Sprintf("%s must have at least %d items.", field, k.Want)
	case *kind.MaxItems:
		return fmt.Sprintf("%s must have at most %d items.", field, k.Want)
	case *kind.Pattern:
		return fmt.Sprintf("%s must match the pattern %s.", field, k.Want)
	default:
		if d := v.props[strings.Join(ve.InstanceLocation, ".")].description; d != "" {
			return fmt.Sprintf("%s has a value this tool does not accept. It is: %s", field, d)
		}
		return fmt.Sprintf("%s has a value this tool does not accept; check the tool's description.", field)
	}
}

// describeField names a missing field with its type and description.
func (v *validator) describeField(parent []string, name string) string {
	s := "`" + name + "`"
	if len(parent) > 0 {
		return "`" + strings.Join(parent, ".") + "." + name + "`"
	}
	p := v.props[name]
	switch {
	case p.typ != "" && p.description != "":
		s += fmt.Sprintf(" (%s: %s)", p.typ, strings.TrimSuffix(p.description, "."))
	case p.typ != "":
		s += " (" + p.typ + ")"
	}
	return s
}

func (v *validator) fieldList() string {
	if len(v.fields) == 0 {
		return "no fields: send {}"
	}
	names := make([]string, len(v.fields))
	for i, f := range v.fields {
		names[i] = "`" + f + "`"
	}
	return strings.Join(names, ", ")
}

func (v *validator) takes() string {
	if len(v.fields) == 0 {
		return "no fields ({})"
	}
	return "its fields: " + v.fieldList()
}

func jsonKind(x any) string {
	switch x.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	default:
		return "an object"
	}
}

func article(t string) string {
	switch t {
	case "":
		return "another type"
	case "integer", "object", "array":
		return "an " + t
	case "null":
		return "null"
	default:
		return "a " + t
	}
}

func ratString(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	return r.FloatString(3)
}
