//go:build !linux

package plugin

import (
	"os"
	"syscall"

	"github.com/riot-tools/riot/internal/paths"
)

// openNoMagic opens abs read-only and non-blocking.
func openNoMagic(abs string) (*os.File, error) {
	return os.OpenFile(abs, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// fdPath names the file f holds by resolving its name again and checking
// that the result is the same file (device and inode) as the descriptor:
// there is no /proc/self/fd to ask.
func fdPath(f *os.File) (string, error) {
	real, err := paths.Resolve(paths.OS{}, f.Name())
	if err != nil {
		return "", errNoFDPath
	}
	held, err := f.Stat()
	if err != nil {
		return "", errNoFDPath
	}
	named, err := os.Stat(real)
	if err != nil || !os.SameFile(held, named) {
		return "", errNoFDPath
	}
	return real, nil
}
