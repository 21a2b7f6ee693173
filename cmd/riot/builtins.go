package main

import (
	"slices"

	"github.com/riot-tools/riot/plugin"
	"github.com/riot-tools/riot/plugins/bash"
	"github.com/riot-tools/riot/plugins/diagnostics"
	"github.com/riot-tools/riot/plugins/edit"
	"github.com/riot-tools/riot/plugins/grep"
	"github.com/riot-tools/riot/plugins/read"
)

// builtins are the tool sets compiled into riot, served by re-executing
// riot as `riot __plugin NAME`.
func builtins() map[string]func() []plugin.Handler {
	return map[string]func() []plugin.Handler{
		"bash":        bash.Tools,
		"grep":        grep.Tools,
		"read":        read.Tools,
		"diagnostics": diagnostics.Tools,
		"edit":        edit.Tools,
	}
}

func builtinNames() []string {
	var names []string
	for name := range builtins() {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}
