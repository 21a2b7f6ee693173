package plugin

import (
	"errors"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// openNoMagic opens abs read-only, refusing magic links (openat2's
// RESOLVE_NO_MAGICLINKS), or with a plain open where openat2 is missing
// (before Linux 5.6, or under a seccomp filter that forbids it); the
// descriptor's path is checked afterwards either way.
func openNoMagic(abs string) (*os.File, error) {
	flags := unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NOCTTY | unix.O_NONBLOCK
	for {
		fd, err := unix.Openat2(unix.AT_FDCWD, abs, &unix.OpenHow{Flags: uint64(flags), Resolve: unix.RESOLVE_NO_MAGICLINKS})
		switch {
		case err == nil:
			return os.NewFile(uintptr(fd), abs), nil
		case errors.Is(err, unix.EINTR), errors.Is(err, unix.EAGAIN):
			continue
		case errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EPERM):
			// EPERM: a seccomp filter that knows no openat2.
			return os.OpenFile(abs, flags, 0)
		}
		return nil, &os.PathError{Op: "open", Path: abs, Err: err}
	}
}

// fdPath is the real path of the file f holds, as the kernel names it.
func fdPath(f *os.File) (string, error) {
	p, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd())))
	if err != nil {
		return "", errNoFDPath
	}
	return p, nil
}
