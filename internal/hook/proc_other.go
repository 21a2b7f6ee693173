//go:build !linux

package hook

import "syscall"

// setDeathSignal is a no-op without a parent-death signal; the process
// group and the guard end a hook instead.
func setDeathSignal(*syscall.SysProcAttr) {}
