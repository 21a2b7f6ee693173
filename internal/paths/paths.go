// Package paths resolves paths as the kernel does and matches them against
// gitignore-style globs. The core's permission chain and the plugin SDK
// both use it, so that the fence a tool checks before the chain runs, the
// deny rules a tool applies while it walks a tree, and the decision of the
// chain itself cannot disagree about what a path names.
package paths

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// FS is what resolution reads; tests inject failures such as a permission
// error, which root cannot provoke.
type FS interface {
	Lstat(name string) (fs.FileInfo, error)
	Readlink(name string) (string, error)
}

// OS is the real filesystem.
type OS struct{}

// Lstat is os.Lstat.
func (OS) Lstat(name string) (fs.FileInfo, error) { return os.Lstat(name) }

// Readlink is os.Readlink.
func (OS) Readlink(name string) (string, error) { return os.Readlink(name) }

// MaxLinks bounds the symlinks followed in one resolution, as the kernel's
// ELOOP does.
const MaxLinks = 255

// Resolve returns the physical form of the absolute path p: every symlink
// followed, each `..` applied to the already resolved parent (so `link/..`
// is the parent of the link's target, as the kernel sees it), and a tail
// that does not exist yet appended as written. A broken or looping
// symlink, or a component that cannot be examined (a permission error, a
// file used as a directory), is an error: the caller treats the path as
// unknown. p is never cleaned first: cleaning `link/../x` to `x` is the
// mistake this function exists to avoid.
func Resolve(fsys FS, p string) (string, error) {
	if !strings.HasPrefix(p, "/") {
		return "", fmt.Errorf("%q is not an absolute path", p)
	}
	links := 0
	return walk(fsys, "/", p, &links, false)
}

func walk(fsys FS, cur, rel string, links *int, mustExist bool) (string, error) {
	for _, c := range strings.Split(rel, "/") {
		switch c {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		if cur == "/proc" && isProcess(c) {
			return "", fmt.Errorf("%s: %w", next, ErrProcess)
		}
		fi, err := fsys.Lstat(next)
		switch {
		case errors.Is(err, fs.ErrNotExist) && !mustExist:
			cur = next // not created yet
			continue
		case errors.Is(err, fs.ErrNotExist):
			return "", fmt.Errorf("%s does not exist", next)
		case err != nil:
			return "", err
		case fi.Mode()&fs.ModeSymlink == 0:
			cur = next
			continue
		}
		*links++
		if *links > MaxLinks {
			return "", fmt.Errorf("%s: too many levels of symbolic links", next)
		}
		target, err := fsys.Readlink(next)
		if err != nil {
			return "", err
		}
		base := cur
		if filepath.IsAbs(target) {
			base = "/"
		}
		// A symlink's target must exist: a broken link is no path to judge.
		if cur, err = walk(fsys, base, target, links, true); err != nil {
			return "", fmt.Errorf("the symlink %s is broken: %w", next, err)
		}
	}
	return cur, nil
}

// Match reports whether one of the doublestar globs matches path or a
// directory above it: as in gitignore, a pattern that names a directory
// covers everything it holds. path must be absolute and clean.
func Match(globs []string, path string) bool {
	for dir := path; ; dir = filepath.Dir(dir) {
		for _, g := range globs {
			if doublestar.MatchUnvalidated(g, dir) {
				return true
			}
		}
		if dir == "/" || dir == "." {
			return false
		}
	}
}
