package core

import (
	"fmt"
	"path/filepath"
	"unicode/utf8"

	"github.com/riot-tools/riot/internal/textcount"
	"github.com/riot-tools/riot/shared"
)

// A plugin is a local process, so a large result need not cross the RPC:
// the host offers each call of a limited tool its spill file's scratch
// path (CallContext.spill_file). Once the host has spilled, the file
// exists and the plugin may write its further text there, announcing each
// stretch with a Chunk that names it instead of carrying it. A stretch
// announced with its character and newline counts (the SDK's) is taken by
// them, and riot reads only what the preview shows; one without (an older
// SDK's) is read back whole through the same accounting as streamed text.
// Either way the budget, the UTF-8 check and the preview are the same. A
// plugin that cannot write the file (an older SDK, a plugin that Landlock
// forbids writing) streams everything, as before.

// readPiece is how much of an announced stretch is read back at once.
const readPiece = 256 << 10

// maxAnnounced bounds one announcement, against offset arithmetic that
// would overflow.
const maxAnnounced = 1 << 50

// scratchPath is where the spill file for path is written before it is
// renamed to path: a hidden name beside it.
func scratchPath(path string) string {
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".part")
}

// offer is the spill file offer of the call, for a limited budget; nil for
// an unlimited one, whose text is never spilled.
func (c *collector) offer() *shared.SpillFile {
	if c.budget < 0 || c.store == nil {
		return nil
	}
	c.offered = true
	// Text spills past budget characters, so past budget bytes at the
	// earliest: before, the file does not exist.
	return &shared.SpillFile{Path: scratchPath(c.spillPath), AfterBytes: uint64(c.budget)}
}

// announces reports whether ch names a stretch of the spill file rather
// than carrying text.
func announces(ch *shared.Chunk) bool {
	return ch.FileLength > 0 || ch.FileOffset > 0 || ch.FileChars != nil || ch.FileNewlines != nil
}

// extent takes a text chunk whose bytes the plugin wrote to the spill file.
func (c *collector) extent(ch *shared.Chunk) error {
	n := ch.FileLength
	switch {
	case !c.offered:
		return &malformedError{Why: "text announced in a spill file riot did not offer for this call"}
	case len(ch.Data) > 0:
		return &malformedError{Why: "a chunk that carries text and also announces text in the spill file"}
	case c.file == nil:
		return &malformedError{Why: "text announced in the spill file before riot had created it"}
	case len(c.pending) > 0:
		return notUTF8(c.nbytes)
	case ch.FileOffset != uint64(c.nbytes):
		return &malformedError{Why: fmt.Sprintf("text announced at byte %s of the spill file, where its output so far ends at byte %s", commas(int64(min(ch.FileOffset, maxAnnounced))), commas(c.nbytes))}
	case n > maxAnnounced:
		return &malformedError{Why: fmt.Sprintf("an announcement of %s bytes in the spill file", commas(int64(min(n, maxAnnounced))))}
	}
	if c.readBuf == nil {
		c.readBuf = make([]byte, readPiece)
	}
	if ch.FileChars != nil || ch.FileNewlines != nil {
		return c.counted(ch)
	}
	return c.readBack(c.nbytes + int64(n))
}

// readBack reads the stretch up to end back whole, for an announcement
// without counts (an older SDK's), through the accounting streamed text
// takes.
func (c *collector) readBack(end int64) error {
	for c.nbytes < end {
		want := int(min(int64(len(c.readBuf)), end-c.nbytes))
		data, err := c.readAt(c.readBuf[:want], c.nbytes, end)
		if err != nil {
			return err
		}
		// A character cut by this read is read again whole by the next one;
		// one that the stretch ends inside, or a bad byte, breaks the
		// protocol.
		valid, ok := checkUTF8(data, c.nbytes+int64(len(data)) < end)
		if !ok {
			return notUTF8(c.nbytes + int64(valid))
		}
		c.writeText(data[:valid], true)
		c.fromFile += int64(valid)
	}
	return nil
}

// readAt reads len(p) bytes of the spill file at off, of a stretch
// announced up to end.
func (c *collector) readAt(p []byte, off, end int64) ([]byte, error) {
	// A short read is the file's end, or an error reading it (which riot
	// cannot tell the model more of): either way the text is not there.
	got, _ := c.file.ReadAt(p, off)
	c.reread += int64(got)
	if got < len(p) {
		return nil, &malformedError{Why: fmt.Sprintf("text announced up to byte %s of the spill file, which holds %s", commas(end), commas(off+int64(got)))}
	}
	return p, nil
}

// checkUTF8 reports the length of p's longest valid UTF-8 prefix, and
// whether p is valid: with cut, p may end inside a character, whose rest
// follows it.
func checkUTF8(p []byte, cut bool) (valid int, ok bool) {
	valid = validUTF8Prefix(p)
	return valid, valid == len(p) || cut && !utf8.FullRune(p[valid:])
}

