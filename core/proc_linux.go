package core

import "syscall"

// setDeathSignal kills a plugin when riot dies, however it dies; go-plugin
// alone leaves plugins running.
func setDeathSignal(attr *syscall.SysProcAttr) {
	attr.Pdeathsig = syscall.SIGKILL
}
