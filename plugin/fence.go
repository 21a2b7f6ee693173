package plugin

import (
	"errors"
	"path/filepath"
	"strings"

	"github.com/riot-tools/riot/internal/paths"
)

// InFence reports whether abs, an absolute path, lies inside a workspace
// root or a results directory once symlinks are resolved (a symlink inside
// a root that points out of it is outside), each `..` applied after the
// symlink before it, as the kernel does. A path that cannot be resolved to
// the end (a broken link, a file used as a directory) is judged by its
// longest prefix that can, so that a tool can say what is wrong with it;
// a path through /proc/self, /proc/thread-self or /proc/<pid> is outside.
// The host's
// permission chain is the fence that counts; this is for what a tool does
// before the chain has run, in Prepare: a tool may say whether a path
// exists, or list its neighbours, only inside the fence, or a denied path
// would leak through the hint.
func (e *Env) InFence(abs string) bool {
	if !filepath.IsAbs(abs) {
		return false
	}
	for p := abs; ; p = filepath.Dir(p) {
		real, err := paths.Resolve(paths.OS{}, p)
		switch {
		case errors.Is(err, paths.ErrProcess):
			return false
		case err == nil:
			return e.inFencePhysical(real)
		case p == "/":
			return false
		}
	}
}

// inFencePhysical is InFence for a path already resolved.
func (e *Env) inFencePhysical(real string) bool {
	for _, root := range e.fenceRoots() {
		if within(real, root) {
			return true
		}
	}
	return false
}

// fenceRoots are the roots, the results directories and the session's
// temporary directory (a root of the host's chain), resolved; one that
// cannot be resolved is left out, which only narrows the fence.
func (e *Env) fenceRoots() []string {
	var out []string
	roots := append(append([]string(nil), e.Roots...), e.ResultsDirs...)
	if e.tmp != nil {
		roots = append(roots, e.tmp.Host)
	}
	for _, root := range roots {
		if !filepath.IsAbs(root) { // "" included
			continue
		}
		if r, err := paths.Resolve(paths.OS{}, root); err == nil {
			out = append(out, r)
		}
	}
	return out
}

// within reports whether p is root or lies below it; both are clean.
func within(p, root string) bool {
	return p == root || strings.HasPrefix(p, strings.TrimSuffix(root, "/")+"/")
}
