// Command riot-tool-grep serves riot's Grep tool as a standalone plugin
// binary.
package main

import (
	"github.com/riot-tools/riot/plugin"
	"github.com/riot-tools/riot/plugins/grep"
)

func main() { plugin.ServeReadOnly(grep.Tools()...) }
