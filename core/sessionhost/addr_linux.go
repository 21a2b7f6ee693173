package sessionhost

import (
	"fmt"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// maxSunPath is the room for a socket path in sockaddr_un, less its NUL.
const maxSunPath = 107

// shortAddr is an address for the socket at path that fits sockaddr_un:
// path itself, or, for a deep state dir, the same file reached through a
// descriptor of its directory (/proc/self/fd/N/name). done closes that
// descriptor once the bind or connect is over.
func shortAddr(path string) (addr string, done func(), err error) {
	if len(path) <= maxSunPath {
		return path, func() {}, nil
	}
	fd, err := unix.Open(filepath.Dir(path), unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", nil, err
	}
	return fmt.Sprintf("/proc/self/fd/%d/%s", fd, filepath.Base(path)), func() { _ = unix.Close(fd) }, nil
}
