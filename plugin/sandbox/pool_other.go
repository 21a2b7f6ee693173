//go:build !linux

package sandbox

import (
	"os/exec"
	"syscall"
)

// Pool is the long-lived sandboxes, which need Linux: elsewhere every
// command gets a bwrap of its own.
type Pool struct {
	Started, Ended func(pgid int)
}

// Start always refuses: cmd runs under a bwrap of its own.
func (*Pool) Start(string, *Profile, *exec.Cmd) (*Process, error) { return nil, errNotShared }

// Close does nothing.
func (*Pool) Close() {}

// Process is never started outside Linux.
type Process struct{}

// Pid implements the SDK's Process.
func (*Process) Pid() int { return 0 }

// Signal implements the SDK's Process.
func (*Process) Signal(syscall.Signal) error { return nil }

// Wait implements the SDK's Process.
func (*Process) Wait() error { return nil }

// Done is never closed.
func (*Process) Done() <-chan struct{} { return nil }
