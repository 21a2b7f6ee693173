package config

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// parsedLayer is one config file as written, decoded generically and
// checked against the schema, with what is needed to locate its keys.
type parsedLayer struct {
	values map[string]any
	keys   []toml.Key // in file order
	sum    string     // the file's SHA-256, in hex
	src    Source
	loc    locator
}

// readLayer reads one config file; a file that does not exist is no layer.
func readLayer(path, layerName string) (*parsedLayer, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &Error{Source: Source{Layer: layerName, File: path}, Msg: "cannot read the config file: " + err.Error()}
	}
	p, err := parseLayer(data, Source{Layer: layerName, File: path})
	if p != nil {
		p.sum = fmt.Sprintf("%x", sha256.Sum256(data))
	}
	return p, err
}

// parseLayer decodes a file and checks its types and keys. The decode's
// only error is the syntax, a typed toml.ParseError with the position;
// the types and keys are riot's to check, in riot's words.
func parseLayer(data []byte, src Source) (*parsedLayer, error) {
	p, err := decodeLayer(data, src)
	if err != nil {
		return nil, err
	}
	if err := checkTypes(p.values, reflect.TypeFor[Config](), nil, p.at); err != nil {
		return nil, err
	}
	if err := unknownKey(p.keys, p.at); err != nil {
		return nil, err
	}
	return p, nil
}

// decodeLayer is parseLayer without the checks, for the embedded defaults:
// they are riot's own, every start reads them, and TestDefaultsParse runs
// them through the checks.
func decodeLayer(data []byte, src Source) (*parsedLayer, error) {
	p := &parsedLayer{src: src}
	if src.File != "" { // the defaults are reported as "default", not by line
		p.loc = newLocator(string(data))
	}
	md, err := toml.Decode(string(data), &p.values)
	if err != nil {
		return nil, syntaxError(err, src)
	}
	p.keys = md.Keys()
	if p.values == nil {
		p.values = map[string]any{} // an empty file
	}
	return p, nil
}

func (p *parsedLayer) at(key ...string) Source {
	s := p.src
	s.Line = p.loc.line(key)
	return s
}

// names are the entries of the named table at key, in file order.
func (p *parsedLayer) names(key []string, values map[string]any) []string {
	var out []string
	for _, k := range p.keys {
		if len(k) > len(key) && slices.Equal(k[:len(key)], key) && !slices.Contains(out, k[len(key)]) {
			if _, ok := values[k[len(key)]]; ok {
				out = append(out, k[len(key)])
			}
		}
	}
	return out
}

// apply merges one layer into c.
func (c *Config) apply(l *parsedLayer) error {
	return c.merge(l, reflect.ValueOf(c).Elem(), l.values, nil, false)
}

// merge merges the values of the layer's table at path into dst, that
// table of c; inEntry says it is an entry of a named table or an array of
// tables, where a list is one value. Each value's Source is recorded by its
// dotted key, but an array of tables' entries keep their own.
func (c *Config) merge(l *parsedLayer, dst reflect.Value, values map[string]any, path []string, inEntry bool) error {
	for f := range fields(dst.Type()) {
		v, ok := values[f.key]
		if !ok {
			continue
		}
		key := append(slices.Clip(path), f.key)
		src := l.at(key...)
		fv := dst.FieldByIndex(f.Index)
		switch f.shape {
		case table:
			if err := c.merge(l, fv, v.(map[string]any), key, inEntry); err != nil {
				return err
			}
			continue
		case namedTables:
			if err := c.mergeNamed(l, fv, key, v.(map[string]any)); err != nil {
				return err
			}
			continue
		case arrayTables:
			if err := c.mergeArray(l, fv, key, v); err != nil {
				return err
			}
		case stringMap:
			if fv.IsNil() {
				fv.Set(reflect.MakeMap(fv.Type()))
			}
			for k, e := range v.(map[string]any) {
				fv.SetMapIndex(reflect.ValueOf(k), reflect.ValueOf(e))
			}
		case list:
			if err := c.mergeList(l, f, fv, key, v.([]any), inEntry); err != nil {
				return err
			}
		default:
			if fv.Kind() == reflect.Pointer {
				fv.Set(reflect.New(fv.Type().Elem()))
				fv = fv.Elem()
			}
			switch x := v.(type) {
			case string:
				if f.Type == durationType {
					d, _ := parseDuration(x) // checkTypes checked it
					fv.SetInt(int64(d))
				} else {
					fv.SetString(x)
				}
			case int64:
				fv.SetInt(x)
			case bool:
				fv.SetBool(x)
			}
			if msg := checkBounds(f, fv, l.src.File); msg != "" {
				return &Error{Source: src, Msg: msg}
			}
		}
		c.Sources[strings.Join(key, ".")] = src
	}
	return nil
}

