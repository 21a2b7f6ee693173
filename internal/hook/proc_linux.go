package hook

import "syscall"

// setDeathSignal kills a hook when riot dies, however it dies.
func setDeathSignal(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }
