package mcpsource

import (
	"strings"
	"testing"
)

var colorForm = map[string]any{
	"type": "object", "required": []any{"color"},
	"properties": map[string]any{
		"color": map[string]any{"type": "string", "enum": []any{"red", "blue"}},
		"count": map[string]any{"type": "integer", "minimum": 1},
	},
}

// A form riot cannot ask, or whose references would be fetched, is
// refused before anyone is asked.
func TestElicitFormRefusesWhatMCPDoesNotAllow(t *testing.T) {
	for _, tc := range []struct {
		schema any
		why    string
	}{
		{map[string]any{"type": "string"}, "not an object schema"},
		{"nope", "not an object schema"},
		{map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "object"}}}, `field "a" is not a string`},
		{map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "array"}}}, `field "a" is an array but not a multi-select`},
		{map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "array", "items": map[string]any{"type": "integer", "enum": []any{1, 2}}}}}, `field "a" is an array but not a multi-select`},
		{map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "array", "items": map[string]any{"type": "object"}}}}, `field "a" is an array but not a multi-select`},
		{map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "array", "items": map[string]any{"anyOf": []any{map[string]any{"const": 1}}}}}}, `field "a" is an array but not a multi-select`},
		{map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "string", "$ref": "file:///etc/passwd"}}}, "not a valid schema"},
		{map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "string", "pattern": "("}}}, "not a valid schema"},
	} {
		_, _, err := elicitForm(tc.schema)
		if err == nil || !strings.Contains(err.Error(), tc.why) {
			t.Errorf("%v: got %v, want %q", tc.schema, err, tc.why)
		}
	}
}

// An answer is passed on only if it fits the form: the right kinds, the
// required fields, and no field the form does not name.
func TestElicitFormChecksTheAnswer(t *testing.T) {
	_, f, err := elicitForm(colorForm)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		content map[string]any
		why     string
	}{
		{map[string]any{"color": "red"}, ""},
		{map[string]any{"color": "blue", "count": 3}, ""},
		{map[string]any{"color": "green"}, "a field is missing or of the wrong kind"},
		{map[string]any{"count": 2}, "a field is missing or of the wrong kind"},
		{map[string]any{"color": "red", "count": 0}, "a field is missing or of the wrong kind"},
		{map[string]any{"color": "red", "count": "3"}, "a field is missing or of the wrong kind"},
		{map[string]any{"color": "red", "admin": true}, `fields the form does not ask for: "admin"`},
		{nil, "a field is missing or of the wrong kind"},
	} {
		if got := f.check(tc.content); got != tc.why && (tc.why == "" || !strings.Contains(got, tc.why)) {
			t.Errorf("%v: got %q, want %q", tc.content, got, tc.why)
		}
	}
}

// A multi-select (valid since 2025-11-25: an array of strings from items'
// enum, or from items' anyOf of const) is asked, and its answer checked.
func TestElicitFormMultiSelect(t *testing.T) {
	for _, items := range []map[string]any{
		{"type": "string", "enum": []any{"red", "green", "blue"}},
		{"anyOf": []any{map[string]any{"const": "red", "title": "Red"}, map[string]any{"const": "green", "title": "Green"}, map[string]any{"const": "blue", "title": "Blue"}}},
	} {
		_, f, err := elicitForm(map[string]any{
			"type": "object", "required": []any{"colors"},
			"properties": map[string]any{"colors": map[string]any{"type": "array", "items": items, "minItems": 1}},
		})
		if err != nil {
			t.Fatalf("%v: %v", items, err)
		}
		for _, tc := range []struct {
			colors any
			fits   bool
		}{
			{[]any{"red"}, true},
			{[]any{"red", "blue"}, true},
			{[]any{}, false},
			{[]any{"purple"}, false},
			{"red", false},
		} {
			if got := f.check(map[string]any{"colors": tc.colors}); (got == "") != tc.fits {
				t.Errorf("%v, %v: %q", items, tc.colors, got)
			}
		}
	}
}
