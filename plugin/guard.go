package plugin

import (
	"os"

	"github.com/hashicorp/go-hclog"

	"github.com/riot-tools/riot/internal/procguard"
)

// A plugin's process guard is a procguard.Guard: a small process that
// outlives the plugin by a moment and kills every process group its tools
// started and did not see end, and every process carrying the guard's tag
// in its environment, when the plugin exits by any means, SIGKILL
// included. Pdeathsig alone reaches only a tool's direct child, not the
// processes a shell command forks.

// newGuard returns the plugin's guard, started on first use with the
// plugin's environment less the plugin protocol's variables.
func newGuard(log hclog.Logger) *procguard.Guard {
	return procguard.New(log, ChildEnv(os.Environ()))
}
