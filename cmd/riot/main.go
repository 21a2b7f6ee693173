// Command riot is the riot CLI: it lists tools, runs single calls and
// whole turns through the host's pipeline, explains permission decisions,
// shows the effective config, installs and verifies plugins, records
// workspace trust, serves riot's tools over MCP, runs session hosts that
// `riot run` and `riot call --session` attach to, and serves its builtin
// tool sets to itself as `riot __plugin NAME`.
package main

import (
	"os"

	"github.com/riot-tools/riot/internal/procguard"
)

func main() {
	// A re-executed riot may be a process guard (a hook's, a builtin
	// plugin's): it runs as one and exits.
	procguard.Main()
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
