package bash

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"regexp"
	"regexp/syntax"
)

// maxFilterLine is how much of one line a filter matches against and
// returns; the rest of a longer line is dropped with a marker. A line is
// held in memory to be matched, and job output can be one endless line.
const maxFilterLine = 1 << 20

// lineFilter keeps the lines of job output that match a regular expression.
type lineFilter struct {
	re *regexp.Regexp
}

// compileFilter compiles a BashOutput filter, or returns the rejection.
func compileFilter(expr string) (*lineFilter, string) {
	re, err := regexp.Compile(expr)
	if err == nil {
		return &lineFilter{re: re}, ""
	}
	why := "it does not compile"
	var se *syntax.Error
	if errors.As(err, &se) {
		why = fmt.Sprintf("%s in `%s`", se.Code, se.Expr)
	}
	return nil, fmt.Sprintf("`filter` is not a valid RE2 regular expression: %s. Fix it (escape literal characters such as `(` or `[` with a backslash), or leave `filter` out to get all new output.", why)
}

// copy writes the matching lines of r to out and returns how many bytes it
// consumed. Unless final, an incomplete last line is not consumed: the job
// may still finish it.
func (f *lineFilter) copy(out io.Writer, r io.Reader, final bool, res *readResult) (int64, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var consumed, lineLen int64
	var line []byte
	cut := false
	for {
		chunk, err := br.ReadSlice('\n')
		lineLen += int64(len(chunk))
		room := maxFilterLine - len(line)
		if len(chunk) > room {
			chunk, cut = chunk[:room], true
		}
		line = append(line, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		// The end of the output so far.
		last := errors.Is(err, io.EOF)
		if err != nil && !last {
			return consumed, err
		}
		if last && (lineLen == 0 || !final) {
			res.partial = lineLen > 0
			return consumed, nil
		}
		consumed += lineLen
		res.bytes = consumed
		if f.re.Match(line) {
			res.matched++
			switch {
			case cut:
				// The kept part ends before the line's newline.
				line = append(line, " [line cut at 1 MiB]\n"...)
			case last:
				line = append(line, '\n')
			}
			if _, werr := out.Write(line); werr != nil {
				return consumed, werr
			}
		} else {
			res.skipped++
		}
		if last {
			return consumed, nil
		}
		line, lineLen, cut = line[:0], 0, false
	}
}
