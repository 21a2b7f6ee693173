package search

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/charlievieth/fastwalk"

	"github.com/riot-tools/riot/plugins/grep/internal/ignore"
)

// Mode is what a search reports.
type Mode int

const (
	// FilesWithMatches reports each file with a match, newest first, and
	// stops reading a file at its first match.
	FilesWithMatches Mode = iota
	// Content reports matching lines, with context, file by file in path
	// order.
	Content
	// Count reports the number of matching lines of each file, in path
	// order.
	Count
	// ListFiles reports every file the walk would search, newest first,
	// reading none: the file set of Glob, and of rg --files.
	ListFiles
)

// Options say what to search and how.
type Options struct {
	// Root is the absolute path searched: a directory is walked; a file is
	// searched even if ignore rules, hidden-file rules, Glob or Type would
	// skip it, and even if it is binary, as ripgrep does for a file named
	// on its command line.
	Root string
	// Cwd is the working directory. Paths under it are reported relative
	// to it, and Glob is matched against that form.
	Cwd string
	// Show names any other path as the model knows it (plugin.Env.Shown:
	// the session's /tmp); nil leaves it as it is.
	Show    func(path string) string
	Mode    Mode
	Pattern *Pattern
	// Glob and Type filter the files of a walk; nil or empty for none.
	Glob *ignore.Override
	Type ignore.TypeFilter
	// GlobalExcludes are the rules of the global git excludes file.
	GlobalExcludes *ignore.Rules

	// Before and After are context lines, and LineNumbers prefixes
	// line numbers, in Content mode.
	Before, After int
	LineNumbers   bool
	// Keep is how many output lines of Content mode, counted from the
	// start of the sorted output, must be kept in memory (offset plus
	// head_limit); 0 keeps all of them. Later lines are only counted.
	Keep int
	// MaxOutputBytes caps the rendered Content kept in memory, whatever
	// Keep says. 0 means DefaultMaxOutputBytes.
	MaxOutputBytes int

	// Denied reports whether the user's deny rules cover a path, given in
	// its physical form (PhysicalRoot and the rest of the walked path);
	// nil for no rules. A denied file is never opened, and a denied
	// directory never entered.
	Denied func(physical string) bool
	// PhysicalRoot is Root with its symlinks resolved: the walk follows
	// none below Root, so PhysicalRoot and a walked path's tail past Root
	// are that path's physical form.
	PhysicalRoot string

	// Opened is Root, opened by the caller after checking that the file it
	// opened is one the call may read; nil to open by path. The files of a
	// walk are then opened beneath it, through no symlink (a component
	// swapped for one since the walk listed it fails to open), and a file
	// Root is searched through it: what is read is what was checked, not
	// what a path names by the time it is opened.
	Opened *os.File

	// Workers is the number of goroutines that walk and search; 0 means
	// GOMAXPROCS clamped to 4–32, fastwalk's default.
	Workers int
	// afterFile, if set, runs after each file is searched: tests use it
	// to stop a search part-way.
	afterFile func()
}

// DefaultMaxOutputBytes bounds the content a search keeps in memory.
const DefaultMaxOutputBytes = 16 << 20

// MaxLineChars is where a content line is cut.
const MaxLineChars = 500

// File is one file with matches.
type File struct {
	// Path is relative to Cwd when under it, absolute otherwise.
	Path string
	// ModTime is the modification time in Unix nanoseconds
	// (FilesWithMatches only).
	ModTime int64
	// Matches is the number of matching lines; 1 in FilesWithMatches mode,
	// which stops at the first.
	Matches int
	// Lines is the number of output lines of Content mode: matches,
	// context lines and "--" separators inside the file.
	Lines int
	// Out is the rendered Content output, which may hold only the first
	// lines of Lines, or none, when they lie past what Keep asked for.
	Out []byte
	// Kept is the number of lines in Out.
	Kept int
	// Binary is set for an explicitly named file that holds NUL bytes;
	// Content mode reports it in one line instead of its lines.
	Binary bool
}

