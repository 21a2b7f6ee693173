package search

import (
	"bytes"
	"strconv"
	"unicode/utf8"
)

// emitter renders one file's Content output: match lines as
// "path:line:text", context lines as "path-line-text", and "--" between
// groups of lines that are not adjacent, as ripgrep does. It counts every
// line but keeps only the first Keep (and no more than MaxOutputBytes).
type emitter struct {
	before, after int
	lineNumbers   bool
	groups        bool // context is on, so groups are separated by "--"
	keep          int
	maxBytes      int

	path string
	out  []byte
	// lines is every output line of the file; kept those in out.
	lines, kept int
	full        bool
	// lastPrinted is the number of the last line output, 0 for none.
	lastPrinted int
	// afterLeft lines of after-context are still owed, starting with the
	// line at ctxPos, number ctxLine.
	afterLeft       int
	ctxPos, ctxLine int
	// pos is a line start whose number, line, is known.
	pos, line int
}

func (em *emitter) init(o Options) {
	em.before, em.after = o.Before, o.After
	em.lineNumbers = o.LineNumbers
	em.groups = o.Before > 0 || o.After > 0
	em.keep = o.Keep
	em.maxBytes = o.MaxOutputBytes
}

func (em *emitter) reset(path string) {
	em.path = path
	em.out = em.out[:0]
	em.lines, em.kept, em.full = 0, 0, false
	em.lastPrinted, em.afterLeft = 0, 0
}

// region outputs the matches of buf[lo:len(h)] with their context; buf
// before lo holds at least Before lines preceding it, when the file has
// them. next finds the lines of the next match.
func (em *emitter) region(h []byte, lo int, fs *fileState, next func([]byte, int) (int, int)) {
	em.pos, em.line = lo, fs.lineNo
	em.ctxPos, em.ctxLine = lo, fs.lineNo
	for from := lo; from < len(h); {
		ls, le := next(h, from)
		if ls < 0 {
			break
		}
		n := em.line + bytes.Count(h[em.pos:ls], nl)
		em.pos, em.line = ls, n
		em.owedAfter(h, n)
		em.beforeContext(h, ls, n)
		// A match may span lines (Multiline): each is a match line.
		for p, k := ls, n; ; k++ {
			end := le
			if i := bytes.IndexByte(h[p:le], '\n'); i >= 0 {
				end = p + i
			}
			em.emit(h[p:end], k, ':')
			fs.matches++
			if end == le {
				em.afterLeft, em.ctxPos, em.ctxLine = em.after, le+1, k+1
				break
			}
			p = end + 1
		}
		from = le + 1
	}
	em.owedAfter(h, -1)
	fs.lineNo = em.line + bytes.Count(h[min(em.pos, len(h)):], nl)
}

// owedAfter outputs the after-context still owed, up to the line before
// line number stop (or to the end of h when stop is -1).
func (em *emitter) owedAfter(h []byte, stop int) {
	for em.afterLeft > 0 && em.ctxPos < len(h) && (stop < 0 || em.ctxLine < stop) {
		end := len(h)
		if i := bytes.IndexByte(h[em.ctxPos:], '\n'); i >= 0 {
			end = em.ctxPos + i
		}
		em.emit(h[em.ctxPos:end], em.ctxLine, '-')
		em.afterLeft--
		em.ctxPos, em.ctxLine = end+1, em.ctxLine+1
	}
	if stop >= 0 {
		em.afterLeft = 0
	}
}

// beforeContext outputs the lines before the match line at ls, number n,
// that are owed and not yet output.
func (em *emitter) beforeContext(h []byte, ls, n int) {
	first := max(n-em.before, em.lastPrinted+1, 1)
	p := backLines(h, ls, n-first)
	for k := n - (countLines(h[p:ls])); k < n; k++ {
		end := p + bytes.IndexByte(h[p:], '\n')
		em.emit(h[p:end], k, '-')
		p = end + 1
	}
}

func countLines(b []byte) int { return bytes.Count(b, nl) }

// emit outputs one line.
func (em *emitter) emit(text []byte, n int, sep byte) {
	if em.groups && em.lastPrinted > 0 && n > em.lastPrinted+1 {
		em.put(nil, 0, 0, true)
	}
	em.put(text, n, sep, false)
	em.lastPrinted = n
}

// put renders a line, or the "--" separator, unless the file's output is
// full, and counts it either way.
func (em *emitter) put(text []byte, n int, sep byte, separator bool) {
	em.lines++
	if em.full || (em.keep > 0 && em.kept >= em.keep) || len(em.out) >= em.maxBytes {
		em.full = true
		return
	}
	em.kept++
	if separator {
		em.out = append(em.out, "--\n"...)
		return
	}
	em.out = append(em.out, em.path...)
	em.out = append(em.out, sep)
	if em.lineNumbers {
		em.out = strconv.AppendInt(em.out, int64(n), 10)
		em.out = append(em.out, sep)
	}
	em.out = appendText(em.out, text)
	em.out = append(em.out, '\n')
}

// binaryNote replaces the output of an explicitly named binary file with
// one line, as ripgrep does: its lines are not text.
func (em *emitter) binaryNote(matches int) {
	em.out = append(em.out[:0], em.path...)
	em.out = append(em.out, ": binary file matches ("...)
	em.out = strconv.AppendInt(em.out, int64(matches), 10)
	if matches == 1 {
		em.out = append(em.out, " matching line)\n"...)
	} else {
		em.out = append(em.out, " matching lines)\n"...)
	}
	em.lines, em.kept = 1, 1
}

// appendText appends a line's text for the model: a carriage return
// before the newline dropped, invalid UTF-8 replaced, and a line longer
// than MaxLineChars characters cut with a marker saying how long it was.
func appendText(out, text []byte) []byte {
	text = bytes.TrimSuffix(text, []byte{'\r'})
	cut := len(text)
	total := 0
	if len(text) > MaxLineChars {
		total = utf8.RuneCount(text)
		if total > MaxLineChars {
			cut = 0
			for range MaxLineChars {
				_, size := utf8.DecodeRune(text[cut:])
				cut += size
			}
		}
	}
	if utf8.Valid(text[:cut]) {
		out = append(out, text[:cut]...)
	} else {
		out = append(out, bytes.ToValidUTF8(text[:cut], []byte("\uFFFD"))...)
	}
	if cut < len(text) {
		out = append(out, " […line truncated: "...)
		out = appendThousands(out, total)
		out = append(out, " chars]"...)
	}
	return out
}

// appendThousands appends n with comma thousands separators.
func appendThousands(out []byte, n int) []byte {
	s := strconv.Itoa(n)
	for i := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return out
}
