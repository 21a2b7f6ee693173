package main

import (
	"io"
	"os"

	"github.com/mattn/go-isatty"
)

// isTerminal reports whether f, a reader or writer, is a terminal: riot's
// one test of that, as core/permission's prompter makes it too.
func isTerminal(f any) bool {
	file, ok := f.(*os.File)
	return ok && isatty.IsTerminal(file.Fd())
}

// interactive reports whether a person can answer a prompt: stdin and
// stderr are both terminals.
func interactive(in io.Reader, errw io.Writer) bool {
	return isTerminal(in) && isTerminal(errw)
}
