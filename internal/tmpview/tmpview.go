// Package tmpview is the one rule for which paths in /tmp a session's
// sandbox shows from the session's temporary directory. The core judges
// a sandboxed command's /tmp paths by it, and the plugin SDK resolves the
// paths of tools that start no processes by it, so that Read, Edit, Grep
// and Glob find at /tmp/x what Bash's commands left there.
package tmpview

import (
	"os"
	"path/filepath"
	"strings"
)

// Dir is where every sandboxed command of a session finds the session's
// temporary directory.
const Dir = "/tmp"

// View is a session's temporary directory as its sandbox shows it at Dir.
type View struct {
	// Host is the directory on the host, absolute and clean.
	Host string
	// Own are the paths the sandbox shows at their own names over it:
	// the workspace roots, [sandbox] allow_read and allow_write, the
	// results directory. Absolute and clean.
	Own []string
}

// Shows reports whether the sandbox shows p, absolute and clean, from the
// session's directory: p is Dir or below it, within none of Own, and the
// first name below Dir is not one the host's Dir has. A name the host has
// (a directory another program made) keeps its host meaning.
func (v *View) Shows(p string) bool {
	if v == nil || v.Host == "" || !within(p, Dir) {
		return false
	}
	for _, o := range v.Own {
		if within(p, o) {
			return false
		}
	}
	if rel := strings.TrimPrefix(strings.TrimPrefix(p, Dir), "/"); rel != "" {
		first, _, _ := strings.Cut(rel, "/")
		if _, err := os.Lstat(filepath.Join(Dir, first)); err == nil {
			return false
		}
	}
	return true
}

// HostPath is the host's name of p, an absolute path not necessarily
// clean: under Host where the sandbox shows p from the session's
// directory, p itself otherwise. Its `..` are kept, for the caller to
// apply as the kernel does (after a symlink, the parent of its target).
func (v *View) HostPath(p string) string {
	if !v.Shows(filepath.Clean(p)) {
		return p
	}
	if rest, ok := strings.CutPrefix(p, Dir); ok && (rest == "" || rest[0] == '/') {
		return v.Host + rest
	}
	// Another spelling of a path in Dir (//tmp, /./tmp): its clean form.
	return v.Host + strings.TrimPrefix(filepath.Clean(p), Dir)
}

// Shown is the name a sandboxed command knows the host's p by: p below
// Host is in Dir. Any other path is returned as it is.
func (v *View) Shown(p string) string {
	if v == nil || v.Host == "" {
		return p
	}
	if rest, ok := strings.CutPrefix(p, v.Host); ok && (rest == "" || rest[0] == '/') {
		return Dir + rest
	}
	return p
}

// within reports whether p is dir or lies below it; both are clean.
func within(p, dir string) bool {
	return p == dir || dir == "/" || strings.HasPrefix(p, dir+"/")
}
