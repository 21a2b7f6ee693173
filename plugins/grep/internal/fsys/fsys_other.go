//go:build !(linux && (amd64 || arm64))

package fsys

import "golang.org/x/sys/unix"

func openIn(dir, name string, flags int) (int, error) {
	return unix.Open(join(dir, name), flags, 0)
}

func lstatIn(dir, name string, st *unix.Stat_t) error {
	return unix.Lstat(join(dir, name), st)
}
