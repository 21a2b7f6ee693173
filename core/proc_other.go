//go:build !linux

package core

import "syscall"

// setDeathSignal is a no-op without a parent-death signal; the SDK's parent
// watchdog ends orphaned plugins.
func setDeathSignal(*syscall.SysProcAttr) {}
