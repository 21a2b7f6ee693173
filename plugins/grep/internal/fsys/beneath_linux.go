//go:build linux && !(amd64 || arm64)

package fsys

import "golang.org/x/sys/unix"

func openBeneath(dirfd int, rel string, flags int) (int, error) {
	how := unix.OpenHow{Flags: uint64(flags), Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS}
	return unix.Openat2(dirfd, rel, &how)
}
