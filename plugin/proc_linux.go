package plugin

import "syscall"

// setDeathSignal kills a tool's direct child if the plugin dies before it
// can; the guard takes care of the rest of the child's group.
func setDeathSignal(attr *syscall.SysProcAttr) {
	attr.Pdeathsig = syscall.SIGKILL
}
