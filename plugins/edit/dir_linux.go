package edit

import (
	"errors"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// walkFlags open a directory on the way as a path only, which needs no
// read permission on it, as a lookup by name does not.
const walkFlags = unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC

// statFlags open a file to describe it, with no effect on it (a device
// is not opened).
const statFlags = unix.O_PATH

// openDirDirect opens path as a directory in one openat2 that follows no
// symlink and no magic link: a symlink anywhere on the path now is
// errSwapped. errWalk where openat2 is missing (before Linux 5.6, or a
// seccomp filter that forbids it).
func openDirDirect(path string) (*os.File, error) {
	how := &unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	}
	for {
		fd, err := unix.Openat2(unix.AT_FDCWD, path, how)
		switch {
		case err == nil:
			return os.NewFile(uintptr(fd), path), nil
		case errors.Is(err, unix.EINTR), errors.Is(err, unix.EAGAIN):
			continue
		case errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EPERM):
			return nil, errWalk
		case errors.Is(err, unix.ELOOP):
			return nil, errSwapped
		case errors.Is(err, unix.ENOTDIR):
			// A file on the path, or a symlink where a directory was:
			// the walk tells which.
			return nil, errWalk
		}
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
}

// isAt reports whether the kernel names f's directory path.
func isAt(f *os.File, path string) bool {
	real, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd())))
	return err == nil && real == path
}
