package diagnostics

import "github.com/riot-tools/riot/plugin"

// Annotations implements plugin.Annotated. Diagnostics runs compilers and
// build scripts, which can write, run arbitrary code and fetch
// dependencies, so it keeps every conservative value.
func (*Tool) Annotations() plugin.Annotations {
	return plugin.Annotations{Title: "Check code for errors"}
}
