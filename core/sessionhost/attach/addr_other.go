//go:build !linux

package attach

// ShortAddr is p: elsewhere a socket path must fit sockaddr_un as it is.
func ShortAddr(p string) (string, func(), error) { return p, func() {}, nil }
