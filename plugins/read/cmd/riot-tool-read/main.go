// Command riot-tool-read serves riot's Read tool as a standalone plugin
// binary.
package main

import (
	"github.com/riot-tools/riot/plugin"
	"github.com/riot-tools/riot/plugins/read"
)

func main() { plugin.ServeReadOnly(read.Tools()...) }
