//go:build !linux

package shared

import (
	"errors"
	"net"
)

// peerOf cannot tell a connection's peer here, so no link is admitted and
// the host keeps protocol 2's stream.
func peerOf(*net.UnixConn) (uid, pid int, err error) {
	return 0, 0, errors.New("peer credentials are read on Linux only")
}
