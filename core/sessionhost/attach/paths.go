package attach

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"syscall"
)

// Dir is where the session hosts of stateDir keep their sockets.
func Dir(stateDir string) string { return path.Join(stateDir, "hosts") }

// Paths are one session host's files: its socket and its description.
type Paths struct {
	Socket string
	Meta   string
}

// PathsFor names the files of the host of session in workspace. The name
// is a digest, since a socket path is limited to 108 bytes.
func PathsFor(dir, session, workspace string) Paths {
	sum := sha256.Sum256([]byte(session + "\x00" + workspace))
	base := path.Join(dir, hex.EncodeToString(sum[:8]))
	return Paths{Socket: base + ".sock", Meta: base + ".json"}
}

// ErrUnsafe marks a directory or socket that others could write or that
// another user owns: riot neither listens there nor connects to it.
var ErrUnsafe = errors.New("unsafe session host path")

// CheckDir checks that dir is a directory the user owns and nobody else
// can write.
func CheckDir(dir string) error {
	info, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !info.IsDir() {
		return fmt.Errorf("%w: %s is not a directory", ErrUnsafe, dir)
	}
	return checkOwner(dir, info)
}

// CheckSocket checks that p is a socket the user owns that nobody else can
// write, in a directory that passes CheckDir.
func CheckSocket(p string) error {
	if err := CheckDir(path.Dir(p)); err != nil {
		return err
	}
	info, err := os.Lstat(p)
	if err != nil {
		return err
	}
	if info.Mode().Type() != fs.ModeSocket {
		return fmt.Errorf("%w: %s is not a socket", ErrUnsafe, p)
	}
	return checkOwner(p, info)
}

func checkOwner(p string, info fs.FileInfo) error {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok || int(st.Uid) != os.Getuid() {
		return fmt.Errorf("%w: %s is owned by another user", ErrUnsafe, p)
	}
	if info.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%w: %s can be written by other users (mode %04o); remove it, or chmod go-w it", ErrUnsafe, p, info.Mode().Perm())
	}
	return nil
}
