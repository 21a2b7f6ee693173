package config

import (
	"fmt"
	"reflect"
	"strings"
	"time"
)

// checkTypes walks a file's values, decoded generically, against the
// layer schema and reports the first value of the wrong type in riot's
// words: "state_dir must be a string, not an integer". The toml package's
// own type errors name Go types ("a int64", "a slice") and carry their line
// only in their text, so riot never shows or parses them: the typed decode
// runs only after this check passed.
func checkTypes(values map[string]any, schema reflect.Type, path []string, at func(key ...string) Source) *Error {
	for i := range schema.NumField() {
		f := schema.Field(i)
		key, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
		v, ok := values[key]
		if !ok {
			continue // unset, or the key is unknown: md.Undecoded reports those
		}
		if err := checkValue(v, f.Type, append(path, key), at); err != nil {
			return err
		}
	}
	return nil
}

var durationType = reflect.TypeFor[duration]()

func checkValue(v any, t reflect.Type, path []string, at func(key ...string) Source) *Error {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	name := path[len(path)-1]
	bad := func(want string) *Error {
		return &Error{Source: at(path...), Msg: fmt.Sprintf("%s must be %s, not %s", name, want, tomlKind(v))}
	}
	switch {
	case t == durationType:
		s, ok := v.(string)
		if !ok {
			return bad(`a duration string such as "90s" or "10m"`)
		}
		var d duration
		if err := d.UnmarshalText([]byte(s)); err != nil {
			return &Error{Source: at(path...), Msg: strings.Join(path, ".") + ": " + err.Error()}
		}
	case t.Kind() == reflect.String:
		if _, ok := v.(string); !ok {
			return bad("a string")
		}
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Int64:
		if _, ok := v.(int64); !ok {
			return bad("an integer")
		}
	case t.Kind() == reflect.Bool:
		if _, ok := v.(bool); !ok {
			return bad("true or false")
		}
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.String:
		list, ok := v.([]any)
		if !ok {
			return bad(`an array of strings, such as ["a", "b"]`)
		}
		for i, e := range list {
			if _, ok := e.(string); !ok {
				return &Error{Source: at(path...), Msg: fmt.Sprintf("%s[%d] must be a string, not %s", name, i, tomlKind(e))}
			}
		}
	case t.Kind() == reflect.Slice: // of tables: [[hooks.PreToolUse]]
		var tables []map[string]any
		switch list := v.(type) {
		case []map[string]any:
			tables = list
		case []any:
			for i, e := range list {
				table, ok := e.(map[string]any)
				if !ok {
					return &Error{Source: at(path...), Msg: fmt.Sprintf("%s[%d] must be a table, not %s", name, i, tomlKind(e))}
				}
				tables = append(tables, table)
			}
		default:
			return bad(fmt.Sprintf("an array of tables, [[%s]]", strings.Join(path, ".")))
		}
		for _, table := range tables {
			if err := checkTypes(table, t.Elem(), path, at); err != nil {
				return err
			}
		}
	case t.Kind() == reflect.Struct:
		table, ok := v.(map[string]any)
		if !ok {
			return bad(fmt.Sprintf("a table, [%s]", strings.Join(path, ".")))
		}
		return checkTypes(table, t, path, at)
	case t.Kind() == reflect.Map:
		table, ok := v.(map[string]any)
		if !ok {
			return bad(fmt.Sprintf("a table, [%s]", strings.Join(path, ".")))
		}
		for k, e := range table {
			if t.Elem().Kind() == reflect.String {
				if _, ok := e.(string); !ok {
					// env: any name is valid, every value a string.
					return &Error{Source: at(append(path, k)...), Msg: fmt.Sprintf("[%s] values must be strings: %s is %s", strings.Join(path, "."), k, tomlKind(e))}
				}
				continue
			}
			if err := checkValue(e, t.Elem(), append(path, k), at); err != nil {
				return err
			}
		}
	}
	return nil
}

// tomlKind names a decoded TOML value's type as the TOML spec does.
func tomlKind(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case []any, []map[string]any:
		return "an array"
	case map[string]any:
		return "a table"
	case time.Time:
		return "a date-time"
	default:
		return "a date or time"
	}
}

// checkable reports whether checkTypes knows every value type under t, so
// that a field added with a type it does not know fails a test rather than
// reaching the toml package's own messages.
func checkable(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == durationType, t.Kind() == reflect.String, t.Kind() == reflect.Bool,
		t.Kind() >= reflect.Int && t.Kind() <= reflect.Int64:
		return true
	case t.Kind() == reflect.Slice, t.Kind() == reflect.Map:
		return t.Elem().Kind() == reflect.String || checkable(t.Elem())
	case t.Kind() == reflect.Struct:
		for i := range t.NumField() {
			if !checkable(t.Field(i).Type) {
				return false
			}
		}
		return true
	}
	return false
}