// Stats say what a search looked at.
type Stats struct {
	// Searched files were read: wholly, or up to the first match in
	// FilesWithMatches mode.
	Searched int
	// Binary files were skipped for a NUL byte in their first 64 KiB, or
	// stopped at a NUL byte found later.
	Binary int
	// Unreadable files and directories could not be opened or read.
	Unreadable int
	// Symlinks were not followed.
	Symlinks int
	// Ignored entries matched an ignore file; Hidden entries' names start
	// with a dot; Filtered entries failed Glob or Type; Special entries
	// are sockets, devices and pipes.
	Ignored, Hidden, Filtered, Special int
	// DeniedFiles and DeniedDirs were skipped, unread, because the user's
	// deny rules cover them.
	DeniedFiles, DeniedDirs int
}

// Result is the outcome of a search.
type Result struct {
	// Files are the files with matches: newest first in FilesWithMatches
	// mode, by path otherwise.
	Files []File
	Stats Stats
	// Incomplete means ctx ended first; Files and Stats hold what was
	// found until then.
	Incomplete bool
	// Explicit means Root is a file, searched whatever the filters say.
	Explicit bool
	// Panic is set when the search hit a bug: the panic and its stack. The
	// search stopped there; Files and Stats are partial.
	Panic string
}

// Search runs a search. It stops when ctx ends, returning what it found.
func Search(ctx context.Context, o Options) Result {
	if o.Workers <= 0 {
		// GOMAXPROCS clamped to 4–32: more goroutines than CPUs keep the
		// CPUs busy while some wait on the disk, on a cold cache.
		o.Workers = fastwalk.DefaultNumWorkers()
	}
	if o.MaxOutputBytes <= 0 {
		o.MaxOutputBytes = DefaultMaxOutputBytes
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	e := &engine{o: o, ctx: ctx, stop: stop, col: newCollector(o), cwdPrefix: cwdPrefix(o.Cwd), rootFD: -1}
	var fi os.FileInfo
	var err error
	if o.Opened != nil {
		fi, err = o.Opened.Stat()
		e.rootFD = int(o.Opened.Fd())
	} else {
		fi, err = os.Stat(o.Root)
	}
	var res Result
	switch {
	case err != nil:
		e.stats.unreadable.Add(1)
	case fi.IsDir():
		e.walk()
	case e.denied(o.Root):
		res.Explicit = true
		e.stats.deniedFiles.Add(1)
	default:
		res.Explicit = true
		func() {
			defer e.recoverPanic()
			w := e.newWorker()
			if e.rootFD >= 0 {
				w.searchFD(e.rootFD, e.display(o.Root), true)
			} else {
				w.searchFile(o.Root, e.display(o.Root), true)
			}
		}()
	}
	res.Files = e.col.files()
	res.Stats = e.stats.snapshot()
	if p, ok := e.panicked.Load().(string); ok {
		res.Panic = p
		return res
	}
	res.Incomplete = ctx.Err() != nil
	return res
}

// recoverPanic, deferred on every goroutine that searches, turns a bug
// into a stopped search with Result.Panic set, rather than a crash of the
// plugin: a panic on a walker goroutine is out of the SDK's reach.
func (e *engine) recoverPanic() {
	if r := recover(); r != nil {
		e.panicked.CompareAndSwap(nil, fmt.Sprintf("%v\n%s", r, debug.Stack()))
		e.stop()
	}
}

// engine is one search in progress.
type engine struct {
	o    Options
	ctx  context.Context
	stop context.CancelFunc
	col  *collector
	// cwdPrefix is Cwd with a trailing slash: paths under it are shown
	// relative.
	cwdPrefix string
	// panicked holds the first panic's message and stack.
	panicked atomic.Value
	stats    counters
	// dirs maps a directory's path to its *lazyDir during a walk.
	dirs   sync.Map
	spares spares
	// rootFD is Options.Opened's descriptor, or -1.
	rootFD int
}

// done reports whether ctx has ended, without taking a lock.
func (e *engine) done() bool {
	select {
	case <-e.ctx.Done():
		return true
	default:
		return false
	}
}

// denied reports whether the deny rules cover path, a path of the walk.
func (e *engine) denied(path string) bool {
	if e.o.Denied == nil {
		return false
	}
	phys := path
	if e.o.PhysicalRoot != "" {
		root := filepath.Clean(e.o.Root)
		if rest, ok := strings.CutPrefix(path, root); ok && (rest == "" || rest[0] == '/' || root == "/") {
			phys = filepath.Join(e.o.PhysicalRoot, rest)
		}
	}
	return e.o.Denied(phys)
}

// display is how a path is reported: relative to Cwd when under it, else
// as Show names it.
func (e *engine) display(path string) string {
	if rel, ok := e.underCwd(path); ok {
		return rel
	}
	return e.shown(path)
}

// shown is path as Options.Show names it.
func (e *engine) shown(path string) string {
	if e.o.Show == nil {
		return path
	}
	return e.o.Show(path)
}

// underCwd returns path relative to Cwd when it lies strictly under it.
func (e *engine) underCwd(path string) (string, bool) {
	if e.cwdPrefix == "" {
		return "", false
	}
	rel, ok := strings.CutPrefix(path, e.cwdPrefix)
	return rel, ok && rel != ""
}

// cwdPrefix is Cwd with a trailing slash, or "" for no Cwd.
func cwdPrefix(cwd string) string {
	if cwd == "" {
		return ""
	}
	return strings.TrimSuffix(cwd, "/") + "/"
}

// collector gathers the files with matches from every worker. In Content
// mode it keeps rendered lines only while they may be shown: a file whose
// predecessors in path order already fill Keep lines (or the byte cap)
// loses its lines and keeps its counts.
type collector struct {
	mu       sync.Mutex
	mode     Mode
	keep     int // lines; 0 = all
	maxBytes int
	sepLines int // lines between two files' output: 1 with context ("--")
	all      []File
	// stored indexes the files of all that still hold Out.
	stored      []int
	storedLines int
	storedBytes int
}

func newCollector(o Options) *collector {
	c := &collector{mode: o.Mode, keep: o.Keep, maxBytes: o.MaxOutputBytes}
	if o.Mode == Content && (o.Before > 0 || o.After > 0) {
		c.sepLines = 1
	}
	return c
}

func (c *collector) add(f File) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.all = append(c.all, f)
	if len(f.Out) == 0 {
		return
	}
	c.stored = append(c.stored, len(c.all)-1)
	c.storedLines += f.Kept + c.sepLines
	c.storedBytes += len(f.Out)
	if (c.keep > 0 && c.storedLines > 2*c.keep+64) || c.storedBytes > 2*c.maxBytes {
		c.trim()
	}
}

