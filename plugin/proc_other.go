//go:build !linux

package plugin

import "syscall"

// setDeathSignal is a no-op where there is no parent-death signal; the
// guard and the parent watchdog cover the plugin's death.
func setDeathSignal(*syscall.SysProcAttr) {}
