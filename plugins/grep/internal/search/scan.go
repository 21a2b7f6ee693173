package search

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/riot-tools/riot/plugins/grep/internal/fsys"
)

const (
	// chunkSize is the first read of every file, and the window in which a
	// NUL byte makes it binary: ripgrep's buffer size, so the two agree on
	// which files are binary.
	chunkSize = 64 << 10
	// minRead is the least free space a read gets; below it the buffer
	// grows.
	minRead = 16 << 10
	// maxBufSize bounds a worker's buffer, and so the longest line read
	// into it. A longer line (or, with Multiline, a larger file) is
	// searched through a read-only memory map instead: the page cache's
	// pages cost less than a buffer grown to hold them (on these VMs a
	// fresh page of memory costs 15 µs), and a few minified or generated
	// files then do not cost every search megabytes.
	maxBufSize = 256 << 10
)

var nl = []byte{'\n'}

// worker searches files one at a time, reusing its buffers.
type worker struct {
	e   *engine
	pat *Pattern
	// buf is chunkSize long; a file that needs more borrows a larger
	// buffer from e.spares for as long as it is searched.
	buf []byte
	cur cursor
	em  emitter
	// dfa is this worker's lazy DFA for pat, made on first use; nil
	// without one.
	dfa *dfa
	// rev is the reverse DFA of pat's suffix search, made on first use.
	rev *dfa
}

// spares hold the larger buffers between the files that need them. Few
// files have lines that long, so workers share them: each worker keeping
// its own would make a fresh process touch that memory once per worker.
type spares struct {
	mu   sync.Mutex
	bufs [][]byte
}

// grow returns a buffer twice as long as buf (up to maxBufSize) that
// starts with buf[:n], and gives buf back if it was a spare.
func (w *worker) grow(buf []byte, n int) []byte {
	size := min(2*len(buf), maxBufSize)
	s := &w.e.spares
	var grown []byte
	s.mu.Lock()
	for i, b := range s.bufs {
		if len(b) == size {
			grown = b
			s.bufs = slices.Delete(s.bufs, i, i+1)
			break
		}
	}
	s.mu.Unlock()
	if grown == nil {
		grown = make([]byte, size)
	}
	copy(grown, buf[:n])
	w.release(buf)
	return grown
}

// release gives back buf if it is a spare.
func (w *worker) release(buf []byte) {
	if len(buf) > len(w.buf) {
		s := &w.e.spares
		s.mu.Lock()
		s.bufs = append(s.bufs, buf)
		s.mu.Unlock()
	}
}

func (e *engine) newWorker() *worker {
	w := &worker{e: e, pat: e.o.Pattern, buf: make([]byte, chunkSize)}
	w.em.init(e.o)
	return w
}

// fileState is one file's search in progress.
type fileState struct {
	display  string
	explicit bool
	// lineNo is the number of the first line not yet searched.
	lineNo  int
	matches int
	sawNUL  bool
}

// searchFile searches one file and hands a file with matches to the
// collector.
func (w *worker) searchFile(path, display string, explicit bool) {
	if hook := w.e.o.afterFile; hook != nil {
		defer hook()
	}
	fd, err := w.e.open(path)
	if err != nil {
		w.e.stats.unreadable.Add(1)
		return
	}
	defer func() { _ = unix.Close(fd) }()
	w.searchFD(fd, display, explicit)
}

// openFlags open a file to search. O_NONBLOCK: a pipe put where a file
// was must not hang the search.
const openFlags = unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NOCTTY | unix.O_NONBLOCK

// open opens a file of the walk: beneath the opened root when there is
// one, else by path.
func (e *engine) open(path string) (int, error) {
	if e.rootFD < 0 {
		return fsys.Open(path, openFlags)
	}
	root := filepath.Clean(e.o.Root)
	rel := strings.TrimPrefix(strings.TrimPrefix(path, root), "/")
	fd, err := fsys.OpenBeneath(e.rootFD, rel, openFlags)
	if !errors.Is(err, unix.ENOSYS) {
		return fd, err
	}
	// No openat2: open by path, and check where the descriptor leads.
	if fd, err = fsys.Open(path, openFlags); err != nil {
		return fd, err
	}
	if !e.beneathRoot(fd) {
		_ = unix.Close(fd)
		return -1, unix.EXDEV
	}
	return fd, nil
}

