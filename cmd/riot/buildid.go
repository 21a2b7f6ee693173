package main

import (
	"fmt"
	"os"

	"github.com/riot-tools/riot/internal/fileid"
)

// buildID identifies this riot build, so that a client and a session host
// of different builds refuse to talk: the version line and the identity of
// the executable (fileid: device, inode, size, mtime), which a rebuild or
// an upgrade changes. It costs one stat; two copies of one build count as
// different builds, which only makes a client run its turn itself.
func buildID() string {
	id := versionLine()
	exe, err := os.Executable()
	if err != nil {
		return id + " exe unknown"
	}
	f, err := fileid.Stat(exe)
	if err != nil {
		return id + " exe unknown"
	}
	return fmt.Sprintf("%s exe %d:%d:%d@%d", id, f.Dev, f.Ino, f.Size, f.MtimeNs)
}
