//go:build unix

package session

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
)

// lockFile takes an exclusive flock on path, made if missing, and returns
// its release. The lock file is never removed: removing it would let two
// processes lock two different files of one name.
func lockFile(path string) (func(), error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	// Closing the descriptor releases the lock.
	return func() { _ = f.Close() }, nil
}
