package core

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/config/lock"
)

// Resolver says how to serve builtins and where to look for plugins.
type Resolver struct {
	// Workspace is the working directory.
	Workspace string
	// Exe is the riot executable, which serves builtins as
	// `riot __plugin NAME`; its directory is searched for plugins too.
	Exe string
	// Builtins are the tool sets compiled into Exe.
	Builtins []string
	// Getenv reads the environment; nil means os.Getenv.
	Getenv func(string) string
}

// PluginStatus is one plugin as `riot plugins` lists it.
type PluginStatus struct {
	Name string
	// Path is the binary; for a builtin, riot itself.
	Path    string
	Builtin bool
	Enabled bool
	// Standalone is a builtin's own riot-tool-NAME binary beside riot,
	// which serves it instead of riot when SameBuild(Path, Standalone).
	Standalone string
	// Discovered says which search directory found it, if one did.
	Discovered string
	// Problem is why an enabled plugin cannot run, if it cannot.
	Problem string
	// Source and Version are a plugin's declared source and the version
	// the lock pins, for a plugin installed with `riot plugins install`.
	Source, Version string
}

// ResolvePlugins turns the config's [plugins] entries into the plugins a
// Host starts, in order, and lists every plugin known, discovered or
// configured, with its status.
func (r Resolver) ResolvePlugins(cfg *config.Config) ([]PluginSpec, []PluginStatus) {
	found := cfg.Discover(r.Workspace, filepath.Dir(r.Exe), r.Getenv)
	locked := r.lockReader()
	var specs []PluginSpec
	var status []PluginStatus
	for _, p := range cfg.Plugins {
		st := PluginStatus{Name: p.Name, Enabled: p.Enabled}
		spec := PluginSpec{Name: p.Name, Path: p.Path, Args: p.Args, Env: p.Env, SHA256: p.SHA256, Timeout: p.Timeout}
		builtin := slices.Contains(r.Builtins, p.Name)
		i := slices.IndexFunc(found, func(d config.Discovered) bool { return d.Name == p.Name })
		if i >= 0 && p.Path == "" && !builtin {
			// Only a binary that is used is shown as found: a path or a
			// builtin is served from elsewhere, and one entry names one
			// location.
			st.Discovered = found[i].Via
		}
		switch {
		case p.Source != "":
			// An installed plugin runs only as the lock pins it.
			st.Source = p.Source
			path := p.Path
			if path == "" && i >= 0 {
				path = found[i].Path
			}
			spec.Path = path
			entry, refused := locked(p)
			if entry != nil {
				st.Version = entry.Version
				spec.SHA256 = entry.BinarySHA256()
				spec.Lock = &LockPin{File: lock.Path(r.Workspace), Tools: entry.Tools}
			}
			if refused == "" && path == "" {
				refused = fmt.Sprintf("The %s plugin is locked but its binary is not installed here. Tell the user to run `riot plugins install` to install it as %s pins it.", p.Name, lock.Path(r.Workspace))
			}
			spec.Refused, st.Problem = refused, refused
		case p.Path != "":
		case builtin:
			spec.Path, spec.Args, spec.Builtin = r.Exe, append([]string{BuiltinCommand, p.Name}, p.Args...), true
			st.Builtin = true
			if p.SHA256 == "" {
				// A pin names riot's own binary, so only an unpinned
				// builtin may be served by another.
				spec.Standalone = r.standalone(p.Name)
				st.Standalone = spec.Standalone
			}
		case i >= 0:
			spec.Path = found[i].Path
		case slices.Contains(config.BuiltinNames(), p.Name):
			// A builtin of the defaults that this build lacks is left out.
			continue
		case p.Enabled:
			st.Problem = fmt.Sprintf("no %s%s binary was found; put one in a plugin directory (%s) or set [plugins.%s] path", config.PluginPrefix, p.Name, dirList(cfg, r), p.Name)
		}
		st.Path = spec.Path
		status = append(status, st)
		if p.Enabled {
			if spec.Path == "" {
				spec.Path = filepath.Join(r.searchDir(cfg), config.PluginPrefix+p.Name)
			}
			specs = append(specs, spec)
		}
	}
	for _, d := range found {
		if _, ok := cfg.Plugin(d.Name); ok {
			continue
		}
		status = append(status, PluginStatus{Name: d.Name, Path: d.Path, Discovered: d.Via})
	}
	return specs, status
}

// lockReader returns a function that finds a sourced plugin's lock entry,
// reading the workspace's lock once; an entry it cannot use comes with why
// the plugin must not start.
func (r Resolver) lockReader() func(config.Plugin) (*lock.Entry, string) {
	var (
		file *lock.File
		err  error
		read bool
	)
	path := lock.Path(r.Workspace)
	return func(p config.Plugin) (*lock.Entry, string) {
		if !read {
			file, err = lock.Read(path)
			read = true
		}
		if err != nil {
			return nil, fmt.Sprintf("The %s plugin does not run while its lock is broken: %s.", p.Name, err)
		}
		e := file.Plugins[p.Name]
		switch {
		case e == nil:
			return nil, fmt.Sprintf("The %s plugin is declared with source %q but not installed: %s has no entry for it. Tell the user to run `riot plugins install`.", p.Name, p.Source, path)
		case e.Source != p.Source:
			return e, fmt.Sprintf("The %s plugin's source in the config (%q) is not the one %s records (%q). Tell the user to run `riot plugins install` to install the declared source.", p.Name, p.Source, path, e.Source)
		case e.BinarySHA256() == "":
			return e, fmt.Sprintf("%s pins no %s binary of the %s plugin for this platform (%s). Tell the user to run `riot plugins install` to build and record it.", path, p.Name, p.Name, lock.Platform())
		}
		return e, ""
	}
}

// standalone is builtin name's riot-tool-NAME binary beside riot, or "".
// Only that directory counts: a workspace must not be able to replace a
// builtin by dropping a binary into .riot/plugins.
func (r Resolver) standalone(name string) string {
	path := filepath.Join(filepath.Dir(r.Exe), config.PluginPrefix+name)
	if info, err := os.Stat(path); err != nil || !info.Mode().IsRegular() {
		return ""
	}
	return path
}

// BuiltinCommand is riot's hidden command that serves a builtin:
// `riot __plugin NAME`.
const BuiltinCommand = "__plugin"

// isBuiltin reports whether the plugin fills a builtin's place: served by
// riot, or by a binary the config points that builtin at.
func (s PluginSpec) isBuiltin() bool {
	return s.Builtin || s.impl == nil && slices.Contains(config.BuiltinNames(), s.Name)
}

func (r Resolver) searchDir(cfg *config.Config) string {
	dirs := cfg.SearchDirs(r.Workspace, filepath.Dir(r.Exe), r.Getenv)
	if len(dirs) == 0 {
		return "."
	}
	return dirs[0].Path
}

func dirList(cfg *config.Config, r Resolver) string {
	var names []string
	for _, d := range cfg.SearchDirs(r.Workspace, filepath.Dir(r.Exe), r.Getenv) {
		names = append(names, d.Path)
	}
	return strings.Join(names, ", ")
}
