package quickrun

import (
	"os"
	"syscall"
	"unsafe"
)

// isTerminal reports whether f is a terminal, as cmd/riot's isTerminal
// does (TCGETS), through package syscall.
func isTerminal(f *os.File) bool {
	var t syscall.Termios
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), syscall.TCGETS, uintptr(unsafe.Pointer(&t)))
	return errno == 0
}
