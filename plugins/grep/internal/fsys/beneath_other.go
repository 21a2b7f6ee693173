//go:build !linux

package fsys

import "golang.org/x/sys/unix"

// openBeneath has no openat2 to call here: the caller checks what it
// opened another way.
func openBeneath(int, string, int) (int, error) { return -1, unix.ENOSYS }
