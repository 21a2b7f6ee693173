package paths

import (
	"errors"
	"os"
	"os/user"
)

// ErrNoHome is Home's error: neither $HOME nor the user database names a
// home directory.
var ErrNoHome = errors.New("riot cannot find your home directory: $HOME is not set and the user database has no entry; set HOME")

// Home is $HOME or, when it is not set, the user database's home directory,
// as bash expands ~: the config, the permission chain and the SDK agree on
// what ~ names.
func Home() (string, error) {
	if h := os.Getenv("HOME"); h != "" {
		return h, nil
	}
	if u, err := user.Current(); err == nil && u.HomeDir != "" {
		return u.HomeDir, nil
	}
	return "", ErrNoHome
}
