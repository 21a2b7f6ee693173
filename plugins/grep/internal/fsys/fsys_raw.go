//go:build linux && (amd64 || arm64)

package fsys

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// On these platforms unix.Stat_t is the kernel's struct stat, so the
// system calls can take the addresses of a path on the stack and of a
// Stat_t directly, as unix.Open and unix.Lstat would pass copies.

var atFDCWD = func() uintptr { fd := unix.AT_FDCWD; return uintptr(fd) }()

func openIn(dir, name string, flags int) (int, error) {
	if len(dir)+1+len(name)+1 > stackPath {
		return unix.Open(join(dir, name), flags, 0)
	}
	var arr [stackPath]byte
	p, ok := appendPath(arr[:0], dir, name)
	if !ok {
		return -1, unix.EINVAL
	}
	fd, _, errno := unix.Syscall6(unix.SYS_OPENAT, atFDCWD, uintptr(unsafe.Pointer(&p[0])), uintptr(flags|unix.O_LARGEFILE), 0, 0, 0)
	if errno != 0 {
		return -1, errno
	}
	return int(fd), nil
}

func lstatIn(dir, name string, st *unix.Stat_t) error {
	if len(dir)+1+len(name)+1 > stackPath {
		return unix.Lstat(join(dir, name), st)
	}
	var arr [stackPath]byte
	p, ok := appendPath(arr[:0], dir, name)
	if !ok {
		return unix.EINVAL
	}
	_, _, errno := unix.Syscall6(unix.SYS_NEWFSTATAT, atFDCWD, uintptr(unsafe.Pointer(&p[0])), uintptr(unsafe.Pointer(st)), unix.AT_SYMLINK_NOFOLLOW, 0, 0)
	if errno != 0 {
		return errno
	}
	return nil
}

func openBeneath(dirfd int, rel string, flags int) (int, error) {
	how := unix.OpenHow{Flags: uint64(flags | unix.O_LARGEFILE), Resolve: beneath}
	if len(rel)+1 > stackPath {
		return unix.Openat2(dirfd, rel, &how)
	}
	var arr [stackPath]byte
	p, ok := appendPath(arr[:0], rel, "")
	if !ok {
		return -1, unix.EINVAL
	}
	fd, _, errno := unix.Syscall6(unix.SYS_OPENAT2, uintptr(dirfd), uintptr(unsafe.Pointer(&p[0])), uintptr(unsafe.Pointer(&how)), unsafe.Sizeof(how), 0, 0)
	if errno != 0 {
		return -1, errno
	}
	return int(fd), nil
}

// beneath is how OpenBeneath resolves.
const beneath = unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS
