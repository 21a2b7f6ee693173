//go:build !unix

package session

import "errors"

// lockFile has no cross-process lock outside unix: refuse to persist
// rather than lose another process's updates silently.
func lockFile(string) (func(), error) {
	return nil, errors.New("session files can be locked only on unix systems")
}
