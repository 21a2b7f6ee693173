package config

import (
	"reflect"
	"strings"
	"testing"
)

// Every key of the schema says whether an untrusted workspace may set it,
// has a type the checks and the merge know, and names only checks that
// exist: a new key or section cannot be forgotten by any of them.
func TestEveryKeyIsDeclared(t *testing.T) {
	var walk func(t reflect.Type, path []string, declared bool)
	walk = func(typ reflect.Type, path []string, declared bool) {
		for f := range fields(typ) {
			key := strings.Join(append(path, f.key), ".")
			trust := f.Tag.Get("trust")
			if trust != "" && trust != "tighten" && trust != "loosen" {
				t.Errorf("%s: trust:%q is neither tighten nor loosen", key, trust)
			}
			if to := f.Tag.Get("moved"); to != "" {
				if f.shape != table {
					t.Errorf("%s: moved:%q is on a key that is not a table", key, to)
				} else if _, ok := fieldOf(f.Type, to); !ok {
					t.Errorf("%s: moved:%q names no key of its table", key, to)
				}
			}
			if f.shape == table {
				walk(f.Type, append(path, f.key), declared)
				continue
			}
			if trust == "" && !declared {
				t.Errorf("%s says neither trust:\"loosen\" nor trust:\"tighten\"", key)
			}
			if f.shape == namedTables || f.shape == arrayTables {
				if !reflect.PointerTo(f.elem()).Implements(reflect.TypeFor[entry]()) {
					t.Errorf("%s: %s does not implement entry", key, f.elem())
				}
				walk(f.elem(), append(path, f.key), true)
				continue
			}
			elem := f.Type
			if elem.Kind() == reflect.Pointer && elem.Elem().Kind() == reflect.Bool {
				elem = elem.Elem()
			}
			if f.shape == list || f.shape == stringMap {
				elem = f.Type.Elem()
				if isLocated(elem) {
					elem = elem.Field(0).Type
				}
			}
			if k := elem.Kind(); k != reflect.String && k != reflect.Bool && k != reflect.Int && elem != durationType {
				t.Errorf("%s has a type (%s) checkTypes and merge do not know", key, f.Type)
			}
			v := reflect.New(elem).Elem()
			if msg := runCheck(f.Tag.Get("check"), key, v, ""); strings.Contains(msg, "riot has no check") {
				t.Error(msg)
			}
		}
	}
	walk(reflect.TypeFor[Config](), nil, false)
}

// The embedded defaults pass every check a user's file does.
func TestDefaultsParse(t *testing.T) {
	if _, err := parseLayer(defaultsTOML, Source{Layer: "default"}); err != nil {
		t.Fatalf("the embedded defaults fail the checks of a config file: %v", err)
	}
}
