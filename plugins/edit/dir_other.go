//go:build !linux

package edit

import (
	"os"

	"golang.org/x/sys/unix"
)

// walkFlags open a directory on the way.
const walkFlags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC

// statFlags open a file to describe it without blocking on a pipe.
const statFlags = unix.O_RDONLY | unix.O_NONBLOCK

// openDirDirect cannot refuse symlinks in one call here: walk.
func openDirDirect(string) (*os.File, error) { return nil, errWalk }

// isAt: the walk followed no symlink, so f is the directory at path.
func isAt(*os.File, string) bool { return true }
