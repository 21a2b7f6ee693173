//go:build !linux

package attach

import "syscall"

// unixSocket is a stream socket of the Unix domain, closed on exec: made
// and marked under ForkLock, as package net does where the socket call
// cannot mark it itself, so that no process forked between the two
// inherits it.
func unixSocket() (int, error) {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.CloseOnExec(fd)
	}
	return fd, err
}
