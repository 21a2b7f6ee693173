package plugin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// decodeInput decodes raw strictly, rejecting unknown fields. The host has
// already checked raw against the schema, so a failure here means a host
// that skipped that check; the hint is still written for the model, with
// the names fields gives, asked for only then.
func decodeInput[In any](raw []byte, fields func() []string) (In, string) {
	var in In
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err := dec.Decode(&in)
	if err == nil {
		return in, ""
	}
	return in, decodeHint(err, fields())
}

func decodeHint(err error, fields []string) string {
	accepted := "It takes no fields."
	if len(fields) > 0 {
		accepted = "It takes: " + strings.Join(quoteAll(fields), ", ") + "."
	}
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &typeErr) && typeErr.Field == "":
		return "The input must be a JSON object of this tool's fields. " + accepted
	case errors.As(err, &typeErr):
		return fmt.Sprintf("`%s` must be %s, not %s. Send it with that type.", typeErr.Field, jsonTypeName(typeErr.Type.Kind().String()), typeErr.Value)
	case errors.As(err, &syntaxErr), errors.Is(err, io.ErrUnexpectedEOF):
		return "The input is not valid JSON. Send a JSON object of this tool's fields. " + accepted
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return fmt.Sprintf("`%s` is not a field of this tool. %s", name, accepted)
	default:
		return "The input does not match this tool's fields. " + accepted
	}
}

func jsonTypeName(kind string) string {
	switch kind {
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "an integer"
	case "float32", "float64":
		return "a number"
	case "bool":
		return "a boolean"
	case "string":
		return "a string"
	case "slice", "array":
		return "an array"
	default:
		return "an object"
	}
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = "`" + s + "`"
	}
	return out
}
