package fileid

import (
	"io/fs"
	"syscall"
)

// complete: Linux gives an inode and a change time, so an ID that holds
// after RacyWindow proves the file did not change.
const complete = true

// fromSys adds what a replaced or rewritten file cannot keep: its inode,
// and its change time, which no tool can set back.
func fromSys(info fs.FileInfo, id *ID) {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		id.Dev, id.Ino = st.Dev, st.Ino
		id.CtimeNs = st.Ctim.Nano()
	}
}
