package main

import (
	"slices"
	"testing"

	"github.com/riot-tools/riot/config"
)

// The one list the host orders builtin tools by names every tool the
// builtins serve, and nothing else: a builtin tool missing from it would
// fall to the end of the builtins, where it may move when one is added.
func TestBuiltinToolsAreListed(t *testing.T) {
	var served []string
	for _, tools := range builtins() {
		for _, h := range tools() {
			served = append(served, h.Name())
		}
	}
	slices.Sort(served)
	listed := config.BuiltinTools()
	slices.Sort(listed)
	if !slices.Equal(served, listed) {
		t.Fatalf("builtins serve %v; config.BuiltinTools lists %v", served, listed)
	}
}
