package sandbox

import (
	"errors"
	"fmt"
	"syscall"
)

// ExitError is a command in a long-lived sandbox that did not exit with
// status 0, as Process.Wait reports it.
type ExitError struct {
	Status syscall.WaitStatus
}

func (e *ExitError) Error() string {
	if e.Status.Signaled() {
		return "signal: " + e.Status.Signal().String()
	}
	return fmt.Sprintf("exit status %d", e.Status.ExitStatus())
}

// LostError is a long-lived sandbox that ended while it ran a command, or
// before the command started. Its text is for the model. Everything the
// command started ended with the sandbox; the next command gets a new one.
type LostError struct {
	// Started: the command had started, so it may have partially run.
	Started bool
}

func (e *LostError) Error() string {
	if e.Started {
		return "The kernel sandbox the command ran in ended unexpectedly, and the command with it; it may have partially run. Check its effects before retrying; the next command runs in a new sandbox."
	}
	return "The kernel sandbox ended before the command started; the command was not run. Retry it: the next command runs in a new sandbox."
}

// errNotShared is a command the long-lived sandbox cannot run as given
// (its standard streams are not files); it runs in a sandbox of its own.
var errNotShared = errors.New("the command's streams are not files")
