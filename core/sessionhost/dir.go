package sessionhost

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/riot-tools/riot/core/sessionhost/attach"
	"github.com/riot-tools/riot/internal/atomicfile"
)

// Dir is where the session hosts of stateDir keep their sockets.
func Dir(stateDir string) string { return attach.Dir(stateDir) }

// Paths are one session host's files: its socket and its description.
type Paths = attach.Paths

// PathsFor names the files of the host of session in workspace.
func PathsFor(dir, session, workspace string) Paths { return attach.PathsFor(dir, session, workspace) }

// ErrUnsafe marks a directory or socket that others could write or that
// another user owns: riot neither listens there nor connects to it.
var ErrUnsafe = attach.ErrUnsafe

// CheckDir checks that dir is a directory the user owns and nobody else
// can write.
func CheckDir(dir string) error { return attach.CheckDir(dir) }

// CheckSocket checks that path is a socket the user owns that nobody else
// can write, in a directory that passes CheckDir.
func CheckSocket(path string) error { return attach.CheckSocket(path) }

// EnsureDir creates dir private to the user, or checks that it is.
func EnsureDir(dir string) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(dir), err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	return CheckDir(dir)
}

// Meta describes a running host, for `riot serve --list` and --stop.
type Meta struct {
	Pid       int    `json:"pid"`
	Session   string `json:"session"`
	Workspace string `json:"workspace"`
	Build     string `json:"build"`
	Socket    string `json:"socket"`
	Started   string `json:"started"`
}

func writeMeta(path string, m Meta) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, data, 0o600)
}

// List reads the descriptions of the hosts in dir, by session then
// workspace. A description whose process is gone is removed with its
// socket: that host crashed.
func List(dir string) ([]Meta, error) {
	if err := CheckDir(dir); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []Meta
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		var m Meta
		if json.Unmarshal(data, &m) != nil || m.Pid <= 0 {
			continue
		}
		if !alive(m.Pid) {
			_ = os.Remove(path)
			_ = os.Remove(strings.TrimSuffix(path, ".json") + ".sock")
			continue
		}
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b Meta) int {
		return cmp.Or(cmp.Compare(a.Session, b.Session), cmp.Compare(a.Workspace, b.Workspace))
	})
	return out, nil
}

func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
