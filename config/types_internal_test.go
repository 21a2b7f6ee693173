package config

import (
	"reflect"
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
