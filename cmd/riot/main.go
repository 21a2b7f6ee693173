// Command riot is the riot CLI: it lists tools, runs single calls and
// whole turns through the host's pipeline, explains permission decisions,
// shows the effective config, serves riot's tools over MCP, and serves its
// builtin tool sets to itself as `riot __plugin NAME`.
package main

import (
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
