package shared

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	toolv1 "github.com/riot-tools/riot/shared/proto/riot/tool/v1"
)

// Protocol version 3's framing: each frame is a uvarint length and that
// many bytes of one protobuf message. A frame over MaxMessageSize or one
// that does not decode ends the connection, as a message over the limit
// or one that does not unmarshal ends a gRPC stream.

// frameBufSize is the buffer of each direction: a no-op exchange's frames
// are a few hundred bytes, and a 1 MiB chunk goes past the buffer.
const frameBufSize = 32 << 10

// reuseBelow is the largest frame read into the reader's own buffer;
// larger ones get a buffer of their own, so a single large chunk does not
// pin a megabyte for the connection's life.
const reuseBelow = 64 << 10

var (
	// errFrameTooLarge is a frame announced over MaxMessageSize.
	errFrameTooLarge = errors.New("frame over the message size limit")
	// errFrameMalformed is a length that is not a uvarint.
	errFrameMalformed = errors.New("malformed frame length")
)

// frameReader reads frames from one side of a connection. It is used by
// one goroutine at a time. A read that fails part-way through a frame
// (the host's reader interrupted by a read deadline when its caller
// leaves) keeps what it has read, and the next call goes on from there:
// a frame is never lost or misaligned by an interruption.
type frameReader struct {
	r   *bufio.Reader
	buf []byte
	// The frame being read: its length's bytes so far (vn, vi), whether
	// the length is whole (sized), and its bytes so far (frame[:got]).
	vn    uint64
	vi    int
	sized bool
	frame []byte
	got   int
}

func newFrameReader(r io.Reader) *frameReader {
	return &frameReader{r: bufio.NewReaderSize(r, frameBufSize)}
}

// next returns the next frame's bytes, valid until the next call. A clean
// end between frames is io.EOF; an end inside one is io.ErrUnexpectedEOF.
func (f *frameReader) next() ([]byte, error) {
	if !f.sized {
		n, err := f.length()
		if err != nil {
			return nil, err
		}
		if n <= reuseBelow {
			if f.buf == nil {
				f.buf = make([]byte, reuseBelow)
			}
			f.frame = f.buf[:n]
		} else {
			f.frame = make([]byte, n)
		}
		f.sized, f.got = true, 0
	}
	n, err := io.ReadFull(f.r, f.frame[f.got:])
	f.got += n
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	b := f.frame
	f.sized, f.frame = false, nil
	return b, nil
}

// length reads a frame's uvarint length. A varint longer than ten bytes
// or past 64 bits, and one over MaxMessageSize, are refused before the
// frame's bytes are read.
func (f *frameReader) length() (uint64, error) {
	for f.vi < binary.MaxVarintLen64 {
		b, err := f.r.ReadByte()
		if err != nil {
			if f.vi > 0 && errors.Is(err, io.EOF) {
				return 0, io.ErrUnexpectedEOF
			}
			return 0, err
		}
		i := f.vi
		if i == binary.MaxVarintLen64-1 && b > 1 {
			return 0, errFrameMalformed
		}
		f.vn |= uint64(b&0x7f) << (7 * i)
		f.vi++
		if b < 0x80 {
			n := f.vn
			f.vn, f.vi = 0, 0
			if n > MaxMessageSize {
				return 0, fmt.Errorf("%w: %d bytes", errFrameTooLarge, n)
			}
			return n, nil
		}
	}
	return 0, errFrameMalformed
}

// read decodes the next frame into m. proto.Unmarshal copies what it
// keeps, so the frame's buffer is free again when it returns.
func (f *frameReader) read(m proto.Message) error {
	b, err := f.next()
	if err != nil {
		return err
	}
	if err := proto.Unmarshal(b, m); err != nil {
		return fmt.Errorf("%w: %w", errFrameUndecodable, err)
	}
	return nil
}

// errFrameUndecodable is a frame whose bytes are not the message expected.
var errFrameUndecodable = errors.New("undecodable frame")

// frameWriter writes whole frames, one writer at a time, each flushed.
type frameWriter struct {
	mu  sync.Mutex
	w   *bufio.Writer
	buf []byte
}

func newFrameWriter(w io.Writer) *frameWriter {
	return &frameWriter{w: bufio.NewWriterSize(w, frameBufSize)}
}

// write sends m as one frame. A message over MaxMessageSize is refused
// before anything is written, so the connection stays usable, as gRPC
// refuses to send one.
func (f *frameWriter) write(m proto.Message) error { return f.put(m, true) }

// put is write, flushed or left in the buffer for the next flush: frames
// that go out together cost one write and one wake-up of the reader.
func (f *frameWriter) put(m proto.Message, flush bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	b, err := proto.MarshalOptions{}.MarshalAppend(f.buf[:0], m)
	if err != nil {
		return status.Errorf(codes.Internal, "cannot encode a frame: %v", err)
	}
	if len(b) > MaxMessageSize {
		return status.Errorf(codes.ResourceExhausted, "a message of %d bytes is over the limit of %d", len(b), MaxMessageSize)
	}
	if cap(b) <= reuseBelow {
		f.buf = b
	}
	return f.frame(b, flush)
}

