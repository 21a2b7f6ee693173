package config

import (
	"reflect"
	"slices"
	"testing"
)

// Every field of the layer schema has a type checkTypes knows.
func TestEveryLayerTypeIsChecked(t *testing.T) {
	if !checkable(reflect.TypeFor[layer]()) {
		t.Fatal("a config field has a type checkTypes does not check; add it to checkValue and checkable")
	}
	if checkable(reflect.TypeFor[struct{ F float64 }]()) {
		t.Fatal("checkable accepts a float field, which checkValue does not check")
	}
}

// TestDefaultsParse: the embedded defaults pass every check a user's file
// does, type checks included, which Load skips for them at each start.
func TestDefaultsParse(t *testing.T) {
	full, err := parseLayer(defaultsTOML, Source{Layer: "default"})
	if err != nil {
		t.Fatalf("the embedded defaults fail the checks of a config file: %v", err)
	}
	fast, err := parseDefaults(defaultsTOML)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(full.layer, fast.layer) || !slices.Equal(full.order, fast.order) || !slices.Equal(full.mcpOrder, fast.mcpOrder) {
		t.Fatal("parseDefaults reads the defaults otherwise than parseLayer does")
	}
}