// beneathRoot reports whether fd's file lies below PhysicalRoot. On Linux
// a descriptor that cannot be named is refused; elsewhere there is no
// /proc to ask, and the walk's own answer stands.
func (e *engine) beneathRoot(fd int) bool {
	if e.o.PhysicalRoot == "" {
		return true
	}
	real, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
	if err != nil {
		return runtime.GOOS != "linux"
	}
	return strings.HasPrefix(real, strings.TrimSuffix(e.o.PhysicalRoot, "/")+"/")
}

// searchFD searches the open file fd, which the caller closes.
func (w *worker) searchFD(fd int, display string, explicit bool) {
	fs := &fileState{display: display, explicit: explicit, lineNo: 1}
	w.em.reset(display)
	var ok bool
	if w.pat.multiline {
		ok = w.scanWhole(fd, fs)
	} else {
		ok = w.scanChunks(fd, fs)
	}
	if !ok || fs.matches == 0 {
		return
	}
	f := File{Path: display, Matches: fs.matches}
	switch w.e.o.Mode {
	case FilesWithMatches:
		var st unix.Stat_t
		if unix.Fstat(fd, &st) == nil {
			f.ModTime = st.Mtim.Nano()
		}
	case Content:
		if fs.sawNUL {
			w.em.binaryNote(fs.matches)
			f.Binary = true
		}
		f.Lines, f.Kept = w.em.lines, w.em.kept
		f.Out = append([]byte(nil), w.em.out...)
	case Count, ListFiles:
		// A count is the path and its matches; a ListFiles walk records
		// its files without a scan (walk.go).
	}
	w.e.col.add(f)
}

// read reads into p, retrying when interrupted.
func read(fd int, p []byte) (int, error) {
	for {
		n, err := unix.Read(fd, p)
		if !errors.Is(err, unix.EINTR) {
			return n, err
		}
	}
}

// scanChunks searches a file line by line, reading it in chunks: the
// complete lines of each chunk are searched as one region, and the
// incomplete last line (and, for before-context, the last lines) moves to
// the front of the buffer for the next read. It reports false when the
// file was not searched: unreadable, or binary.
func (w *worker) scanChunks(fd int, fs *fileState) bool {
	buf := w.buf
	defer func() { w.release(buf) }()
	// buf[:keep] is searched text kept for before-context; buf[keep:n] is
	// not searched yet; base is the file offset of buf[0].
	keep, n := 0, 0
	base := int64(0)
	first := true
	// short says the last read returned less than asked: a regular file is
	// then at its end, and the next read, into whatever room is left,
	// returns 0. Growing the buffer for it would cost every file of 48 to
	// 64 KiB a new buffer.
	short := false
	for {
		if w.e.done() {
			return true
		}
		if len(buf)-n < minRead && (!short || n == len(buf)) {
			if len(buf) >= maxBufSize {
				return w.scanMapped(fd, fs, base, keep, n)
			}
			buf = w.grow(buf, n)
		}
		want := buf[n:]
		if first {
			// The first read is exactly ripgrep's, so a NUL byte makes
			// the same files binary.
			want = buf[:min(len(buf), chunkSize)]
		}
		m, err := read(fd, want)
		short = m < len(want)
		if err != nil {
			if first {
				w.e.stats.unreadable.Add(1)
				return false
			}
			return true
		}
		eof := m == 0
		fresh := buf[n : n+m]
		if bytes.IndexByte(fresh, 0) >= 0 {
			if !fs.explicit {
				// ripgrep's rule: a NUL ends the search of a file the walk
				// found, and nothing of the chunk holding it is searched.
				w.e.stats.binary.Add(1)
				return !first
			}
			fs.sawNUL = true
		}
		if first {
			w.e.stats.searched.Add(1)
			first = false
		}
		n += m
		end := n
		if !eof {
			i := bytes.LastIndexByte(fresh, '\n')
			if i < 0 {
				continue // no complete line yet
			}
			end = n - m + i + 1
		}
		if w.region(buf, keep, end, fs) || eof {
			return true
		}
		// Keep the last Before lines and the incomplete line.
		from := backLines(buf, end, w.e.o.Before)
		copy(buf, buf[from:n])
		keep, n = end-from, n-from
		base += int64(from)
	}
}

// backLines returns the start of the k-th line before the line starting
// at pos, or the start of the buffer.
func backLines(buf []byte, pos, k int) int {
	for ; k > 0 && pos > 0; k-- {
		pos = bytes.LastIndexByte(buf[:pos-1], '\n') + 1
	}
	return pos
}

