package read

import (
	"context"
	"io"
	"math"
	"strconv"
	"unicode/utf8"
)

// Limits of one read. They are fixed, not configurable, because the prompt
// tells the model about them.
const (
	// defaultLimit is the number of lines read when limit is not given.
	defaultLimit = 2000
	// maxLineRunes is where a long line is cut, in characters.
	maxLineRunes = 2000
	// maxOutputBytes caps the text of one result, whatever the limit: 2000
	// lines of 2000 characters would be 16 MB, far past what a model can
	// take in. A window that reaches it stops early and says where to go on.
	maxOutputBytes = 256 << 10
	// countAheadBytes is how far past the end of the window Read reads to
	// count the file's lines for "of N". Past it, the total is not counted,
	// so a window costs at most this much more than reading up to its end.
	countAheadBytes = 64 << 20
	// readBufferSize is the read granularity.
	readBufferSize = 64 << 10
	// numberWidth is the width of the line number, as `cat -n` prints it.
	numberWidth = 6
)

// windowSpec says which lines to read and within which limits.
type windowSpec struct {
	offset         int   // 1-based first line
	limit          int   // lines at most
	maxLineRunes   int   // characters of a line shown before it is cut
	maxOutputBytes int   // bytes of text at most, though always one line
	countAhead     int64 // bytes past the window read to count lines
	size           int64 // the file's size as stat says, or 0 if unknown
	bufferSize     int
}

func defaultSpec(offset, limit int, size int64) windowSpec {
	return windowSpec{
		offset: offset, limit: limit, size: size,
		maxLineRunes: maxLineRunes, maxOutputBytes: maxOutputBytes,
		countAhead: countAheadBytes, bufferSize: readBufferSize,
	}
}

// window is what readWindow found.
type window struct {
	text []byte // the numbered lines, each ending in '\n'
	// first and last are the line numbers shown; last is first-1 when no
	// line was shown.
	first, last int
	// pastEnd: offset is past the last line; total is then exact.
	pastEnd bool
	// more: lines follow last.
	more bool
	// total is the number of lines in the file, if totalKnown.
	total      int
	totalKnown bool
	// restBytes is how many bytes follow the window when the total is not
	// known and the size is, else 0.
	restBytes int64
	// capped: the window stopped at maxOutputBytes, not at limit.
	capped bool
	// cut is the number of lines cut at maxLineRunes.
	cut int
	// replaced: some bytes were not valid UTF-8 and were replaced.
	replaced bool
	// crlf: some line shown ended in "\r\n".
	crlf bool
}

// readWindow reads lines [offset, offset+limit) of r. It reads r up to the
// end of the window, and then at most countAhead bytes more to count the
// remaining lines; it keeps in memory only its buffer, the first bytes of
// the current line and the text it returns.
func readWindow(ctx context.Context, r io.Reader, s windowSpec) (window, error) {
	s.offset = max(s.offset, 1)
	s.limit = max(s.limit, 1)
	// 4 bytes per character at most: a cut line never needs more.
	lr := newLineReader(r, max(s.bufferSize, 16), 4*s.maxLineRunes)
	w := window{first: s.offset, last: s.offset - 1}

	skipped, eof, err := lr.scan(ctx, s.offset-1, -1)
	if err != nil {
		return w, err
	}
	if eof {
		// The input ended before line offset began; skipped counts an
		// unterminated last line too, so it is the total.
		w.pastEnd, w.total, w.totalKnown = true, skipped, true
		return w, nil
	}

	// The end of the window, never past the largest line number.
	end := s.offset - 1 + min(s.limit, math.MaxInt-s.offset)
	w.text = make([]byte, 0, textCapacity(s, lr.pos))
	for num := s.offset; num <= end; num++ {
		if err := ctx.Err(); err != nil {
			return w, err
		}
		l, ok, err := lr.next(ctx)
		if err != nil {
			return w, err
		}
		if !ok {
			if num == s.offset {
				w.pastEnd = true
			}
			w.total, w.totalKnown = num-1, true
			return w, nil
		}
		before := len(w.text)
		var cut, replaced bool
		w.text, cut, replaced = appendLine(w.text, num, l, s.maxLineRunes)
		if len(w.text) > s.maxOutputBytes && num > s.offset {
			// This line exists but does not fit; it is the next offset.
			w.text = w.text[:before]
			w.capped, w.more = true, true
			return w, countRest(ctx, lr, &w, s, num)
		}
		w.last = num
		w.crlf = w.crlf || l.crlf
		w.replaced = w.replaced || replaced
		if cut {
			w.cut++
		}
	}
	done, err := lr.atEOF()
	if err != nil {
		return w, err
	}
	if done {
		w.total, w.totalKnown = w.last, true
		return w, nil
	}
	w.more = true
	return w, countRest(ctx, lr, &w, s, w.last)
}

// textCapacity guesses the size of the window's text, so that it is
// allocated once rather than grown by copying: the rest of the file plus
// the line numbers, within the output cap.
func textCapacity(s windowSpec, pos int64) int {
	const unknown = 4 << 10 // a size of 0 may be a /proc file
	rest := int64(unknown)
	if s.size > pos {
		rest = s.size - pos
	}
	perLine := int64(numberWidth + 2)
	limit := int64(min(s.limit, s.maxOutputBytes))
	return int(min(rest+limit*perLine, int64(s.maxOutputBytes)+int64(4*s.maxLineRunes)+128))
}

// countRest counts the lines after the read position, where linesSoFar
// lines have been consumed, and records the total if it can within
// countAhead bytes. It skips counting outright when the size says the rest
// is larger than that.
func countRest(ctx context.Context, lr *lineReader, w *window, s windowSpec, linesSoFar int) error {
	// An unknown size (0) makes rest negative, so it is counted.
	if rest := s.size - lr.pos; rest > s.countAhead {
		w.restBytes = rest
		return nil
	}
	n, eof, err := lr.scan(ctx, math.MaxInt, s.countAhead)
	if err != nil {
		return err
	}
	if !eof {
		// The size was unknown or the file grew: say only that more follow.
		w.restBytes = max(s.size-lr.pos, 0)
		return nil
	}
	w.total, w.totalKnown = linesSoFar+n, true
	return nil
}

// appendLine appends line num as `cat -n` prints it: the number right
// aligned in numberWidth columns, a tab, then the line. It shows at most
// maxRunes characters, replacing each byte that is not valid UTF-8 with
// U+FFFD, and marks a line it cuts with how long the line is.
func appendLine(dst []byte, num int, l line, maxRunes int) (out []byte, cut, replaced bool) {
	var digits [20]byte
	d := strconv.AppendInt(digits[:0], int64(num), 10)
	for range numberWidth - len(d) {
		dst = append(dst, ' ')
	}
	dst = append(dst, d...)
	dst = append(dst, '\t')

	p := l.prefix
	i, runes := 0, 0
	for i < len(p) && runes < maxRunes {
		r, size := utf8.DecodeRune(p[i:])
		if r == utf8.RuneError && size == 1 {
			replaced = true
			dst = utf8.AppendRune(dst, utf8.RuneError)
		} else {
			dst = append(dst, p[i:i+size]...)
		}
		i += size
		runes++
	}
	if int64(i) < l.n {
		cut = true
		dst = append(dst, "… [line cut at "...)
		dst = append(dst, commas(int64(maxRunes))...)
		dst = append(dst, " characters; it is "...)
		dst = append(dst, commas(l.n)...)
		dst = append(dst, " bytes long]"...)
	}
	return append(dst, '\n'), cut, replaced
}
