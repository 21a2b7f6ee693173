package search

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/charlievieth/fastwalk"

	"github.com/riot-tools/riot/plugins/grep/internal/ignore"
)

// counters are Stats while the walk and the workers update them.
type counters struct {
	searched, binary, unreadable, symlinks atomic.Int64
	ignored, hidden, filtered, special     atomic.Int64
}

func (c *counters) snapshot() Stats {
	return Stats{
		Searched:   int(c.searched.Load()),
		Binary:     int(c.binary.Load()),
		Unreadable: int(c.unreadable.Load()),
		Symlinks:   int(c.symlinks.Load()),
		Ignored:    int(c.ignored.Load()),
		Hidden:     int(c.hidden.Load()),
		Filtered:   int(c.filtered.Load()),
		Special:    int(c.special.Load()),
	}
}

// errStop ends a walk when the search's context ends.
var errStop = errors.New("search stopped")

// walk walks Root in parallel with fastwalk and searches each file on
// the walking goroutine that found it: fastwalk's workers are the pool,
// so no file changes goroutine on its way to being searched (a channel
// hand-off per file costs more in scheduler wake-ups than the search of
// a typical source file). Workers' buffers come from a sync.Pool.
//
// fastwalk calls the callback for a directory just before it reads it,
// and for its files while reading it, so the callback can load the
// directory's ignore files then and store them for its entries: a
// directory's Dir is always stored before its entries are visited.
func (e *engine) walk() {
	workers := sync.Pool{New: func() any { return e.newWorker() }}
	root := filepath.Clean(e.o.Root)
	e.dirs.Store(root, ignore.Root(root, e.o.GlobalExcludes))
	conf := fastwalk.Config{Follow: false, NumWorkers: e.o.Workers}
	_ = fastwalk.Walk(&conf, root, func(path string, de fs.DirEntry, err error) error {
		defer e.recoverPanic()
		if e.done() {
			return errStop
		}
		if err != nil {
			// A directory that cannot be read, or an entry that vanished.
			e.stats.unreadable.Add(1)
			if de != nil && de.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if path == root {
			return nil
		}
		typ := de.Type()
		dir, name := splitPath(path)
		parent := e.dirFor(dir)
		switch {
		case typ.IsDir():
			if name == ".git" {
				e.stats.hidden.Add(1)
				return filepath.SkipDir
			}
			if e.skip(parent, path, name, true) {
				return filepath.SkipDir
			}
			e.dirs.Store(path, parent.Child(path))
			return nil
		case typ&fs.ModeSymlink != 0:
			e.stats.symlinks.Add(1)
			return nil
		case !typ.IsRegular():
			e.stats.special.Add(1)
			return nil
		}
		if e.skip(parent, path, name, false) {
			return nil
		}
		w := workers.Get().(*worker)
		w.searchFile(path, e.display(path), false)
		workers.Put(w)
		return nil
	})
}

// dirFor returns the ignore state of a directory already visited.
func (e *engine) dirFor(dir string) *ignore.Dir {
	if d, ok := e.dirs.Load(dir); ok {
		return d.(*ignore.Dir)
	}
	// Unreachable: fastwalk visits a directory before its entries. Fall
	// back to loading it, which is correct, only slower.
	d := ignore.Root(dir, e.o.GlobalExcludes)
	e.dirs.Store(dir, d)
	return d
}

// skip decides whether the walk skips an entry, in ripgrep's order: a
// --glob decides first either way; then an ignore rule that ignores; then
// the file type; then, unless an ignore rule or the type whitelisted it,
// a hidden name.
func (e *engine) skip(d *ignore.Dir, path, name string, isDir bool) bool {
	if e.o.Glob != nil {
		switch e.o.Glob.Match(e.globPath(path), isDir) {
		case ignore.Ignore:
			e.stats.filtered.Add(1)
			return true
		case ignore.Whitelist:
			return false
		}
	}
	whitelisted := false
	switch d.Match(path, isDir) {
	case ignore.Ignore:
		e.stats.ignored.Add(1)
		return true
	case ignore.Whitelist:
		whitelisted = true
	}
	switch e.o.Type.Match(name, isDir) {
	case ignore.Ignore:
		e.stats.filtered.Add(1)
		return true
	case ignore.Whitelist:
		whitelisted = true
	}
	if !whitelisted && strings.HasPrefix(name, ".") {
		e.stats.hidden.Add(1)
		return true
	}
	return false
}

// splitPath splits an absolute path into its directory and base name.
func splitPath(path string) (string, string) {
	i := strings.LastIndexByte(path, '/')
	if i <= 0 {
		return "/", path[i+1:]
	}
	return path[:i], path[i+1:]
}
