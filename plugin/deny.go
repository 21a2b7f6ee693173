package plugin

import (
	"path/filepath"

	"github.com/riot-tools/riot/internal/paths"
)

// Denied reports whether the user's Read(...) deny rules cover path, which
// is resolved as Abs resolves it and then symlink by symlink, so that a
// link to a denied file is denied too. A path that cannot be resolved (a
// broken or looping symlink, a component that cannot be examined) counts
// as denied: fail closed.
//
// The permission chain sees only the paths a call names. A tool that walks
// a tree (Grep, Glob) finds files the chain never saw, so it must skip
// every one Denied reports, and say in its content how many it skipped.
func (e *Env) Denied(path string) bool {
	if len(e.DenyRead) == 0 {
		return false
	}
	abs := e.unclean(path)
	if paths.Match(e.DenyRead, filepath.Clean(abs)) {
		return true
	}
	phys, err := paths.Resolve(paths.OS{}, abs)
	return err != nil || paths.Match(e.DenyRead, phys)
}

// DeniedPhysical is Denied for a path already absolute, clean and free of
// symlinks, such as one a walker reached from a resolved root without
// following links: it skips the resolution, which costs a system call per
// component of every file walked.
func (e *Env) DeniedPhysical(path string) bool {
	if len(e.DenyRead) == 0 {
		return false // no rules: spare the walk up the path
	}
	return paths.Match(e.DenyRead, path)
}

// unclean makes path absolute as Abs does (~ under the home directory, a
// relative path under Cwd, the session's /tmp) but keeps its `..` for the
// resolution to apply after each symlink.
func (e *Env) unclean(path string) string {
	path = expandHome(path)
	if !filepath.IsAbs(path) && e.Cwd != "" {
		path = e.Cwd + string(filepath.Separator) + path
	}
	if filepath.IsAbs(path) {
		path = e.tmp.HostPath(path)
	}
	return path
}