// writeRaw writes b as one frame and flushes it.
func (f *frameWriter) writeRaw(b []byte) error { return f.frame(b, true) }

func (f *frameWriter) frame(b []byte, flush bool) error {
	var n [binary.MaxVarintLen64]byte
	if _, err := f.w.Write(n[:binary.PutUvarint(n[:], uint64(len(b)))]); err != nil {
		return err
	}
	if _, err := f.w.Write(b); err != nil {
		return err
	}
	if !flush {
		return nil
	}
	return f.w.Flush()
}

// readError is the status a host-side read error of the link stands for,
// as the gRPC stream of protocol 2 would have reported it: a frame over
// the limit is ResourceExhausted, one that does not decode Internal, and
// anything else a broken connection. A clean end stays io.EOF.
func readError(err error) error {
	switch {
	case errors.Is(err, io.EOF):
		return io.EOF
	case errors.Is(err, errFrameTooLarge):
		return status.Errorf(codes.ResourceExhausted, "the plugin sent a message over the limit of %d bytes", MaxMessageSize)
	case errors.Is(err, errFrameMalformed), errors.Is(err, errFrameUndecodable):
		return status.Error(codes.Internal, "the plugin sent a malformed frame on its session connection")
	default:
		return errLinkBroken
	}
}

// errLinkBroken is a link whose connection failed under a read or a write.
var errLinkBroken = status.Error(codes.Unavailable, "the plugin's session connection broke")

// hostLink is the host's side of a protocol 3 connection: SessionRequest
// frames out, SessionResponse frames in.
type hostLink struct {
	conn net.Conn
	r    *frameReader
	w    *frameWriter
	// sent is the state the plugin's side holds: the last frame's. Send
	// is called by one goroutine at a time, which keeps it in wire order.
	sent stateView
}

func newHostLink(conn net.Conn, r *frameReader) *hostLink {
	return &hostLink{conn: conn, r: r, w: newFrameWriter(conn)}
}

// Send writes one frame. A write that fails breaks the connection: it is
// closed, so that the reader ends, and the caller learns why from it.
func (l *hostLink) Send(f *toolv1.SessionRequest) error {
	f, next := l.sent.withDelta(f)
	err := l.w.write(f)
	if err == nil {
		l.sent = next
	}
	if _, ok := status.FromError(err); ok {
		return err // nil, or a frame refused before it was written
	}
	_ = l.conn.Close()
	return io.EOF
}

// Recv reads the next frame.
func (l *hostLink) Recv() (*toolv1.SessionResponse, error) {
	f := &toolv1.SessionResponse{}
	if err := l.r.read(f); err != nil {
		return nil, readError(err)
	}
	return f, nil
}

// errLeft is a read interrupted because its caller left.
var errLeft = errors.New("the reader's caller left")

// recvUntil is Recv for a caller that reads the link itself: when ctx
// ends first it returns errLeft, and the frame read part-way stays in the
// reader for the next call. The interruption is a read deadline in the
// past, cleared before recvUntil returns; only recvUntil sets deadlines.
func (l *hostLink) recvUntil(ctx context.Context) (*toolv1.SessionResponse, error) {
	if ctx.Done() == nil {
		return l.Recv()
	}
	kicked := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		_ = l.conn.SetReadDeadline(time.Unix(1, 0))
		close(kicked)
	})
	f := &toolv1.SessionResponse{}
	err := l.r.read(f)
	if !stop() {
		<-kicked
		_ = l.conn.SetReadDeadline(time.Time{})
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return nil, errLeft
		}
	}
	if err != nil {
		return nil, readError(err)
	}
	return f, nil
}

func (l *hostLink) close() { _ = l.conn.Close() }

// pluginLink is the plugin's side: SessionRequest frames in,
// SessionResponse frames out.
type pluginLink struct {
	r *frameReader
	w *frameWriter
	// got is the state the last frame carried; Recv alone uses it.
	got stateView
}

func newPluginLink(conn net.Conn) *pluginLink {
	return &pluginLink{r: newFrameReader(conn), w: newFrameWriter(conn)}
}

func (l *pluginLink) Send(f *toolv1.SessionResponse) error { return l.w.write(f) }

// SendHeld writes f for the next Send to flush with its own frame.
func (l *pluginLink) SendHeld(f *toolv1.SessionResponse) error { return l.w.put(f, false) }

func (l *pluginLink) Recv() (*toolv1.SessionRequest, error) {
	f := &toolv1.SessionRequest{}
	if err := l.r.read(f); err != nil {
		return nil, err
	}
	if err := l.got.apply(f); err != nil {
		return nil, err // the link ends
	}
	return f, nil
}
