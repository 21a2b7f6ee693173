package config

import (
	"fmt"
	"iter"
	"maps"
	"net/url"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// The schema is Config's own fields: each key is declared once, by the tags
// of its field, and the type checks, unknown-key suggestions, the merge with
// each value's Source (layer.go), the trust gate (gate.go) and what riot
// config prints (Entries) all follow from them:
//
//	toml:"name"         the key; a field without one is not a key. A
//	                    *bool is a boolean that stays nil until a layer
//	                    sets it, for a key whose unset means a default
//	                    decided elsewhere.
//	toml:"name,named"   a table of tables by name, [plugins.NAME], kept as a
//	                    slice in the order a layer first names each.
//	trust:"tighten"     an untrusted workspace file may set it: it can only
//	                    make riot ask, deny or hide more. trust:"loosen": it
//	                    may not. A named table or array of tables says it for
//	                    its entries; a key that says neither loosens.
//	min:"N" max:"N"     an integer's bounds.
//	check:"NAME"        one of runCheck's checks of the value as merged.
//	env:"RIOT_X"        the environment variable that sets it.
//	moved:"key"         on a table that was once a key: a value written
//	                    where the table is now is an error saying to
//	                    write it as the table's key instead.
//
// How a value merges follows from its type: a scalar or a list inside a named
// table replaces, a list elsewhere adds up, so that no layer removes what
// a layer below listed (a []Rule, []SandboxPath or []Item keeps each
// element's line), a map merges by name, an array of tables appends.
// Entries of named tables and arrays of tables implement entry.

// shape is how a key's value is written and merged.
type shape int

const (
	scalar      shape = iota // string, integer, boolean or duration
	list                     // array of strings
	stringMap                // table of strings by any name: env
	table                    // [table]
	namedTables              // [table.NAME]
	arrayTables              // [[table]]
)

// field is one key of a table of the schema.
type field struct {
	reflect.StructField
	key   string
	shape shape
}

var (
	durationType = reflect.TypeFor[time.Duration]()
	locatedType  = reflect.TypeFor[located]()
)

// located is an element of a list kept with its line: a Rule, a
// SandboxPath, an Item.
type located interface{ locate(text string, src Source) }

// entry is an element of a named table or of an array of tables.
type entry interface {
	// begin starts a new entry, written at src.
	begin(name string, src Source)
	// finish checks the entry once a layer's values are merged into it.
	finish(key []string, src Source) error
}

// fields yields the keys of the table type t, in declaration order.
// Config loads at every start, so it walks the struct without allocating.
func fields(t reflect.Type) iter.Seq[field] {
	return func(yield func(field) bool) {
		for i := range t.NumField() {
			f := t.Field(i)
			name, opt, _ := strings.Cut(f.Tag.Get("toml"), ",")
			if name == "" || !f.IsExported() {
				continue
			}
			k := f.Type.Kind()
			s := scalar
			switch {
			case opt == "named":
				s = namedTables
			case k == reflect.Struct:
				s = table
			case k == reflect.Map:
				s = stringMap
			case k == reflect.Slice && f.Type.Elem().Kind() == reflect.Struct && !isLocated(f.Type.Elem()):
				s = arrayTables
			case k == reflect.Slice:
				s = list
			}
			if !yield(field{f, name, s}) {
				return
			}
		}
	}
}

func isLocated(t reflect.Type) bool { return reflect.PointerTo(t).Implements(locatedType) }

// elem is the table type under f: its own, or its entries'.
func (f field) elem() reflect.Type {
	if f.shape == table {
		return f.Type
	}
	return f.Type.Elem()
}

// fieldOf finds the key in table t.
func fieldOf(t reflect.Type, key string) (field, bool) {
	for f := range fields(t) {
		if f.key == key {
			return f, true
		}
	}
	return field{}, false
}

// checkTypes walks a file's values, decoded generically, against the
// schema and reports the first value of the wrong type in riot's words:
// "state_dir must be a string, not an integer". The toml package's own type
// errors name Go types ("a int64", "a slice"), so riot never decodes a file
// into typed fields: the merge reads the values this check passed.
func checkTypes(values map[string]any, t reflect.Type, path []string, at func(key ...string) Source) *Error {
	for f := range fields(t) {
		if v, ok := values[f.key]; ok {
			if err := checkValue(v, f, append(slices.Clip(path), f.key), at); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkValue(v any, f field, path []string, at func(key ...string) Source) *Error {
	name := path[len(path)-1]
	bad := func(want string) *Error {
		return &Error{Source: at(path...), Msg: fmt.Sprintf("%s must be %s, not %s", name, want, tomlKind(v))}
	}
	tableName := strings.Join(path, ".")
	switch f.shape {
	case scalar:
		return checkScalar(v, f.Type, path, bad, at)
	case list:
		items, ok := v.([]any)
		if !ok {
			return bad(`an array of strings, such as ["a", "b"]`)
		}
		for i, e := range items {
			if _, ok := e.(string); !ok {
				return &Error{Source: at(path...), Msg: fmt.Sprintf("%s[%d] must be a string, not %s", name, i, tomlKind(e))}
			}
		}
	case arrayTables:
		var items []map[string]any
		switch l := v.(type) {
		case []map[string]any:
			items = l
		case []any:
			for i, e := range l {
				t, ok := e.(map[string]any)
				if !ok {
					return &Error{Source: at(path...), Msg: fmt.Sprintf("%s[%d] must be a table, not %s", name, i, tomlKind(e))}
				}
				items = append(items, t)
			}
		default:
			return bad(fmt.Sprintf("an array of tables, [[%s]]", tableName))
		}
		for _, t := range items {
			if err := checkTypes(t, f.elem(), path, at); err != nil {
				return err
			}
		}
	default:
		m, ok := v.(map[string]any)
		if to := f.Tag.Get("moved"); !ok && to != "" {
			return &Error{Source: at(path...), Msg: movedKey(path, to, v)}
		}
		if !ok {
			return bad(fmt.Sprintf("a table, [%s]", tableName))
		}
		if f.shape == table {
			return checkTypes(m, f.Type, path, at)
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			e := m[k]
			_, isString := e.(string)
			t, isTable := e.(map[string]any)
			switch {
			case f.shape == stringMap && !isString:
				// env: any name is valid, every value a string.
				return &Error{Source: at(append(path, k)...), Msg: fmt.Sprintf("[%s] values must be strings: %s is %s", tableName, k, tomlKind(e))}
			case f.shape == namedTables && !isTable:
				return &Error{Source: at(append(path, k)...), Msg: fmt.Sprintf("%s must be a table, [%s.%s], not %s", k, tableName, k, tomlKind(e))}
			case f.shape == namedTables:
				if err := checkTypes(t, f.elem(), append(slices.Clip(path), k), at); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func checkScalar(v any, t reflect.Type, path []string, bad func(string) *Error, at func(key ...string) Source) *Error {
	if t.Kind() == reflect.Pointer {
		t = t.Elem() // optional: nil until a layer sets it
	}
	switch t.Kind() {
	case reflect.String:
		if _, ok := v.(string); !ok {
			return bad("a string")
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			return bad("true or false")
		}
	default:
		if t != durationType {
			if _, ok := v.(int64); !ok {
				return bad("an integer")
			}
			return nil
		}
		s, ok := v.(string)
		if !ok {
			return bad(`a duration string such as "90s" or "10m"`)
		}
		if _, err := parseDuration(s); err != nil {
			return &Error{Source: at(path...), Msg: strings.Join(path, ".") + ": " + err.Error()}
		}
	}
	return nil
}

// movedKey says that the key at path, written as a value, is now the
// table of the same name, whose key to says what the value said.
func movedKey(path []string, to string, v any) string {
	table, name := strings.Join(path, "."), path[len(path)-1]
	if len(path) > 1 {
		name = fmt.Sprintf("[%s] %s", strings.Join(path[:len(path)-1], "."), name)
	}
	value := fmt.Sprint(v)
	if s, ok := v.(string); ok {
		value = strconv.Quote(s)
	}
	return fmt.Sprintf("%s is now the table [%s]; write %s = %s under [%s] instead", name, table, to, value, table)
}

// unknownKey reports the first key, in file order, that the schema does
// not have, with the nearest valid one.
func unknownKey(keys []toml.Key, at func(key ...string) Source) *Error {
	for _, k := range keys {
		t := reflect.TypeFor[Config]()
	walk:
		for i := 0; i < len(k); i++ {
			f, ok := fieldOf(t, k[i])
			if !ok {
				return unknownIn(k[:i+1], t, at)
			}
			switch f.shape {
			case namedTables:
				i++ // the entry's name
			case table, arrayTables:
			default:
				break walk // a value: what is under it, its type check saw
			}
			t = f.elem()
		}
	}
	return nil
}

func unknownIn(key []string, t reflect.Type, at func(key ...string) Source) *Error {
	var valid []string
	for f := range fields(t) {
		valid = append(valid, f.key)
	}
	name := key[len(key)-1]
	msg := fmt.Sprintf("unknown key %q", name)
	if len(key) > 1 {
		msg = fmt.Sprintf("unknown key %q in [%s]", name, strings.Join(key[:len(key)-1], "."))
	}
	if s := nearest(name, valid); s != "" {
		msg += fmt.Sprintf("; did you mean %q?", s)
	} else {
		msg += "; valid keys are " + strings.Join(valid, ", ")
	}
	return &Error{Source: at(key...), Msg: msg}
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

// checkBounds checks v, the value of f as merged from file (empty for
// the defaults and the environment), by f's min, max and check tags, and
// says what is wrong with it, or "". A check may normalise
// v: sha256 lowercases, a path is made relative to its file.
func checkBounds(f field, v reflect.Value, file string) string {
	if lo, err := strconv.ParseInt(f.Tag.Get("min"), 10, 64); err == nil {
		hi, err := strconv.ParseInt(f.Tag.Get("max"), 10, 64)
		switch n := v.Int(); {
		case err == nil && (n < lo || n > hi):
			return fmt.Sprintf("%s must be from %d to %d, not %d", f.key, lo, hi, n)
		case n < lo:
			return fmt.Sprintf("%s must be at least %d, not %d", f.key, lo, n)
		}
	}
	return runCheck(f.Tag.Get("check"), f.key, v, file)
}

// runCheck runs the check named by a check tag on v, the value of key.
func runCheck(check, key string, v reflect.Value, file string) string {
	switch check {
	case "":
		return ""
	case "mode":
		if !slices.Contains(Modes, Mode(v.String())) {
			return badMode(v.String())
		}
	case "log_level":
		return oneOf("log level", v.String(), logLevels)
	case "sandbox_mode":
		return oneOf("sandbox mode", v.String(), SandboxModes)
	case "network_mode":
		return oneOf("network mode", v.String(), NetworkModes)
	case "domain":
		return checkDomain(v.String())
	case "env_pattern":
		return checkEnvPattern(v.String())
	case "env_name":
		return checkEnvName(v.String())
	case "command_pattern":
		return checkCommandPattern(v.String())
	case "positive":
		if v.Int() <= 0 {
			return key + " must be more than zero"
		}
	case "url":
		return checkURL(v.String())
	case "sha256":
		v.SetString(strings.ToLower(v.String()))
		if v.String() != "" && !sha256Hex().MatchString(v.String()) {
			return "sha256 must be 64 hexadecimal digits, as printed by `sha256sum`"
		}
	case "relative_to_file":
		if p := v.String(); p != "" && !filepath.IsAbs(p) && file != "" {
			v.SetString(filepath.Join(filepath.Dir(file), p))
		}
	case "absolute_path", "existing_path":
		// The embedded defaults list toolchain directories that exist only
		// where that toolchain is installed.
		return checkSandboxPath(v.String(), check == "existing_path" && file != "")
	default:
		return "riot has no check " + strconv.Quote(check) + " for " + key + "; please report it"
	}
	return ""
}

// oneOf says that v is not one of valid, or "".
func oneOf[T ~string](what, v string, valid []T) string {
	if slices.Contains(valid, T(v)) {
		return ""
	}
	return fmt.Sprintf("unknown %s %q; use one of %s", what, v, join(valid, ", "))
}

// join is strings.Join for a string type's values.
func join[T ~string](values []T, sep string) string {
	var b strings.Builder
	for i, v := range values {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(string(v))
	}
	return b.String()
}

func checkURL(raw string) string {
	if raw == "" {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Sprintf("classifier url %q is not an http(s) URL such as \"http://127.0.0.1:11434/v1/chat/completions\"", raw)
	}
	return ""
}
