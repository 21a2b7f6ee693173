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
	deniedFiles, deniedDirs                atomic.Int64
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

		DeniedFiles: int(c.deniedFiles.Load()),
		DeniedDirs:  int(c.deniedDirs.Load()),
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
// and for its files while reading it, so the callback stores a lazyDir
// for the directory then: it is always there before its entries are
// visited. Entries are visited in byte order of their names, so the first
// one that is not a subdirectory tells which ignore files are missing.
func (e *engine) walk() {
	workers := sync.Pool{New: func() any { return e.newWorker() }}
	root := filepath.Clean(e.o.Root)
	rootDir := &lazyDir{}
	rootDir.dir.Store(ignore.Root(root, e.o.GlobalExcludes))
	e.dirs.Store(root, rootDir)
	conf := fastwalk.Config{Follow: false, NumWorkers: e.o.Workers, Sort: fastwalk.SortLexical}
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
		first := name
		if typ.IsDir() {
			first = ""
		}
		parent := e.dirFor(dir, first)
		switch {
		case typ.IsDir():
			if name == ".git" {
				e.stats.hidden.Add(1)
				return filepath.SkipDir
			}
			if e.skip(parent, path, name, true) {
				return filepath.SkipDir
			}
			// After the ignore rules, so that only what would be searched
			// counts as skipped for the deny rules.
			if e.denied(path) {
				e.stats.deniedDirs.Add(1)
				return filepath.SkipDir
			}
			e.dirs.Store(path, &lazyDir{parent: parent, path: path})
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
		if e.denied(path) {
			e.stats.deniedFiles.Add(1)
			return nil
		}
		if e.o.Mode == ListFiles {
			e.listFile(path, de)
			return nil
		}
		w := workers.Get().(*worker)
		w.searchFile(path, e.display(path), false)
		workers.Put(w)
		return nil
	})
}

// dirFor returns the ignore state of a directory already visited. first
// is the name of the entry asking, unless it is a subdirectory.
func (e *engine) dirFor(dir, first string) *ignore.Dir {
	if l, ok := e.dirs.Load(dir); ok {
		return l.(*lazyDir).get(first)
	}
	// Unreachable: fastwalk visits a directory before its entries. Fall
	// back to loading it, which is correct, only slower.
	l := &lazyDir{}
	l.dir.Store(ignore.Root(dir, e.o.GlobalExcludes))
	e.dirs.Store(dir, l)
	return l.dir.Load()
}

// lazyDir is a directory's ignore state, made when first needed. The
// directory's own walker usually needs it first, for its first entry
// that is not a subdirectory: no such entry sorts before that one, so
// ignore files whose names do are not looked for. A walker visiting a
// subdirectory may need it sooner; it then looks for them all.
type lazyDir struct {
	parent *ignore.Dir
	path   string
	mu     sync.Mutex
	dir    atomic.Pointer[ignore.Dir]
}

// get returns the Dir; first is as for dirFor.
func (l *lazyDir) get(first string) *ignore.Dir {
	if d := l.dir.Load(); d != nil {
		return d
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	d := l.dir.Load()
	if d == nil {
		d = l.parent.ChildListed(l.path, first)
		l.dir.Store(d)
	}
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
		case ignore.None:
		}
	}
	whitelisted := false
	switch d.Match(path, isDir) {
	case ignore.Ignore:
		e.stats.ignored.Add(1)
		return true
	case ignore.Whitelist:
		whitelisted = true
	case ignore.None:
	}
	switch e.o.Type.Match(name, isDir) {
	case ignore.Ignore:
		e.stats.filtered.Add(1)
		return true
	case ignore.Whitelist:
		whitelisted = true
	case ignore.None:
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
