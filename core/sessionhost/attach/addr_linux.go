package attach

import (
	"path"
	"strconv"
	"syscall"
)

// oPath is O_PATH, the same on every Linux architecture Go runs on, which
// package syscall names for some only.
const oPath = 0x200000

// maxSunPath is the room for a socket path in sockaddr_un, less its NUL.
const maxSunPath = 107

// ShortAddr is an address for the socket at p that fits sockaddr_un: p
// itself, or, for a deep state dir, the same file reached through a
// descriptor of its directory (/proc/self/fd/N/name). done closes that
// descriptor once the bind or connect is over.
func ShortAddr(p string) (addr string, done func(), err error) {
	if len(p) <= maxSunPath {
		return p, func() {}, nil
	}
	fd, err := syscall.Open(path.Dir(p), oPath|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return "", nil, err
	}
	return "/proc/self/fd/" + strconv.Itoa(fd) + "/" + path.Base(p), func() { _ = syscall.Close(fd) }, nil
}
