package core

import (
	"os"
	"syscall"
)

// fileIdentity adds what a replaced or rewritten file cannot keep: its
// inode, and its change time, which no tool can set back.
func fileIdentity(info os.FileInfo, id *binaryID) {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		id.Ino, id.Dev = st.Ino, st.Dev
		id.CtimeNs = st.Ctim.Nano()
	}
}
