package plugin

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/invopop/jsonschema"
)

// reflectSchema reflects the JSON Schema of In: one self-contained object
// schema, closed with additionalProperties false, with no $schema or $id,
// which tools[] does not want. A field is required unless its json tag has
// omitempty; its description comes from its jsonschema_description tag.
func reflectSchema[In any]() ([]byte, error) {
	if err := checkInputType[In](); err != nil {
		return nil, err
	}
	t := inputType[In]()
	r := &jsonschema.Reflector{
		Anonymous:      true,
		DoNotReference: true,
		ExpandedStruct: true,
	}
	s := r.ReflectFromType(t)
	s.Version = ""
	s.ID = ""
	if s.Properties == nil || s.Properties.Len() == 0 {
		// An input with no fields is still an object the model sends as {}.
		s.Properties = jsonschema.NewProperties()
	}
	return json.Marshal(s)
}

// checkInputType refuses an input type that is not a struct (or a pointer
// to one), which has no object schema.
func checkInputType[In any]() error {
	if t := inputType[In](); t.Kind() != reflect.Struct {
		return fmt.Errorf("a tool's input type must be a struct, not %s", t)
	}
	return nil
}

// inputType is In with its pointers dereferenced.
func inputType[In any]() reflect.Type {
	t := reflect.TypeFor[In]()
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}
