// Command riot-tool-edit serves riot's Edit and Write tools as a standalone
// plugin binary.
package main

import (
	"github.com/riot-tools/riot/plugin"
	"github.com/riot-tools/riot/plugins/edit"
)

func main() { plugin.ServeWithoutProcesses(edit.Tools()...) }
