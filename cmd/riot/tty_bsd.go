//go:build darwin || freebsd || netbsd || openbsd

package main

import "golang.org/x/sys/unix"

// fread is FREAD of <sys/fcntl.h>, which x/sys/unix does not export on
// every BSD: TIOCFLUSH with it flushes input only.
const fread = 0x1

// flushInput discards what was typed on the terminal and not yet read.
func flushInput(fd int) error { return unix.IoctlSetPointerInt(fd, unix.TIOCFLUSH, fread) }
