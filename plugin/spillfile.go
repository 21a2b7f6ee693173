package plugin

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"syscall"
	"unicode/utf8"

	"github.com/riot-tools/riot/internal/textcount"
	"github.com/riot-tools/riot/shared"
)

// announceSize is how much text written to the spill file waits before
// the host is told of it; the flusher tells it sooner for a trickle.
const announceSize = 4 << 20

// spillFile is the plugin's side of CallContext.SpillFile. A plugin is a
// local process, so once the host has spilled a call's text, the rest need
// not cross the RPC: the output writes it to the host's scratch file, at
// the offsets that follow what it sent, and announces each stretch. It
// only opens a regular file the host created (no O_CREAT, no symlink
// followed, no blocking on a FIFO); if it cannot, because the host has not
// spilled or Landlock forbids writing, the text keeps streaming, which the
// host takes just the same.
type spillFile struct {
	path      string
	after     int64
	f         *os.File
	failed    bool
	announced int64 // the offset up to which the host was told
	// chars and newlines are the counts of the text written since the
	// last announcement, which it carries so the host need not read the
	// text back.
	chars, newlines int64
}

func newSpillFile(offer *shared.SpillFile) *spillFile {
	if offer == nil || offer.Path == "" {
		return nil
	}
	return &spillFile{path: offer.Path, after: int64(min(offer.AfterBytes, 1<<62))}
}

// open reports whether text goes to the file.
func (sf *spillFile) open() bool { return sf != nil && sf.f != nil }

// try opens the file once sent bytes of text have gone over the stream and
// the host may have created it. The text so far is announced from there.
func (sf *spillFile) try(sent int64) {
	if sf == nil || sf.f != nil || sf.failed || sent <= sf.after {
		return
	}
	f, err := os.OpenFile(sf.path, os.O_WRONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return // not yet spilled: tried again after the next send
	case err != nil:
		sf.failed = true
		return
	}
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		f.Close()
		sf.failed = true
		return
	}
	sf.f, sf.announced, sf.chars, sf.newlines = f, sent, 0, 0
}

func (sf *spillFile) close() {
	if sf != nil && sf.f != nil {
		_ = sf.f.Close()
		sf.f = nil
	}
}

// writeFileLocked writes p, after the start of a character the last write
// ended inside, to the spill file; a write that fails sends the text, and
// all after it, over the stream instead.
func (o *output) writeFileLocked(p []byte) (int, error) {
	if err := o.ctx.Err(); err != nil {
		// The host stopped the call: nothing more of it is read.
		return 0, err
	}
	data := p
	if len(o.buf) > 0 {
		o.buf = append(o.buf, p...)
		data = o.buf
	}
	keep := 0
	if !o.closed {
		keep = incompleteSuffix(data)
	}
	body := data[:len(data)-keep]
	chars, newlines, ok := textcount.Scan(body)
	if !ok {
		body = bytes.ToValidUTF8(body, []byte(string(utf8.RuneError)))
		chars, newlines, _ = textcount.Scan(body)
	}
	if _, err := o.spill.f.WriteAt(body, o.sent); err != nil {
		o.spill.close()
		o.spill.failed = true
		o.buf = append([]byte(nil), data...)
		if err := o.announceLocked(); err != nil {
			return 0, err
		}
		return len(p), o.streamLocked()
	}
	o.sent += int64(len(body))
	o.spill.chars += chars
	o.spill.newlines += newlines
	o.buf = append(o.buf[:0], data[len(data)-keep:]...)
	if o.sent-o.spill.announced >= announceSize {
		if err := o.announceLocked(); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// announceLocked tells the host of the text written to the file since the
// last announcement, with its counts, which spare the host reading it back.
func (o *output) announceLocked() error {
	sf := o.spill
	if sf == nil || o.sent == sf.announced {
		return nil
	}
	chars, newlines := uint64(sf.chars), uint64(sf.newlines)
	ev := shared.CallEvent{Chunk: &shared.Chunk{
		Block: 0, Kind: shared.BlockText,
		FileOffset: uint64(sf.announced), FileLength: uint64(o.sent - sf.announced),
		FileChars: &chars, FileNewlines: &newlines,
	}}
	sf.announced, sf.chars, sf.newlines = o.sent, 0, 0
	return o.s.event(ev)
}
