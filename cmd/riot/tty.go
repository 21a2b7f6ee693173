package main

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// isTerminal reports whether w or r is a terminal.
func isTerminal(f any) bool {
	file, ok := f.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(file.Fd()), ioctlReadTermios)
	return err == nil
}

// interactive reports whether a person can answer a prompt: stdin and
// stderr are both terminals.
func interactive(in io.Reader, errw io.Writer) bool {
	return isTerminal(in) && isTerminal(errw)
}
