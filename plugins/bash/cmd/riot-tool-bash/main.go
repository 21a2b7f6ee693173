// Command riot-tool-bash serves riot's Bash, BashOutput and KillShell tools
// as a standalone plugin binary.
package main

import (
	"github.com/riot-tools/riot/plugin"
	"github.com/riot-tools/riot/plugins/bash"
)

func main() { plugin.Serve(bash.Tools()...) }
