// Command riot-tool-hello is the hello example as a riot plugin binary.
package main

import (
	hello "github.com/riot-tools/riot/examples/hello-tool"
	"github.com/riot-tools/riot/plugin"
)

func main() { plugin.Serve(hello.Tool()) }
