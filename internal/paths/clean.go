package paths

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
)

// Clean returns the absolute path p without `.`, `..` or repeated
// slashes, meaning what p means to the kernel: a `..` after a symlink is
// the parent of the link's target, so `lnk/../x`, where lnk points to
// /outside/sub, is /outside/x, where filepath.Clean would say `x` beside
// lnk. Symlinks not followed by a `..` stay as written, so the result
// still names a link by its name (for deny rules on it, and to show the
// model the path it gave). A component that cannot be examined before a
// `..` (a broken link, a permission error) is an error: the caller keeps
// p unclean, and whoever resolves it then fails closed.
func Clean(fsys FS, p string) (string, error) {
	if !strings.HasPrefix(p, "/") {
		return "", errors.New("not an absolute path")
	}
	if !hasDotDot(p) {
		return filepath.Clean(p), nil
	}
	cur, linked := "/", false // linked: cur passes through a symlink
	for _, c := range strings.Split(p, "/") {
		switch c {
		case "", ".":
			continue
		case "..":
			if linked {
				phys, err := Resolve(fsys, cur)
				if err != nil {
					return "", err
				}
				cur, linked = phys, false
			}
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		if cur == "/proc" && isProcess(c) {
			// Resolve refuses these; keep them unresolved for it to.
			return "", ErrProcess
		}
		fi, err := fsys.Lstat(next)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			// Not there yet: a `..` after it is lexical, as for mkdir -p.
		case err != nil:
			return "", err
		case fi.Mode()&fs.ModeSymlink != 0:
			linked = true
		}
		cur = next
	}
	return cur, nil
}

// hasDotDot reports whether p has a `..` component.
func hasDotDot(p string) bool {
	for _, c := range strings.Split(p, "/") {
		if c == ".." {
			return true
		}
	}
	return false
}
