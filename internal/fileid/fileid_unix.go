//go:build unix && !linux

package fileid

import (
	"io/fs"
	"syscall"
)

// complete: other unix systems name the change time differently in
// Stat_t, so it is not read, and an ID is never trusted by its times.
const complete = false

// fromSys adds the inode, so a file replaced by rename is another version
// (the session state file relies on it).
func fromSys(info fs.FileInfo, id *ID) {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		id.Dev, id.Ino = uint64(st.Dev), uint64(st.Ino) //nolint:unconvert,gosec // the types differ by system
	}
}
