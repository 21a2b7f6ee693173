package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// PluginPrefix starts the name of every plugin binary: riot-tool-NAME.
const PluginPrefix = "riot-tool-"

// Discovered is a plugin binary found on disk. Being discovered is not
// being enabled: a plugin runs only if the config enables it.
type Discovered struct {
	Name string
	Path string
	// Via says which search directory found it.
	Via string
}

// SearchDirs are the directories searched for plugin binaries, in order:
// plugin_dirs, $RIOT_PLUGIN_PATH, .riot/plugins (in a trusted workspace),
// $XDG_DATA_HOME/riot/plugins (or ~/.local/share/riot/plugins), and the
// directory of the riot executable.
func (c *Config) SearchDirs(workspace, exeDir string, getenv func(string) string) []Discovered {
	if getenv == nil {
		getenv = os.Getenv
	}
	var dirs []Discovered
	add := func(dir, via string) {
		if dir == "" {
			return
		}
		dir = ExpandHome(dir)
		if !filepath.IsAbs(dir) && workspace != "" {
			dir = filepath.Join(workspace, dir)
		}
		if !slices.ContainsFunc(dirs, func(d Discovered) bool { return d.Path == dir }) {
			dirs = append(dirs, Discovered{Path: dir, Via: via})
		}
	}
	for _, d := range c.PluginDirs {
		add(d, "plugin_dirs")
	}
	for _, d := range filepath.SplitList(getenv("RIOT_PLUGIN_PATH")) {
		add(d, "$RIOT_PLUGIN_PATH")
	}
	if workspace != "" && c.Trust.SearchesPlugins() {
		// The repository's binaries, started only once the user trusts it.
		add(filepath.Join(workspace, ".riot", "plugins"), ".riot/plugins")
	}
	data := getenv("XDG_DATA_HOME")
	if data == "" {
		if home, err := HomeDir(); err == nil {
			data = filepath.Join(home, ".local", "share")
		}
	}
	if data != "" {
		add(filepath.Join(data, "riot", "plugins"), "$XDG_DATA_HOME/riot/plugins")
	}
	add(exeDir, "riot's directory")
	return dirs
}

// Discover finds riot-tool-* executables in the search directories. When
// two directories hold the same name, the first wins.
func (c *Config) Discover(workspace, exeDir string, getenv func(string) string) []Discovered {
	var found []Discovered
	for _, dir := range c.SearchDirs(workspace, exeDir, getenv) {
		entries, err := os.ReadDir(dir.Path)
		if err != nil {
			continue
		}
		for _, e := range entries {
			name, ok := strings.CutPrefix(e.Name(), PluginPrefix)
			if !ok || name == "" || !pluginName().MatchString(name) {
				continue
			}
			path := filepath.Join(dir.Path, e.Name())
			info, err := os.Stat(path)
			if err != nil || info.IsDir() || info.Mode().Perm()&0o111 == 0 {
				continue
			}
			if slices.ContainsFunc(found, func(d Discovered) bool { return d.Name == name }) {
				continue
			}
			found = append(found, Discovered{Name: name, Path: path, Via: dir.Via})
		}
	}
	return found
}
