// Package bwrap owns what host and SDK must agree on about bubblewrap:
// where the trusted binary is (Find), the namespaces every sandbox is made
// of (Namespaces), and the one check that they work here (Probe). The
// SDK's plugin/sandbox builds each call's command line on them; the host
// probes with them before it sends a profile.
package bwrap

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// Find is the one place bwrap is resolved, for the host's probe and
// the SDK's alike: the first of the trusted system paths that is a regular
// executable file owned by root, writable by root alone, in directories
// the same holds for (a sticky directory counts, as /tmp's rule keeps
// others from replacing root's entries). The path returned has its
// symlinks resolved, so what was checked is what runs. Callers resolve it
// once and keep the answer.
func Find() (string, error) { return find(trustedBwrapPaths()) }

func find(candidates []string) (string, error) {
	var refused []string
	for _, c := range candidates {
		if _, err := os.Lstat(c); err != nil {
			continue
		}
		path, err := trustedFile(c)
		if err == nil {
			return path, nil
		}
		refused = append(refused, err.Error())
	}
	if len(refused) > 0 {
		return "", fmt.Errorf("no bwrap in the system directories can be trusted (%s); reinstall the bubblewrap package", refused[0])
	}
	return "", ErrNotFound
}

// trustedFile is path with its symlinks resolved, if it and every
// directory above it are root's alone.
func trustedFile(path string) (string, error) {
	phys, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", fmt.Errorf("%s cannot be resolved", path)
	}
	fi, err := os.Stat(phys)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return "", fmt.Errorf("%s is not an executable file", phys)
	}
	if err := rootOnly(phys, fi, false); err != nil {
		return "", err
	}
	for dir := filepath.Dir(phys); ; dir = filepath.Dir(dir) {
		di, err := os.Stat(dir)
		if err != nil {
			return "", fmt.Errorf("%s cannot be checked", dir)
		}
		if err := rootOnly(dir, di, true); err != nil {
			return "", err
		}
		if dir == "/" {
			return phys, nil
		}
	}
}

// rootOnly: fi is owned by root and no one else may write it; a sticky
// directory may be writable by others, who cannot replace root's entries.
func rootOnly(path string, fi os.FileInfo, dir bool) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || st.Uid != 0 {
		return fmt.Errorf("%s is not owned by root", path)
	}
	sticky := dir && fi.Mode()&os.ModeSticky != 0
	if fi.Mode().Perm()&0o022 != 0 && !sticky {
		return fmt.Errorf("%s is writable by others than root", path)
	}
	return nil
}

// ErrNotFound is bwrap missing from every trusted path. Its text is for the
// user.
var ErrNotFound = errors.New("bwrap was not found in the system directories (/usr/bin, /bin, /usr/local/bin); the package is bubblewrap")
