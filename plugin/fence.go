package plugin

import (
	"path/filepath"
	"strings"
)

// InFence reports whether abs, an absolute path, lies inside a workspace
// root or a results directory once symlinks are resolved (a symlink inside
// a root that points out of it is outside). The host's permission chain is
// the fence that counts; this is for what a tool does before the chain has
// run, in Prepare: a tool may say whether a path exists, or list its
// neighbours, only inside the fence, or a denied path would leak through
// the hint.
func (e *Env) InFence(abs string) bool {
	if !filepath.IsAbs(abs) {
		return false
	}
	real := resolveExisting(filepath.Clean(abs))
	for _, root := range append(append([]string(nil), e.Roots...), e.ResultsDirs...) {
		if !filepath.IsAbs(root) { // "" included
			continue
		}
		r := resolveExisting(filepath.Clean(root))
		if real == r || strings.HasPrefix(real, strings.TrimSuffix(r, string(filepath.Separator))+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// resolveExisting resolves the symlinks of the longest existing prefix of
// an absolute, clean path, and appends the rest unchanged.
func resolveExisting(p string) string {
	rest := ""
	for {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return filepath.Join(p, rest)
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}
