package plugin

import (
	"bytes"
	"context"
	"io"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/riot-tools/riot/shared"
)

// flushSize and flushEvery bound how long streamed output waits in the
// plugin: large writes go at once, a trickle within flushEvery, so the host
// holds the output so far even if the plugin then dies.
const (
	flushSize  = 64 << 10
	flushEvery = 50 * time.Millisecond
)

// sender serialises a call's events: gRPC streams are not safe for
// concurrent sends, and a tool may write from several goroutines.
type sender struct {
	mu   sync.Mutex
	send func(shared.CallEvent) error
	err  error
}

func (s *sender) event(ev shared.CallEvent) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	s.err = s.send(ev)
	return s.err
}

// block streams one content block in chunks of at most shared.ChunkSize.
func (s *sender) block(index uint32, kind shared.BlockKind, mediaType string, data []byte) error {
	for first := true; first || len(data) > 0; first = false {
		n := min(len(data), shared.ChunkSize)
		ev := shared.CallEvent{Chunk: &shared.Chunk{Block: index, Kind: kind, MediaType: mediaType, Data: data[:n]}}
		if err := s.event(ev); err != nil {
			return err
		}
		data = data[n:]
	}
	return nil
}

func (s *sender) progress(msg string) {
	_ = s.event(shared.CallEvent{Progress: &shared.Progress{Message: msg}})
}

// output is Env.Output during a call: text streamed as block 0, or
// written to the host's spill file once that exists (spillfile.go).
type output struct {
	ctx     context.Context
	s       *sender
	spill   *spillFile // nil when the host offered none
	mu      sync.Mutex
	buf     []byte
	sent    int64 // bytes of text sent or written to the spill file
	written bool
	closed  bool
	stop    chan struct{}
	stopped chan struct{}
}

func newOutput(ctx context.Context, s *sender, offer *shared.SpillFile) *output {
	return &output{ctx: ctx, s: s, spill: newSpillFile(offer)}
}

func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		// A goroutine the tool left behind; the call is over.
		return 0, io.ErrClosedPipe
	}
	if o.stop == nil && len(p) > 0 {
		// The flusher starts with the first write, so a call that streams
		// nothing costs no goroutine.
		o.stop, o.stopped = make(chan struct{}), make(chan struct{})
		go o.ticker()
	}
	o.written = o.written || len(p) > 0
	if o.spill.open() {
		return o.writeFileLocked(p)
	}
	o.buf = append(o.buf, p...)
	if len(o.buf) >= flushSize {
		if err := o.flushLocked(); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

func (o *output) flushLocked() error {
	if o.spill.open() {
		if o.closed && len(o.buf) > 0 {
			if _, err := o.writeFileLocked(nil); err != nil {
				return err
			}
		}
		return o.announceLocked()
	}
	return o.streamLocked()
}

// streamLocked sends the buffered text over the stream.
func (o *output) streamLocked() error {
	if len(o.buf) == 0 {
		return nil
	}
	// Text on the wire is UTF-8, and the host refuses anything else; what
	// a tool streams (a command's output among it) may not be. A character
	// cut at the end of this write waits for the next one, unless the
	// output is closing.
	keep := 0
	if !o.closed {
		keep = incompleteSuffix(o.buf)
	}
	data := o.buf[:len(o.buf)-keep]
	if !utf8.Valid(data) {
		data = bytes.ToValidUTF8(data, []byte(string(utf8.RuneError)))
	}
	var err error
	if len(data) > 0 {
		err = o.s.block(0, shared.BlockText, "", data)
		o.sent += int64(len(data))
	}
	o.buf = append(o.buf[:0], o.buf[len(o.buf)-keep:]...)
	if err == nil && !o.closed {
		// Past the budget, the host may have created its spill file.
		o.spill.try(o.sent)
	}
	return err
}

// incompleteSuffix is the length of the start of a character that p ends
// inside, or 0.
func incompleteSuffix(p []byte) int {
	for n := 1; n < utf8.UTFMax && n <= len(p); n++ {
		if tail := p[len(p)-n:]; utf8.RuneStart(tail[0]) {
			if !utf8.FullRune(tail) {
				return n
			}
			return 0
		}
	}
	return 0
}

func (o *output) ticker() {
	defer close(o.stopped)
	t := time.NewTicker(flushEvery)
	defer t.Stop()
	for {
		select {
		case <-o.stop:
			return
		case <-t.C:
			o.mu.Lock()
			_ = o.flushLocked()
			o.mu.Unlock()
		}
	}
}

// close flushes what is left and reports whether anything was written, so
// the outcome's blocks know their first index.
func (o *output) close() (bool, error) {
	o.mu.Lock()
	stop, stopped := o.stop, o.stopped
	o.closed = true
	o.mu.Unlock()
	if stop != nil {
		close(stop)
		<-stopped
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.closed = true
	err := o.flushLocked()
	o.spill.close()
	return o.written, err
}
