//go:build !linux

package bash

import (
	"os"
	"syscall"
)

// growPipe is a no-op where the pipe's capacity is fixed.
func growPipe(*os.File) {}

// groupAlive reports whether process group pgid has any member; without
// /proc, zombies count.
func groupAlive(pgid int) bool { return syscall.Kill(-pgid, 0) == nil }
