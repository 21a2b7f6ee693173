package grep

import "github.com/riot-tools/riot/plugin"

// Annotations implements plugin.Annotated: every Grep only reads local
// files.
func (*Grep) Annotations() plugin.Annotations {
	return plugin.Annotations{Title: "Search file contents", ReadOnly: true, NonDestructive: true, Idempotent: true, Local: true}
}
