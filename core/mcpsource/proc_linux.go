//go:build linux

package mcpsource

import (
	"os/exec"
	"syscall"
)

// isolate puts a stdio server in its own process group, killed with riot:
// the same no-orphan guarantee as plugins.
func isolate(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// killGroup ends the server and whatever it started.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Process.Kill()
	}
}
