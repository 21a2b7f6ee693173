package read

import "github.com/riot-tools/riot/plugin"

// Annotations implements plugin.Annotated: every Read only reads a local
// file.
func (Read) Annotations() plugin.Annotations {
	return plugin.Annotations{Title: "Read file", ReadOnly: true, NonDestructive: true, Idempotent: true, Local: true}
}
