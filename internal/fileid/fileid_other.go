//go:build !unix

package fileid

import "io/fs"

// complete: no inode or change time here, so an ID is never trusted by
// its times.
const complete = false

// fromSys keeps mode, size and modification time alone.
func fromSys(fs.FileInfo, *ID) {}
