package config

import (
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Entry is one effective value as riot config prints it: key = value, or
// key += value for one element of a list that adds up across layers.
type Entry struct {
	Key    string
	Op     string
	Value  string
	Source Source
}

// Entries are every key of the schema with its effective value and where it
// came from, in schema order: empty lists and maps, and keys no layer set,
// included, so that the listing is the whole configuration riot runs with.
// A field's unset tag says what a zero value means instead (another key's
// value, shown as that key's), and its secret
// tag keeps a map's values (HTTP headers) off the screen.
func (c *Config) Entries() []Entry {
	var out []Entry
	c.entries(reflect.ValueOf(c).Elem(), nil, Source{Layer: "default"}, false, &out)
	// An unset value that stands for another key's is that key's value.
	for i, e := range out {
		if ref, ok := strings.CutPrefix(e.Value, "(unset: "); ok {
			ref = strings.TrimSuffix(ref, ")")
			if j := slices.IndexFunc(out, func(e Entry) bool { return e.Key == ref }); j >= 0 {
				out[i].Value, out[i].Source = out[j].Value, Source{Layer: ref}
			}
		}
	}
	return out
}

// entries lists the table v at path; unset is the source of a key no layer
// set, and inEntry says v is an entry, whose lists are one value.
func (c *Config) entries(v reflect.Value, path []string, unset Source, inEntry bool, out *[]Entry) {
	for f := range fields(v.Type()) {
		key := append(slices.Clip(path), f.key)
		k := strings.Join(key, ".")
		src, ok := c.Sources[k]
		if !ok {
			src = unset
		}
		add := func(k, op, value string, src Source) { *out = append(*out, Entry{k, op, value, src}) }
		fv := v.FieldByIndex(f.Index)
		if u := f.Tag.Get("unset"); u != "" && fv.IsZero() {
			add(k, "=", "(unset: "+u+")", src)
			continue
		}
		switch {
		case f.shape == table:
			c.entries(fv, key, unset, inEntry, out)
		case f.shape == namedTables:
			for i := range fv.Len() {
				e, u := fv.Index(i), unset
				if s := e.FieldByName("Source"); s.IsValid() && s.Type() == reflect.TypeFor[Source]() {
					u = s.Interface().(Source) // where the entry was written: .mcp.json
				}
				c.entries(e, append(key, e.FieldByName("Name").String()), u, true, out)
			}
		case f.shape == stringMap && fv.Len() == 0:
			add(k, "=", "{}", src)
		case f.shape == stringMap:
			for _, name := range slices.Sorted(maps.Keys(fv.Interface().(map[string]string))) {
				value := strconv.Quote(fv.MapIndex(reflect.ValueOf(name)).String())
				if f.Tag.Get("secret") != "" {
					value = "(set, not shown)"
				}
				add(k+"."+name, "=", value, src)
			}
		case f.shape == list && inEntry:
			add(k, "=", "["+strings.Join(quoteAll(fv.Interface().([]string)), ", ")+"]", src)
		case (f.shape == list || f.shape == arrayTables) && fv.Len() == 0:
			add(k, "=", "[]", src)
		case f.shape == list || f.shape == arrayTables:
			for i := range fv.Len() {
				e, s := fv.Index(i), src
				if e.Kind() == reflect.Struct {
					s = e.FieldByName("Source").Interface().(Source)
				}
				add(k, "+=", format(e), s)
			}
		default:
			add(k, "=", format(fv), src)
		}
	}
}

// format is a value as a config file writes it: an entry of an array of
// tables as an inline table, a located string as its text.
func format(v reflect.Value) string {
	switch {
	case v.Kind() == reflect.Pointer && v.IsNil():
		return "(unset)"
	case v.Kind() == reflect.Pointer:
		return format(v.Elem())
	case v.Type() == durationType:
		return strconv.Quote(FormatDuration(time.Duration(v.Int())))
	case v.Kind() == reflect.Struct && isLocated(v.Type()):
		return format(v.Field(0))
	case v.Kind() == reflect.Struct:
		var kv []string
		for f := range fields(v.Type()) {
			fv := v.FieldByIndex(f.Index)
			if _, opt, _ := strings.Cut(f.Tag.Get("toml"), ","); opt == "omitempty" && fv.IsZero() {
				continue
			}
			kv = append(kv, f.key+" = "+formatField(f, fv))
		}
		return "{" + strings.Join(kv, ", ") + "}"
	case v.Kind() == reflect.String:
		return strconv.Quote(v.String())
	case v.Kind() == reflect.Bool:
		return strconv.FormatBool(v.Bool())
	}
	return strconv.FormatInt(v.Int(), 10)
}

// formatField is an entry's field as an inline table writes it: lists and
// maps too, a secret map's values hidden.
func formatField(f field, v reflect.Value) string {
	switch f.shape {
	case list:
		return "[" + strings.Join(quoteAll(v.Interface().([]string)), ", ") + "]"
	case stringMap:
		var kv []string
		for _, name := range slices.Sorted(maps.Keys(v.Interface().(map[string]string))) {
			value := strconv.Quote(v.MapIndex(reflect.ValueOf(name)).String())
			if f.Tag.Get("secret") != "" {
				value = strconv.Quote("(set, not shown)")
			}
			kv = append(kv, name+" = "+value)
		}
		return "{" + strings.Join(kv, ", ") + "}"
	case scalar, table, namedTables, arrayTables:
	}
	return format(v)
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}

// FormatDuration is d as a config file would say it, in
// time.ParseDuration's terms: 10m, 10s, 1m30s, 1h, never 10m0s.
func FormatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
