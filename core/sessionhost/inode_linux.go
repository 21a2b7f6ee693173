package sessionhost

import (
	"io/fs"
	"syscall"
)

// inodeOf is a file's device, inode and change time (which a chmod, a
// rename onto it or a write moves, and a utimes cannot set back).
func inodeOf(info fs.FileInfo) (dev, ino uint64, ctime int64, ok bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, 0, false
	}
	return st.Dev, st.Ino, st.Ctim.Nano(), true
}
