package core

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"unicode/utf8"

	toolv1 "github.com/riot-tools/riot/shared/proto/riot/tool/v1"
)

// A plugin is a local process, so a large result need not cross the RPC:
// the host offers each call of a limited tool its spill file's scratch
// path (CallContext.spill_file). Once the host has spilled, the file
// exists and the plugin may write its further text there, announcing each
// stretch with a Chunk that names it instead of carrying it. The host reads
// every announced byte back through the same accounting as streamed text,
// so the budget, the UTF-8 check and the preview are the same whichever
// way the text came. A plugin that cannot (an older SDK, a plugin that
// Landlock forbids writing) streams everything, as before.

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
func (c *collector) offer() *toolv1.SpillFile {
	if c.budget < 0 || c.store == nil {
		return nil
	}
	c.offered = true
	// Text spills past budget characters, so past budget bytes at the
	// earliest: before, the file does not exist.
	return &toolv1.SpillFile{Path: scratchPath(c.spillPath), AfterBytes: uint64(c.budget)}
}

// extent takes a text chunk whose bytes the plugin wrote to the spill file.
func (c *collector) extent(ch *toolv1.Chunk) error {
	n := ch.GetFileLength()
	switch {
	case !c.offered:
		return &malformedError{Why: "text announced in a spill file riot did not offer for this call"}
	case len(ch.GetData()) > 0:
		return &malformedError{Why: "a chunk that carries text and also announces text in the spill file"}
	case c.file == nil:
		return &malformedError{Why: "text announced in the spill file before riot had created it"}
	case len(c.pending) > 0:
		return &malformedError{Why: fmt.Sprintf("text that is not valid UTF-8, at byte %s of its output", commas(c.nbytes))}
	case ch.GetFileOffset() != uint64(c.nbytes):
		return &malformedError{Why: fmt.Sprintf("text announced at byte %s of the spill file, where its output so far ends at byte %s", commas(int64(min(ch.GetFileOffset(), maxAnnounced))), commas(c.nbytes))}
	case n > maxAnnounced:
		return &malformedError{Why: fmt.Sprintf("an announcement of %s bytes in the spill file", commas(int64(min(n, maxAnnounced))))}
	}
	if c.readBuf == nil {
		c.readBuf = make([]byte, readPiece)
	}
	for end := c.nbytes + int64(n); c.nbytes < end; {
		want := int(min(int64(len(c.readBuf)), end-c.nbytes))
		got, err := c.file.ReadAt(c.readBuf[:want], c.nbytes)
		if got < want {
			if err != nil && !errors.Is(err, io.EOF) {
				return &malformedError{Why: fmt.Sprintf("text announced in the spill file that riot could not read back at byte %s", commas(c.nbytes))}
			}
			return &malformedError{Why: fmt.Sprintf("text announced up to byte %s of the spill file, which holds %s", commas(end), commas(c.nbytes+int64(got)))}
		}
		data := c.readBuf[:got]
		valid := validUTF8Prefix(data)
		if valid < got {
			// A character cut by this read is read again whole by the next
			// one; one that the stretch ends inside, or a bad byte, breaks
			// the protocol.
			rest := data[valid:]
			if c.nbytes+int64(got) == end || len(rest) >= utf8.UTFMax || utf8.FullRune(rest) {
				return &malformedError{Why: fmt.Sprintf("text that is not valid UTF-8, at byte %s of its output", commas(c.nbytes+int64(valid)))}
			}
		}
		c.writeText(data[:valid], true)
		c.fromFile += int64(valid)
	}
	return nil
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