// mergeList adds a list's strings to dst, or replaces it in an entry. The
// elements of a []Rule or []SandboxPath keep their own lines.
func (c *Config) mergeList(l *parsedLayer, f field, dst reflect.Value, key []string, items []any, inEntry bool) error {
	if inEntry {
		dst.Set(reflect.MakeSlice(dst.Type(), 0, len(items)))
	}
	for _, item := range items {
		e := reflect.New(dst.Type().Elem())
		src := l.at(key...)
		text := e.Elem()
		if isLocated(text.Type()) {
			src.Line = l.loc.element(key, item.(string))
			e.Interface().(located).locate(item.(string), src)
			text = text.Field(0)
		} else {
			text.SetString(item.(string))
		}
		if msg := checkBounds(f, text, l.src.File); msg != "" {
			return &Error{Source: src, Msg: fmt.Sprintf("[%s] %s: %s", strings.Join(key[:len(key)-1], "."), f.key, msg)}
		}
		dst.Set(reflect.Append(dst, e.Elem()))
	}
	return nil
}

// mergeNamed merges [key.NAME] tables into dst, a slice of entries by
// name: a name not seen in an earlier layer is appended.
func (c *Config) mergeNamed(l *parsedLayer, dst reflect.Value, key []string, values map[string]any) error {
	for _, name := range l.names(key, values) {
		at := append(slices.Clip(key), name)
		src := l.at(at...)
		i := 0
		for i < dst.Len() && dst.Index(i).FieldByName("Name").String() != name {
			i++
		}
		if i == dst.Len() {
			e := reflect.New(dst.Type().Elem())
			e.Interface().(entry).begin(name, src)
			dst.Set(reflect.Append(dst, e.Elem()))
		}
		e := dst.Index(i).Addr()
		if err := c.merge(l, e.Elem(), values[name].(map[string]any), at, true); err != nil {
			return err
		}
		if err := e.Interface().(entry).finish(at, src); err != nil {
			return err
		}
	}
	return nil
}

// mergeArray appends a layer's [[key]] tables to dst: those of every
// layer apply. Each is checked, and located, as a whole.
func (c *Config) mergeArray(l *parsedLayer, dst reflect.Value, key []string, v any) error {
	items, _ := v.([]map[string]any)
	if list, ok := v.([]any); ok {
		for _, e := range list {
			items = append(items, e.(map[string]any))
		}
	}
	for i, values := range items {
		src := l.src
		src.Line = l.loc.arrayTable(key, i)
		e := reflect.New(dst.Type().Elem())
		e.Interface().(entry).begin("", src)
		// Its keys are recorded with it, not in c.Sources, and their errors
		// name the table.
		var ce *Error
		if err := (&Config{Sources: map[string]Source{}}).merge(l, e.Elem(), values, key, true); errors.As(err, &ce) {
			ce.Source = src
			return ce
		}
		if err := e.Interface().(entry).finish(key, src); err != nil {
			return err
		}
		dst.Set(reflect.Append(dst, e.Elem()))
	}
	return nil
}

// syntaxError is a TOML syntax error at its line. The toml package's
// message describes the syntax ("expected value but found '\n' instead");
// riot adds the key it was reading and says it is the syntax. A test pins
// each message riot relies on, so an upgrade that changes them fails it.
func syntaxError(err error, src Source) error {
	var pe toml.ParseError
	if !errors.As(err, &pe) {
		return &Error{Source: src, Msg: "this is not a TOML file riot can read: " + err.Error()}
	}
	src.Line = pe.Position.Line
	msg := "TOML syntax: " + pe.Message
	if pe.LastKey != "" {
		msg = fmt.Sprintf("TOML syntax, after %s: %s", pe.LastKey, pe.Message)
	}
	return &Error{Source: src, Msg: msg}
}
