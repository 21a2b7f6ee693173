package bash

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// walkPath walks the tree a recursive read (grep -r, rg, find, du, diff -r, ls -R, tree) reads below p, in each
// directory the command may be in. The permission chain sees only the paths a call names, so the walk reports
// what the chain could not see: each file a deny rule covers becomes a read path and is listed in Denied, and a
// symlink the recursion follows out of the roots, or a tree past the bound, asks. Without an Env it does
// nothing.
func (w *walker) walkPath(p word, follow bool) {
	if w.env == nil || !p.lit {
		return
	}
	abs, ok := w.absPaths(p.text, p.tilde)
	if !ok {
		return // path has made the call opaque already
	}
	for _, a := range abs {
		w.walkTree(a, follow)
	}
}

// walkTree walks root breadth-first. A command given a symlink on its command line reads its target, so root is
// resolved, and the walk goes on in physical paths: a name below a resolved directory is physical as long as no
// symlink is followed, and a followed symlink is resolved. So the deny rules are matched on names alone
// (DeniedName), without a system call per file. Below root, symlinks are followed only when follow is set, as the
// command would. Without deny rules and without following symlinks there is nothing to find.
func (w *walker) walkTree(root string, follow bool) {
	if w.env.DeniedName == nil && !follow {
		return
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return // missing: nothing to read; a broken link is the chain's to judge
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return
	}
	seen := map[string]bool{real: true}
	queue := []string{real}
	n, limit := 0, w.env.Limit*walkFactor
	for len(queue) > 0 {
		dir := queue[0]
		queue = queue[1:]
		ents, err := os.ReadDir(dir)
		if err != nil {
			w.ask(fmt.Sprintf("This command reads %s recursively, and riot cannot list that directory to check what it holds, so running it needs the user's approval. Use the Grep tool to search, which skips what it may not read.", dir))
			continue
		}
		for _, e := range ents {
			if n++; n > limit {
				w.ask(fmt.Sprintf("This command reads %s recursively, and the tree is larger than riot checks (%d entries), so running it needs the user's approval. Use the Grep tool to search, which skips denied files, or name a smaller directory.", root, limit))
				return
			}
			path := strings.TrimSuffix(dir, "/") + "/" + e.Name()
			if w.deniedName(path) {
				continue // a denied directory is not walked: the deny covers all it holds
			}
			if e.Type()&os.ModeSymlink == 0 {
				if e.IsDir() {
					queue = append(queue, path)
				}
				continue
			}
			if !follow {
				continue
			}
			target, err := filepath.EvalSymlinks(path)
			switch {
			case err != nil:
				continue // a broken link reads nothing
			case !w.inRoots(target):
				w.ask(fmt.Sprintf("This command follows symlinks while it reads recursively, and %s leads out of the workspace (to %s), so running it needs the user's approval. Search without following symlinks, or use the Grep tool.", path, target))
				continue
			case w.deniedName(target):
				continue
			}
			if fi, err := os.Stat(target); err == nil && fi.IsDir() && !seen[target] {
				seen[target] = true
				queue = append(queue, target)
			}
		}
	}
}

// walkFactor is how many more entries a recursive walk looks at than a glob matches: walking is cheaper, and a
// repository's tree is larger than one directory.
const walkFactor = 16

// deniedName reports, and records as a read path and in Denied, a physical path a deny rule covers.
func (w *walker) deniedName(path string) bool {
	if w.env.DeniedName == nil || !w.env.DeniedName(path) {
		return false
	}
	addPath(&w.a.ReadPaths, path)
	addPath(&w.a.Denied, path)
	return true
}

// denied reports, and records as a read path and in Denied, a path a deny rule covers.
func (w *walker) denied(path string) bool {
	if w.env.Denied == nil || !w.env.Denied(path) {
		return false
	}
	addPath(&w.a.ReadPaths, path)
	addPath(&w.a.Denied, path)
	return true
}

// inRootsPhysical reports whether path, once its symlinks are resolved, lies in a workspace root.
func (w *walker) inRootsPhysical(path string) bool {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	return w.inRoots(path)
}

// inRoots reports whether a physical path lies in a workspace root (itself resolved).
func (w *walker) inRoots(path string) bool {
	for _, r := range w.env.Roots {
		if rr, err := filepath.EvalSymlinks(r); err == nil {
			r = rr
		}
		if r == "/" || path == r || strings.HasPrefix(path, strings.TrimSuffix(r, "/")+"/") {
			return true
		}
	}
	return false
}

// trackedFiles checks the files `git ls-files` prints in dir, which the command reading them opens, following a
// final symlink: each denied one is recorded, and a symlink out of the roots asks. Without a readable index, the
// whole tree below dir is walked instead.
func (w *walker) trackedFiles(dir string) {
	repo := findRepo(dir)
	if repo == nil || repo.top == "" || repo.problem != "" {
		w.walkTree(dir, true)
		return
	}
	names, ok := repo.tracked(w.env.Limit * 64)
	if !ok {
		w.walkTree(dir, true)
		return
	}
	top := strings.TrimSuffix(repo.top, "/") + "/"
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		realDir = dir
	}
	realTop, err := filepath.EvalSymlinks(repo.top)
	if err != nil {
		realTop = repo.top
	}
	for _, n := range names {
		abs := top + n
		if !within(strings.TrimSuffix(realTop, "/")+"/"+n, realDir) || w.denied(abs) {
			continue
		}
		if fi, err := os.Lstat(abs); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			if target, err := filepath.EvalSymlinks(abs); err == nil && !w.inRoots(target) {
				w.ask(fmt.Sprintf("This command reads the files git tracks, and %s is a symlink out of the workspace (to %s), so running it needs the user's approval.", abs, target))
			}
		}
	}
}
