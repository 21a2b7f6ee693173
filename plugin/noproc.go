package plugin

import (
	"context"
	"os/exec"

	"github.com/riot-tools/riot/plugin/sandbox"
)

// A plugin that starts no processes (Runtime.StartsNoProcesses, which
// ServeReadOnly sets) says so in its manifest
// (Manifest.StartsNoProcesses), and the host then gives its calls
// no sandbox and does not check for bubblewrap. The plugin keeps the
// promise itself: its Proc refuses every start (noProc), and ServeReadOnly's
// Landlock ruleset denies execve to the whole process (confine_linux.go).

// NoProcessError is the error of every process start in a plugin that
// starts no processes. Its text is for the model.
type NoProcessError struct{}

func (*NoProcessError) Error() string {
	return "This tool cannot run a command: its plugin starts no processes (it is served read-only, and told the host so). " +
		"Do not retry it; do this step with a tool that runs commands, such as Bash."
}

// noProc is the Proc of a plugin that starts no processes.
type noProc struct{}

var _ SandboxingProc = noProc{}

// Start implements Proc: it refuses.
func (noProc) Start(context.Context, *exec.Cmd) (Process, error) { return nil, &NoProcessError{} }

// Sandboxed implements SandboxingProc, so that a call that comes with a
// profile all the same (from a host older than the declaration) is refused
// for the same reason, not for a sandbox this Proc cannot apply.
func (p noProc) Sandboxed(*sandbox.Profile) Proc { return p }