// scanMapped finishes a file whose line does not fit in the largest
// buffer: it maps the file and searches the rest of it as one region.
// buf[:n] of the buffer holds the file from offset base.
func (w *worker) scanMapped(fd int, fs *fileState, base int64, keep, n int) (ok bool) {
	data, unmap, ok := mapFile(fd)
	if !ok {
		w.e.stats.unreadable.Add(1)
		return true
	}
	defer unmap()
	// A file truncated while mapped faults on access; make that a panic
	// this search recovers from, instead of a crash of the plugin.
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if recover() != nil {
			ok = true
		}
	}()
	if int64(len(data)) < base+int64(n) {
		return true // it shrank
	}
	data = data[base:]
	end := len(data)
	if !fs.explicit {
		if z := bytes.IndexByte(data[n:], 0); z >= 0 {
			w.e.stats.binary.Add(1)
			end = bytes.LastIndexByte(data[:n+z], '\n') + 1
			if end <= keep {
				return true
			}
		}
	}
	w.region(data, keep, end, fs)
	return true
}

// scanWhole searches a file as one region, for Multiline: the file is
// read into the buffer, or mapped when larger than the largest buffer.
func (w *worker) scanWhole(fd int, fs *fileState) (ok bool) {
	buf, n := w.buf, 0
	defer func() { w.release(buf) }()
	for {
		if n == len(buf) {
			if len(buf) >= maxBufSize {
				data, unmap, mapped := mapFile(fd)
				if !mapped {
					w.e.stats.unreadable.Add(1)
					return false
				}
				defer unmap()
				defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
				defer func() {
					if recover() != nil {
						ok = true
					}
				}()
				return w.whole(data, fs)
			}
			buf = w.grow(buf, n)
		}
		m, err := read(fd, buf[n:])
		if err != nil {
			w.e.stats.unreadable.Add(1)
			return false
		}
		if m == 0 {
			return w.whole(buf[:n], fs)
		}
		n += m
		if w.e.done() {
			return true
		}
	}
}

// whole searches data, a whole file, as one region.
func (w *worker) whole(data []byte, fs *fileState) bool {
	if !fs.explicit && bytes.IndexByte(data[:min(len(data), chunkSize)], 0) >= 0 {
		w.e.stats.binary.Add(1)
		return false
	}
	w.e.stats.searched.Add(1)
	fs.sawNUL = fs.explicit && bytes.IndexByte(data, 0) >= 0
	w.region(data, 0, len(data), fs)
	return true
}

// mapFile maps a whole file read-only.
func mapFile(fd int) ([]byte, func(), bool) {
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return nil, nil, false
	}
	if st.Size == 0 {
		return nil, func() {}, true
	}
	data, err := unix.Mmap(fd, 0, int(st.Size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, nil, false
	}
	return data, func() { _ = unix.Munmap(data) }, true
}

// region searches the complete lines of buf[lo:hi]; buf[:lo] holds the
// lines before them, for before-context. It reports true when the file
// needs no more searching: a match in FilesWithMatches mode.
func (w *worker) region(buf []byte, lo, hi int, fs *fileState) bool {
	h := buf[:hi]
	if w.pat.find != nil {
		w.cur.reset(w.pat.find, h)
	}
	next := w.nextLine
	if w.pat.multiline {
		next = w.nextBlock
	}
	switch w.e.o.Mode {
	case FilesWithMatches:
		if ls, _ := next(h, lo); ls >= 0 {
			fs.matches = 1
			return true
		}
		return false
	case Count:
		for from := lo; from < hi; {
			ls, le := next(h, from)
			if ls < 0 {
				break
			}
			fs.matches += 1 + bytes.Count(h[ls:le], nl)
			from = le + 1
		}
		return false
	default:
		w.em.region(h, lo, fs, next)
		return false
	}
}

