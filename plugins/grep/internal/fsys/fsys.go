// Package fsys opens and stats files by path without allocating. The
// walk opens every file and probes every directory for ignore files; on
// Linux the NUL-terminated path these calls need is built in a buffer on
// the stack instead of a new one on the heap each time, which in a freshly
// started plugin is fresh memory to fault in, and garbage to collect.
package fsys

import (
	"errors"
	"strings"

	"golang.org/x/sys/unix"
)

// stackPath is the longest path, NUL included, built on the stack; a
// longer one costs an allocation.
const stackPath = 512

// Open opens path, retrying when interrupted.
func Open(path string, flags int) (int, error) {
	return OpenIn(path, "", flags)
}

// OpenIn opens the file name in directory dir (path dir itself when name
// is ""), retrying when interrupted.
func OpenIn(dir, name string, flags int) (int, error) {
	for {
		fd, err := openIn(dir, name, flags)
		if !errors.Is(err, unix.EINTR) {
			return fd, err
		}
	}
}

// OpenBeneath opens rel, a relative path, below the directory dirfd with
// openat2, retrying when interrupted: below the directory, through no
// symlink and no magic link at all. A walk that follows no symlink never
// needs one, so a component that has become one since it was listed is a
// swap, and the open fails (ELOOP, EXDEV) rather than leaving the tree.
// ENOSYS means there is no openat2 (another system, Linux before 5.6, or a
// seccomp filter that hides it).
func OpenBeneath(dirfd int, rel string, flags int) (int, error) {
	for {
		fd, err := openBeneath(dirfd, rel, flags)
		if !errors.Is(err, unix.EINTR) && !errors.Is(err, unix.EAGAIN) {
			return fd, err
		}
	}
}

// LstatIn reports whether dir/name exists, without following a symbolic
// link, and whether it is a directory.
func LstatIn(dir, name string) (exists, isDir bool) {
	var st unix.Stat_t
	for {
		err := lstatIn(dir, name, &st)
		if err == nil {
			return true, st.Mode&unix.S_IFMT == unix.S_IFDIR
		}
		if !errors.Is(err, unix.EINTR) {
			return false, false
		}
	}
}

// join is dir/name, or dir when name is "".
func join(dir, name string) string {
	switch {
	case name == "":
		return dir
	case strings.HasSuffix(dir, "/"):
		return dir + name
	}
	return dir + "/" + name
}

// appendPath appends dir/name (or dir when name is "") and a NUL to b. ok
// is false when the path holds a NUL, which no file's path does.
func appendPath(b []byte, dir, name string) (_ []byte, ok bool) {
	if strings.IndexByte(dir, 0) >= 0 || strings.IndexByte(name, 0) >= 0 {
		return b, false
	}
	b = append(b, dir...)
	if name != "" {
		if !strings.HasSuffix(dir, "/") {
			b = append(b, '/')
		}
		b = append(b, name...)
	}
	return append(b, 0), true
}
