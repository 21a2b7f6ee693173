package main

import (
	"fmt"
	"os"
	"syscall"
)

// buildID identifies this riot build, so that a client and a session host
// of different builds refuse to talk: the version line and the identity of
// the executable (device, inode, size, mtime), which a rebuild or an
// upgrade changes. It costs one stat; two copies of one build count as
// different builds, which only makes a client run its turn itself.
func buildID() string {
	id := versionLine()
	exe, err := os.Executable()
	if err != nil {
		return id + " exe unknown"
	}
	info, err := os.Stat(exe)
	if err != nil {
		return id + " exe unknown"
	}
	var dev, ino uint64
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		dev, ino = st.Dev, st.Ino
	}
	return fmt.Sprintf("%s exe %d:%d:%d@%d", id, dev, ino, info.Size(), info.ModTime().UnixNano())
}
