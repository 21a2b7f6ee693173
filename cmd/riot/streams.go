package main

import "io"

// nopWriteCloser lets the MCP transport use the command's stdout without
// closing the process's.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
