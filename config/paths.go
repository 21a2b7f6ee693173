package config

import (
	"os"
	"path/filepath"
	"strings"
)

// ResolvedStateDir is state_dir, or $XDG_STATE_HOME/riot, or
// ~/.local/state/riot.
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
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".local", "state", "riot")
}

// ResolvedLogFile is log.file, or <state>/logs/riot.log.
func (c *Config) ResolvedLogFile(getenv func(string) string) string {
	if c.Log.File != "" {
		return ExpandHome(c.Log.File)
	}
	return filepath.Join(c.ResolvedStateDir(getenv), "logs", "riot.log")
}

// ExpandHome expands a leading ~ to the home directory.
func ExpandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, p[1:])
		}
	}
	return p
}