// nextLine returns the first line of h at or after from, a line start,
// that matches: its start and its end (the index of its newline, or
// len(h)). ls is -1 when there is none. With a prefilter the regexp runs
// only on lines that hold a required literal; without one, over the
// chunk.
func (w *worker) nextLine(h []byte, from int) (int, int) {
	p := w.pat
	if p.find != nil {
		for from < len(h) {
			s, e := w.cur.find(from)
			if s < 0 {
				return -1, -1
			}
			ls := from + bytes.LastIndexByte(h[from:s], '\n') + 1
			le := len(h)
			if i := bytes.IndexByte(h[e:], '\n'); i >= 0 {
				le = e + i
			}
			if p.exact || w.lineMatches(h[ls:le]) && p.boundaryHolds(h[ls:le]) {
				return ls, le
			}
			from = le + 1
		}
		return -1, -1
	}
	if p.perLine {
		for from < len(h) {
			le := len(h)
			if i := bytes.IndexByte(h[from:], '\n'); i >= 0 {
				le = from + i
			}
			if p.re.Match(h[from:le]) && p.boundaryHolds(h[from:le]) {
				return from, le
			}
			from = le + 1
		}
		return -1, -1
	}
	if d := w.lazyDFA(); d != nil {
		if ls, le, ok := w.nextLineDFA(d, h, from); ok {
			return ls, le
		}
	}
	// No literal to look for: run the regexp over the rest of the chunk.
	// It cannot match a newline, so its leftmost match lies in the first
	// matching line; from is a line start, so ^ and \b see what they would
	// on the line alone. This is up to twice as fast as a call per line.
	for from < len(h) {
		loc := p.re.FindIndex(h[from:])
		if loc == nil {
			return -1, -1
		}
		s := from + loc[0]
		if s == len(h) && h[s-1] == '\n' {
			return -1, -1 // an empty match after the last newline: no line
		}
		ls := from + bytes.LastIndexByte(h[from:s], '\n') + 1
		le := len(h)
		if i := bytes.IndexByte(h[s:], '\n'); i >= 0 {
			le = s + i
		}
		if p.boundaryHolds(h[ls:le]) {
			return ls, le
		}
		from = le + 1
	}
	return -1, -1
}

// lazyDFA is the worker's DFA, or nil when the pattern has none or it
// was switched off for outgrowing its memory.
func (w *worker) lazyDFA() *dfa {
	if w.pat.dfa == nil {
		return nil
	}
	if w.dfa == nil {
		w.dfa = newDFA(w.pat.dfa)
	}
	if w.dfa.off {
		return nil
	}
	return w.dfa
}

// lineMatches reports whether the regexp matches line, a line without
// its newline: through the DFA when there is one.
func (w *worker) lineMatches(line []byte) bool {
	if d := w.lazyDFA(); d != nil {
		if end, ok := d.firstMatchEnd(line, 0); ok {
			return end >= 0
		}
	}
	return w.pat.re.Match(line)
}

// nextLineDFA is nextLine through the DFA over the rest of the chunk: the
// line holding the end of the first match holds all of it, since no match
// spans a newline. ok is false when the DFA gave up: the caller searches
// with the regexp.
func (w *worker) nextLineDFA(d *dfa, h []byte, from int) (ls, le int, ok bool) {
	for from < len(h) {
		e, ok := w.firstMatchEnd(d, h, from)
		if !ok {
			return 0, 0, false
		}
		if e < 0 || e == len(h) && h[e-1] == '\n' {
			// None, or an empty match after the last newline: no line.
			return -1, -1, true
		}
		ls := from + bytes.LastIndexByte(h[from:e], '\n') + 1
		le := len(h)
		if i := bytes.IndexByte(h[e:], '\n'); i >= 0 {
			le = e + i
		}
		if w.pat.boundaryHolds(h[ls:le]) {
			return ls, le, true
		}
		from = le + 1
	}
	return -1, -1, true
}

// boundaryHolds reports whether a line the regexp matched matches with
// \b and \B in Unicode's sense; true for a pattern without them.
func (p *Pattern) boundaryHolds(line []byte) bool {
	return p.boundary == nil || p.boundary.match(line)
}

// nextBlock is nextLine for Multiline: it returns the lines a match
// touches, from the start of the first to the end of the last. The search
// resumes on the first line after them.
func (w *worker) nextBlock(h []byte, from int) (int, int) {
	if from >= len(h) {
		return -1, -1
	}
	if w.pat.find != nil && from == 0 {
		if s, _ := w.cur.find(0); s < 0 {
			return -1, -1
		}
	}
	loc := w.pat.re.FindIndex(h[from:])
	if loc == nil {
		return -1, -1
	}
	s, e := from+loc[0], from+loc[1]
	if s == len(h) && h[s-1] == '\n' {
		return -1, -1 // an empty match after the last newline: no line
	}
	ls := bytes.LastIndexByte(h[:s], '\n') + 1
	last := max(s, e-1)
	le := len(h)
	if last < len(h) {
		if i := bytes.IndexByte(h[last:], '\n'); i >= 0 {
			le = last + i
		}
	}
	return ls, le
}
