package attach

import "syscall"

// unixSocket is a stream socket of the Unix domain, closed on exec.
func unixSocket() (int, error) {
	return syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
}