// counted takes a stretch whose characters and newlines the plugin counted
// as it wrote them (plugin/spillfile.go), without reading it back: riot
// reads only what the preview shows, the head if it does not hold it yet
// and the tail, and checks them as it checks streamed text. The rest it
// checks as far as counts allow, and refuses counts no text could have.
//
// A plugin whose counts lie can only misstate the counts in the result's
// summary (and so the "lines omitted" of its preview): the file's bytes,
// which the model reads with Read, are the plugin's own output either way,
// and nothing else depends on the counts, since the file exists only once
// the budget is passed and the preview is read from the file.
func (c *collector) counted(ch *shared.Chunk) error {
	if ch.FileChars == nil || ch.FileNewlines == nil {
		return &malformedError{Why: "a spill file announcement that counts characters or newlines but not both"}
	}
	n, chars, lines := int64(ch.FileLength), *ch.FileChars, *ch.FileNewlines
	switch {
	case chars > uint64(n):
		return &malformedError{Why: fmt.Sprintf("an announcement of %s characters in %s bytes of the spill file", commas(int64(min(chars, maxAnnounced))), commas(n))}
	case lines > uint64(n):
		return &malformedError{Why: fmt.Sprintf("an announcement of %s newlines in %s bytes of the spill file", commas(int64(min(lines, maxAnnounced))), commas(n))}
	case lines > chars:
		return &malformedError{Why: fmt.Sprintf("an announcement of %s newlines in %s characters of the spill file", commas(int64(lines)), commas(int64(chars)))}
	case chars == 0 && n > 0:
		return &malformedError{Why: fmt.Sprintf("an announcement of no characters in %s bytes of the spill file", commas(n))}
	case uint64(n) > utf8.UTFMax*chars:
		return &malformedError{Why: fmt.Sprintf("an announcement of %s characters in %s bytes of the spill file, more than %d bytes a character", commas(int64(chars)), commas(n), utf8.UTFMax)}
	}
	start, end := c.nbytes, c.nbytes+n
	needHead := min(n, int64(max(0, keepBytes-len(c.head))))
	tailFrom := max(start+needHead, end-keepBytes)
	if tailFrom == start+needHead {
		// The head and tail the preview keeps cover the stretch: read it
		// whole, and the counts must be its own.
		before, beforeLines := c.chars, c.lines
		if err := c.readBack(end); err != nil {
			return err
		}
		if uint64(c.chars-before) != chars || uint64(c.lines-beforeLines) != lines {
			return &malformedError{Why: fmt.Sprintf("an announcement of %s characters and %s newlines in a stretch of the spill file that holds %s and %s", commas(int64(chars)), commas(int64(lines)), commas(c.chars-before), commas(c.lines-beforeLines))}
		}
		return nil
	}
	// Only the head piece and the tail piece are read, so only what they
	// hold can be checked: valid UTF-8 (a character the head piece ends
	// inside, or the tail piece starts inside, is the unread middle's), and
	// counts the pieces and the middle's length allow.
	head, err := c.readAt(c.readBuf[:needHead], start, end)
	if err != nil {
		return err
	}
	if valid, ok := checkUTF8(head, true); !ok {
		return notUTF8(start + int64(valid))
	}
	headChars, headLines := textcount.Chars(head), textcount.Newlines(head)
	c.head = append(c.head, head...)
	tail, err := c.readAt(c.readBuf[:end-tailFrom], tailFrom, end)
	if err != nil {
		return err
	}
	// The tail piece is keepBytes long, so longer than the up to three
	// bytes that end a character the middle holds the start of.
	skip := 0
	for skip < utf8.UTFMax && !utf8.RuneStart(tail[skip]) {
		skip++
	}
	if valid, ok := checkUTF8(tail[skip:], false); skip == utf8.UTFMax || !ok {
		return notUTF8(tailFrom + int64(skip+valid))
	}
	if !plausible(chars, lines, headChars+textcount.Chars(tail), headLines+textcount.Newlines(tail), tailFrom-start-needHead) {
		return &malformedError{Why: fmt.Sprintf("an announcement of %s characters and %s newlines in a stretch of the spill file whose first and last bytes riot read contradict them", commas(int64(chars)), commas(int64(lines)))}
	}
	// What toFile keeps of a stretch it is given whole: the tail piece is
	// keepBytes long here.
	c.tail = append(c.tail[:0], tail...)
	c.nbytes, c.chars, c.lines = end, c.chars+int64(chars), c.lines+int64(lines)
	c.lastNL = tail[len(tail)-1] == '\n'
	c.fromFile += n
	c.pluginWrote()
	return nil
}

// plausible reports whether chars and lines, announced for a stretch of
// which riot read pieces holding readChars and readLines and left middle
// bytes unread, could be the stretch's: the middle holds what the pieces do
// not, at most one character a byte, at least one every UTF-8 character's
// length (past the up to three bytes that end a character the head piece
// cut), and a newline is a character.
func plausible(chars, lines uint64, readChars, readLines, middle int64) bool {
	if uint64(readChars) > chars || uint64(readLines) > lines {
		return false
	}
	midChars, midLines := chars-uint64(readChars), lines-uint64(readLines)
	return midChars <= uint64(middle) && midLines <= midChars && uint64(middle) <= utf8.UTFMax*midChars+utf8.UTFMax-1
}

// offsetWriter writes a file sequentially from off, by position, so that
// the host's writes and the plugin's share the file without a shared seek
// offset.
type offsetWriter struct {
	f interface {
		WriteAt(p []byte, off int64) (int, error)
	}
	off int64
}

func (w *offsetWriter) Write(p []byte) (int, error) {
	n, err := w.f.WriteAt(p, w.off)
	w.off += int64(n)
	return n, err
}
