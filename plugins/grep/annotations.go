package grep

import "github.com/riot-tools/riot/plugin"

// Annotations implements plugin.Annotated: every Grep only reads local
// files.
func (*Grep) Annotations() plugin.Annotations {
	return plugin.Annotations{Title: "Search file contents", ReadOnly: true, NonDestructive: true, Idempotent: true, Local: true}
}

// Annotations implements plugin.Annotated: every Glob only lists local
// file names.
func (*Glob) Annotations() plugin.Annotations {
	return plugin.Annotations{Title: "Find files by name", ReadOnly: true, NonDestructive: true, Idempotent: true, Local: true}
}