// trim drops the Out of stored files that can no longer be shown. The
// files before a file in path order only grow in number as the search
// goes on, so once they hold enough lines the file is past the window.
func (c *collector) trim() {
	slices.SortFunc(c.stored, func(a, b int) int { return ComparePaths(c.all[a].Path, c.all[b].Path) })
	lines, bytes := 0, 0
	kept := c.stored[:0]
	for _, i := range c.stored {
		full := (c.keep > 0 && lines >= c.keep) || bytes >= c.maxBytes
		if full {
			c.all[i].Out, c.all[i].Kept = nil, 0
			continue
		}
		lines += c.all[i].Kept + c.sepLines
		bytes += len(c.all[i].Out)
		kept = append(kept, i)
	}
	c.stored, c.storedLines, c.storedBytes = kept, lines, bytes
}

// files returns every file, sorted for the mode.
func (c *collector) files() []File {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mode == Content {
		c.trim()
	}
	out := c.all
	if c.mode == FilesWithMatches || c.mode == ListFiles {
		slices.SortFunc(out, func(a, b File) int {
			if a.ModTime != b.ModTime {
				if a.ModTime > b.ModTime {
					return -1
				}
				return 1
			}
			return ComparePaths(a.Path, b.Path)
		})
	} else {
		slices.SortFunc(out, func(a, b File) int { return ComparePaths(a.Path, b.Path) })
	}
	return out
}

// ComparePaths orders paths component by component, as `rg --sort path`
// does (and a directory listing read depth first): a directory's files
// come before a sibling whose name merely starts with the directory's,
// so sub/deep/d.go < sub-x/a.txt < sub.txt, where a plain string
// comparison puts '-' and '.' before '/'.
func ComparePaths(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		x, y := a[i], b[i]
		if x == y {
			continue
		}
		switch {
		case x == '/':
			return -1
		case y == '/':
			return 1
		case x < y:
			return -1
		}
		return 1
	}
	return len(a) - len(b)
}

// globPath is the form of path that Glob matches: relative to Cwd, or
// absolute (as Show names it) without its leading slash.
func (e *engine) globPath(path string) string {
	if rel, ok := e.underCwd(path); ok {
		return rel
	}
	return strings.TrimPrefix(filepath.ToSlash(e.shown(path)), "/")
}
