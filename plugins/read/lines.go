package read

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
)

// lineReader reads a file as lines separated by '\n', tracking how many
// bytes it has consumed. It never holds more than its buffer and the first
// bytes of the current line, so a line or a file of any length costs
// bounded memory.
type lineReader struct {
	br     *bufio.Reader
	pos    int64  // bytes consumed
	prefix []byte // the first bytes of the line last read, reused
	keep   int    // how many bytes of each line to keep in prefix
}

func newLineReader(r io.Reader, bufferSize, keep int) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, bufferSize), prefix: make([]byte, 0, keep), keep: keep}
}

// line is one line as read: the first bytes of its content, and the length
// of the whole content, without its "\n" and without the "\r" of a "\r\n".
type line struct {
	prefix []byte
	n      int64
	crlf   bool
}

// next reads the next line; ok is false at the end of the input. A last
// line without a '\n' is still a line. The "\r" of an unterminated last
// line is content: only "\r\n" is a line ending.
func (lr *lineReader) next(ctx context.Context) (l line, ok bool, err error) {
	lr.prefix = lr.prefix[:0]
	var n int64
	var last byte
	for {
		chunk, err := lr.br.ReadSlice('\n')
		lr.pos += int64(len(chunk))
		ended := err == nil
		if ended {
			chunk = chunk[:len(chunk)-1]
		}
		if len(chunk) > 0 {
			n += int64(len(chunk))
			last = chunk[len(chunk)-1]
			// Never past keep: the prefix is all of a line Read holds.
			lr.prefix = append(lr.prefix, chunk[:min(lr.keep-len(lr.prefix), len(chunk))]...)
		}
		switch {
		case ended:
			l = line{n: n, crlf: last == '\r'}
			if l.crlf {
				l.n--
			}
			l.prefix = lr.prefix[:min(int64(len(lr.prefix)), l.n)]
			return l, true, nil
		case errors.Is(err, bufio.ErrBufferFull):
			// A line longer than the buffer: keep going, but let a
			// cancelled call stop inside a huge line.
			if err := ctx.Err(); err != nil {
				return line{}, false, err
			}
		case errors.Is(err, io.EOF):
			if n == 0 {
				return line{}, false, nil
			}
			return line{prefix: lr.prefix, n: n}, true, nil
		default:
			return line{}, false, err
		}
	}
}

// scan consumes input counting '\n' bytes, without keeping any of it. It
// stops just after the stop-th newline, at the end of the input, or once
// it has consumed maxBytes (maxBytes < 0 means no limit), whichever comes
// first. lines is the number of lines it passed over: the newlines, plus an
// unterminated last line if it reached the end. eof reports whether it did.
func (lr *lineReader) scan(ctx context.Context, stop int, maxBytes int64) (lines int, eof bool, err error) {
	var read int64
	partial := false // bytes consumed since the last newline
	for lines < stop {
		if err := ctx.Err(); err != nil {
			return lines, false, err
		}
		// The end of the input first, so that a scan that consumes exactly
		// maxBytes still learns that nothing follows.
		if lr.br.Buffered() == 0 {
			if _, err := lr.br.Peek(1); err != nil {
				if errors.Is(err, io.EOF) {
					if partial {
						lines++
					}
					return lines, true, nil
				}
				return lines, false, err
			}
		}
		if maxBytes >= 0 && read >= maxBytes {
			return lines, false, nil
		}
		buf, _ := lr.br.Peek(lr.br.Buffered())
		if maxBytes >= 0 {
			buf = buf[:min(int64(len(buf)), maxBytes-read)]
		}
		take := len(buf)
		if c := bytes.Count(buf, newline); lines+c < stop {
			lines += c
		} else {
			// The stop-th newline is in buf: find it.
			take = 0
			for lines < stop {
				take += bytes.IndexByte(buf[take:], '\n') + 1
				lines++
			}
		}
		partial = buf[take-1] != '\n'
		_, _ = lr.br.Discard(take)
		lr.pos += int64(take)
		read += int64(take)
	}
	return lines, false, nil
}

// atEOF reports whether no input is left.
func (lr *lineReader) atEOF() (bool, error) {
	_, err := lr.br.Peek(1)
	if errors.Is(err, io.EOF) {
		return true, nil
	}
	return false, err
}

var newline = []byte{'\n'}
