package config

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/riot-tools/riot/internal/paths"
)

// ErrNoHome is HomeDir's error: neither $HOME nor the user database names
// a home directory.
var ErrNoHome = paths.ErrNoHome

// HomeDir is $HOME or, when it is not set, the user database's home
// directory, as bash expands ~: riot needs it only for ~ paths and the
// defaults below it, each of which says so when it is missing.
func HomeDir() (string, error) { return paths.Home() }

// ResolvedStateDir is state_dir, or $XDG_STATE_HOME/riot, or
// ~/.local/state/riot; "" when none can be known (Load reports it).
func (c *Config) ResolvedStateDir(getenv func(string) string) string {
	if getenv == nil {
		getenv = os.Getenv
	}
	if c.StateDir != "" {
		return ExpandHome(c.StateDir)
	}
	if d := getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "riot")
	}
	home, err := HomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".local", "state", "riot")
}

// ResolvedLogFile is log.file, or <state>/logs/riot.log.
func (c *Config) ResolvedLogFile(getenv func(string) string) string {
	if c.Log.File != "" {
		return ExpandHome(c.Log.File)
	}
	state := c.ResolvedStateDir(getenv)
	if state == "" {
		return ""
	}
	return filepath.Join(state, "logs", "riot.log")
}

// ExpandHome expands a leading ~ to the home directory; without one it
// leaves the path as it is.
func ExpandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := HomeDir(); err == nil {
			return filepath.Join(home, p[1:])
		}
	}
	return p
}
