// Command riot-tool-diagnostics serves the Diagnostics tool as a standalone
// riot plugin binary.
package main

import (
	"github.com/riot-tools/riot/plugin"
	"github.com/riot-tools/riot/plugins/diagnostics"
)

func main() { plugin.Serve(diagnostics.Tools()...) }
