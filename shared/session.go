package shared

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	toolv1 "github.com/riot-tools/riot/shared/proto/riot/tool/v1"
)

// Protocol version 2 carries Prepare and Call as exchanges on one
// long-lived Session stream per plugin instead of an RPC each: an RPC's
// stream setup (headers, a server goroutine, a context watcher on each
// side) was most of a call's cost. Each exchange keeps its RPC's meaning:
// the same messages, its own context and deadline, cancellation, and an
// End frame for what would have been the RPC's status. Protocol version 3
// carries the same frames over a Unix socket of their own (link.go): the
// exchanges below run over either, through sessionConn.

// sessionConn is the host's side of what carries a session's frames: a
// gRPC Session stream (protocol 2) or a link (protocol 3). Send is called
// by one goroutine at a time, Recv by one reader at a time: a stream's
// reader goroutine, or the caller holding a link's reading role. A Send
// that returns io.EOF found the connection gone; Recv's error is why.
type sessionConn interface {
	Send(*toolv1.SessionRequest) error
	Recv() (*toolv1.SessionResponse, error)
}

// sessionServerConn is the plugin's mirror of sessionConn.
type sessionServerConn interface {
	Send(*toolv1.SessionResponse) error
	Recv() (*toolv1.SessionRequest, error)
}

// exchangeBuffer is how many frames of one exchange the host holds before
// the stream's reader waits for the call to take them: with the stream's
// flow-control window it bounds the memory a slow consumer (a call
// spilling to disk) costs, at most ChunkSize a frame.
const exchangeBuffer = 2

// sendGrace is how long a send may stay blocked after its caller gave up
// before the host gives up on the whole stream: only a plugin that stopped
// reading blocks a send that long, and its calls cannot go on.
const sendGrace = 2 * time.Second

// errStopped is the stream's end when the plugin stopped reading it.
var errStopped = status.Error(codes.Unavailable, "the plugin stopped reading its session stream")

// SessionClient is the host-side stub of protocol versions 2 and 3.
type SessionClient struct {
	rpc     toolv1.ToolPluginClient
	session toolv1.ToolSessionClient
	// grace is sendGrace, shorter in tests.
	grace time.Duration

	mu  sync.Mutex
	cur *session
	// link opens protocol 3's connections; nil over protocol 2, and once
	// an opening failed.
	link *linker
	// opening is closed when the stream being opened is open or failed;
	// nil when none is.
	opening chan struct{}
	// linking is closed when the link being opened in the background is
	// open, failed or abandoned; nil when none is. stopLink abandons it.
	linking  chan struct{}
	stopLink context.CancelFunc
	// draining are the streams a link replaced that still carry open
	// exchanges: each ends after its last.
	draining []*session
	// streamed counts the exchanges begun on streams, up to linkAfter.
	streamed int
	// closed is set when the plugin's client is gone: no session opens.
	closed bool
}

var _ ToolPlugin = (*SessionClient)(nil)

// NewSessionClient returns a version 2 stub over conn. Its stream opens
// at the first exchange and again after one breaks.
func NewSessionClient(conn grpc.ClientConnInterface) *SessionClient {
	return &SessionClient{rpc: toolv1.NewToolPluginClient(conn), session: toolv1.NewToolSessionClient(conn), grace: sendGrace}
}

// session is one Session stream or link and its open exchanges.
type session struct {
	stream sessionConn
	// cancel ends the stream or closes the link; it is safe to call
	// more than once.
	cancel func()
	grace  time.Duration
	// sendSlot holds the right to send: gRPC allows one sender at a time,
	// and a caller whose context ends stops waiting for it.
	sendSlot chan struct{}
	// direct is the link when its callers read it themselves (protocol
	// 3): nil over a gRPC stream, which the reader goroutine reads.
	direct *hostLink
	// role holds the right to read direct when no caller does: a caller
	// waiting for its exchange's frame takes it and reads, handing other
	// exchanges' frames to their channels, so that one exchange at a time
	// costs no hand-off from a reader goroutine to its caller.
	role chan struct{}

	mu     sync.Mutex
	nextID uint64
	open   map[uint64]*exchange
	// retired is set when a link replaced the stream: it takes no new
	// exchange, and ends once the open ones finish.
	retired bool
	// err is why the stream ended, set before done is closed.
	err   error
	ended bool
	done  chan struct{}
}

// exchange is one open Prepare or Call as the host sees it.
type exchange struct {
	id     uint64
	frames chan *toolv1.SessionResponse
	// gone is closed when the caller stops reading, so that the reader
	// never waits on it.
	gone chan struct{}
}

// Manifest is an RPC in every version.
func (c *SessionClient) Manifest(ctx context.Context) (*toolv1.ManifestResponse, error) {
	return c.rpc.Manifest(ctx, &toolv1.ManifestRequest{})
}

// Prepare runs one Prepare exchange.
func (c *SessionClient) Prepare(ctx context.Context, req *toolv1.PrepareRequest) (*toolv1.PrepareResponse, error) {
	s, x, err := c.begin(ctx, &toolv1.SessionRequest{Frame: &toolv1.SessionRequest_Prepare{Prepare: req}})
	if err != nil {
		return nil, err
	}
	f, err := s.next(ctx, x)
	s.finish(x, err != nil)
	if err != nil {
		return nil, err
	}
	switch fr := f.GetFrame().(type) {
	case *toolv1.SessionResponse_Prepared:
		return fr.Prepared, nil
	case *toolv1.SessionResponse_End:
		if err := endError(fr.End); err != nil {
			return nil, err
		}
		return nil, status.Error(codes.Internal, "the plugin ended a Prepare exchange without an answer")
	default:
		return nil, status.Error(codes.Internal, "the plugin answered a Prepare exchange with a call event")
	}
}

// Call runs one Call exchange, handing each event to send in order, as
// GRPCClient.Call does.
func (c *SessionClient) Call(ctx context.Context, req *toolv1.CallRequest, send func(*toolv1.CallEvent) error) (err error) {
	s, x, err := c.begin(ctx, &toolv1.SessionRequest{Frame: &toolv1.SessionRequest_Call{Call: req}})
	if err != nil {
		return err
	}
	ended := false
	defer func() { s.finish(x, !ended) }()
	for {
		f, err := s.next(ctx, x)
		if err != nil {
			return err
		}
		switch fr := f.GetFrame().(type) {
		case *toolv1.SessionResponse_Event:
			if err := send(fr.Event); err != nil {
				return err
			}
			if fr.Event.GetFinal() != nil {
				ended = true
				return nil
			}
		case *toolv1.SessionResponse_End:
			ended = true
			if err := endError(fr.End); err != nil {
				return err
			}
			return ErrNoFinal
		default:
			return status.Error(codes.Internal, "the plugin answered a Call exchange with a Prepare response")
		}
	}
}

// begin opens an exchange with its first frame.
func (c *SessionClient) begin(ctx context.Context, first *toolv1.SessionRequest) (*session, *exchange, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, status.FromContextError(err).Err()
	}
	var (
		s *session
		x *exchange
	)
	for {
		var err error
		if s, err = c.stream(ctx); err != nil {
			return nil, nil, err
		}
		x, err = s.register()
		if errors.Is(err, errRetired) {
			continue // a link replaced s after stream returned it
		}
		if err != nil {
			return nil, nil, err
		}
		break
	}
	if s.direct == nil {
		c.streamedOne(s)
	}
	first.Id = x.id
	if d, ok := ctx.Deadline(); ok {
		// A deadline already past is still a deadline: one microsecond.
		first.TimeoutUs = max(time.Until(d).Microseconds(), 1)
	}
	if err := s.send(ctx, first); err != nil {
		s.finish(x, true)
		return nil, nil, err
	}
	return s, x, nil
}

// stream returns the open session, opening one if there is none or the
// last one ended: a gRPC Session stream, whose first frame needs no round
// trip before it (over protocol 3 a link opens behind it: streamedOne).
// One caller opens while the others wait for it as long as their contexts
// let them.
func (c *SessionClient) stream(ctx context.Context) (*session, error) {
	for {
		c.mu.Lock()
		if s := c.cur; s != nil && !s.isDone() {
			c.mu.Unlock()
			return s, nil
		}
		if c.closed {
			c.mu.Unlock()
			return nil, errClientClosed
		}
		if w := c.opening; w != nil {
			c.mu.Unlock()
			select {
			case <-w:
				continue
			case <-ctx.Done():
				return nil, status.FromContextError(ctx.Err()).Err()
			}
		}
		w := make(chan struct{})
		c.opening = w
		c.mu.Unlock()
		return c.openSession(w)
	}
}

// openSession opens the client's stream, then wakes those waiting on w.
func (c *SessionClient) openSession(w chan struct{}) (*session, error) {
	// The stream outlives every caller's context; it ends with the
	// connection, when it breaks, or when a link replaces it.
	sctx, cancel := context.WithCancel(context.Background())
	st, err := c.session.Session(sctx)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.opening = nil
	close(w)
	if err != nil {
		cancel()
		return nil, err
	}
	if c.closed {
		// The client closed while it opened.
		cancel()
		return nil, errClientClosed
	}
	if cur := c.cur; cur != nil && !cur.isDone() {
		// A link opened while the stream did: it takes the exchanges.
		cancel()
		return cur, nil
	}
	s := newSession(st, cancel, c.grace)
	go s.read()
	c.cur = s
	return s, nil
}

func newSession(st sessionConn, cancel func(), grace time.Duration) *session {
	return &session{stream: st, cancel: cancel, grace: grace, sendSlot: make(chan struct{}, 1), open: map[uint64]*exchange{}, done: make(chan struct{})}
}

// errClientClosed is an exchange begun after the plugin's client closed.
var errClientClosed = status.Error(codes.Unavailable, "the plugin's connection is closed")

// closeOnDone ends the client's sessions when ctx, the plugin client's
// life, ends, and abandons a link being opened: a link is no part of the
// gRPC connection that go-plugin closes.
func (c *SessionClient) closeOnDone(ctx context.Context) {
	context.AfterFunc(ctx, func() {
		c.mu.Lock()
		c.closed = true
		ended := append([]*session{c.cur}, c.draining...)
		c.draining = nil
		stop := c.stopLink
		c.mu.Unlock()
		if stop != nil {
			stop()
		}
		for _, s := range ended {
			if s != nil {
				s.abort(errClientClosed)
			}
		}
	})
}

func (s *session) register() (*exchange, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.retired {
		return nil, errRetired
	}
	if s.err != nil {
		return nil, s.err
	}
	s.nextID++
	x := &exchange{id: s.nextID, frames: make(chan *toolv1.SessionResponse, exchangeBuffer), gone: make(chan struct{})}
	s.open[x.id] = x
	return x, nil
}

// finish closes the exchange on the host's side; cancel tells the plugin
// to stop it, for an exchange that did not reach its end.
func (s *session) finish(x *exchange, cancel bool) {
	s.mu.Lock()
	delete(s.open, x.id)
	last := s.retired && len(s.open) == 0
	s.mu.Unlock()
	close(x.gone)
	if last {
		// The plugin's side cancels what is still running when the stream
		// ends: a Cancel frame would find it gone.
		s.end(errRetired)
		return
	}
	if cancel {
		// In the background: the caller is leaving, and the send may
		// wait for another's.
		go func() {
			_ = s.send(context.Background(), &toolv1.SessionRequest{Id: x.id, Frame: &toolv1.SessionRequest_Cancel{Cancel: &toolv1.Cancel{}}})
		}()
	}
}

// send sends one frame when it is the caller's turn. A caller whose
// context ends stops waiting for its turn; a send that stays blocked
// sendGrace after that ends the stream.
func (s *session) send(ctx context.Context, f *toolv1.SessionRequest) error {
	select {
	case s.sendSlot <- struct{}{}:
	case <-ctx.Done():
		return status.FromContextError(ctx.Err()).Err()
	case <-s.done:
		return s.err
	}
	sending := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		t := time.NewTimer(s.grace)
		defer t.Stop()
		select {
		case <-sending:
		case <-t.C:
			s.abort(errStopped)
		}
	})
	err := s.stream.Send(f)
	close(sending)
	stop()
	<-s.sendSlot
	if errors.Is(err, io.EOF) {
		// The stream is gone, and the reader learns why; a link may have
		// no reader: its write's failure is the reason then.
		if s.direct != nil {
			s.end(errLinkBroken)
		}
		<-s.done
		return s.err
	}
	// nil, or a status such as a message over the limit, which leaves
	// the stream as it was.
	return err
}

// next is the exchange's next frame, or why there is none.
func (s *session) next(ctx context.Context, x *exchange) (*toolv1.SessionResponse, error) {
	if s.direct != nil {
		return s.nextDirect(ctx, x)
	}
	select {
	case f := <-x.frames:
		return f, nil
	case <-ctx.Done():
		return nil, status.FromContextError(ctx.Err()).Err()
	case <-s.done:
		// Frames that came before the stream ended are still the call's.
		select {
		case f := <-x.frames:
			return f, nil
		default:
			return nil, s.err
		}
	}
}

// nextDirect is next on a link its callers read: the caller takes the
// reading role when no other caller holds it, or waits for its frame from
// the one that does.
func (s *session) nextDirect(ctx context.Context, x *exchange) (*toolv1.SessionResponse, error) {
	for {
		select {
		case f := <-x.frames:
			return f, nil
		default:
		}
		select {
		case f := <-x.frames:
			return f, nil
		case <-s.role:
			if f, err, ok := s.lead(ctx, x); ok {
				return f, err
			}
		case <-ctx.Done():
			return nil, status.FromContextError(ctx.Err()).Err()
		case <-s.done:
			return s.rest(x)
		}
	}
}

// lead reads the link, holding the role, until x's next frame comes, x's
// caller leaves or the link ends; then it hands the role on. It hands
// every other exchange's frame to its channel; ok is false when another
// leader already left x's frame there, for nextDirect to take.
func (s *session) lead(ctx context.Context, x *exchange) (_ *toolv1.SessionResponse, _ error, ok bool) {
	for {
		select {
		case <-s.done:
			s.role <- struct{}{}
			f, err := s.rest(x)
			return f, err, true
		default:
		}
		if len(x.frames) > 0 {
			s.role <- struct{}{}
			return nil, nil, false
		}
		f, err := s.direct.recvUntil(ctx)
		if errors.Is(err, errLeft) {
			s.role <- struct{}{}
			return nil, status.FromContextError(ctx.Err()).Err(), true
		}
		if err != nil {
			s.end(err)
			s.role <- struct{}{}
			f, err := s.rest(x)
			return f, err, true
		}
		if f.GetId() == x.id {
			s.role <- struct{}{}
			return f, nil, true
		}
		s.mu.Lock()
		y := s.open[f.GetId()]
		s.mu.Unlock()
		if y == nil {
			continue // an exchange the host closed
		}
		select {
		case y.frames <- f:
		case <-y.gone:
		case <-ctx.Done():
			// y's consumer is slow and x's caller is leaving: a goroutine
			// of its own waits for y, then hands the role on.
			go func() {
				select {
				case y.frames <- f:
				case <-y.gone:
				}
				s.role <- struct{}{}
			}()
			return nil, status.FromContextError(ctx.Err()).Err(), true
		}
	}
}

// rest is what x has after the session ended: the frames that came before
// the end are still the call's.
func (s *session) rest(x *exchange) (*toolv1.SessionResponse, error) {
	select {
	case f := <-x.frames:
		return f, nil
	default:
		return nil, s.err
	}
}

// read hands each frame to its exchange until the stream ends. A frame of
// an exchange the host closed is dropped.
func (s *session) read() {
	for {
		f, err := s.stream.Recv()
		if err != nil {
			s.end(err)
			return
		}
		s.mu.Lock()
		x := s.open[f.GetId()]
		s.mu.Unlock()
		if x == nil {
			continue
		}
		select {
		case x.frames <- f:
		case <-x.gone:
		}
	}
}

// abort ends the stream with err as every open exchange's error.
func (s *session) abort(err error) {
	if s.direct != nil {
		// A link may have no reader to learn of it.
		s.end(err)
		return
	}
	s.mu.Lock()
	if s.err == nil {
		s.err = err
	}
	s.mu.Unlock()
	s.cancel()
}

// isDone is whether the stream ended.
func (s *session) isDone() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// errRetired is the end of a stream that a link replaced: no exchange
// sees it, since the stream ends after its last.
var errRetired = status.Error(codes.Unavailable, "the plugin's session stream was replaced by its link")

// retire takes no new exchange on the stream, and ends it once the open
// ones finish: each exchange lives on one connection for its whole life.
func (s *session) retire() {
	s.mu.Lock()
	s.retired = true
	idle := len(s.open) == 0
	s.mu.Unlock()
	if idle {
		s.end(errRetired)
	}
}

// end records why the stream ended and wakes every open exchange.
func (s *session) end(err error) {
	if errors.Is(err, io.EOF) {
		// The plugin ended the session with exchanges open: it is broken,
		// and its calls cannot finish.
		err = status.Error(codes.Unavailable, "the plugin ended its session stream")
	}
	s.mu.Lock()
	if s.err == nil {
		s.err = err
	}
	ended := s.ended
	s.ended = true
	s.mu.Unlock()
	s.cancel()
	if !ended {
		close(s.done)
	}
}

// endError is the error an End frame stands for: nil for a clean end.
func endError(e *toolv1.End) error {
	if codes.Code(e.GetCode()) == codes.OK {
		return nil
	}
	return status.Error(codes.Code(e.GetCode()), e.GetMessage())
}

// SessionServer is the plugin-side shim of protocol versions 2 and 3: it
// serves each exchange of a Session stream or a link with Impl,
// concurrently, as gRPC serves concurrent RPCs.
type SessionServer struct {
	toolv1.UnimplementedToolSessionServer
	Impl ToolPlugin
}

// Session serves one stream until the host ends it, then cancels what is
// still running and waits for it.
func (s *SessionServer) Session(stream toolv1.ToolSession_SessionServer) error {
	s.serveConn(stream.Context(), stream)
	return nil
}

// serveConn serves the exchanges of one stream or link until it ends.
func (s *SessionServer) serveConn(ctx context.Context, stream sessionServerConn) {
	ctx, cancel := context.WithCancel(ctx)
	out := &frameSender{stream: stream}
	var (
		mu   sync.Mutex
		open = map[uint64]context.CancelFunc{}
		wg   sync.WaitGroup
	)
	defer func() {
		cancel()
		wg.Wait()
	}()
	for {
		f, err := stream.Recv()
		if err != nil {
			// The host closed the stream or the connection broke: cancel
			// every exchange (the deferred cancel) and wait for them.
			return
		}
		id := f.GetId()
		if _, ok := f.GetFrame().(*toolv1.SessionRequest_Cancel); ok {
			mu.Lock()
			if stop := open[id]; stop != nil {
				stop()
			}
			mu.Unlock()
			continue
		}
		mu.Lock()
		_, dup := open[id]
		mu.Unlock()
		if dup || f.GetFrame() == nil {
			continue // the host never reuses an open id nor sends an empty frame
		}
		xctx, stop := context.WithCancel(ctx)
		if us := f.GetTimeoutUs(); us > 0 {
			xctx, stop = context.WithTimeout(ctx, time.Duration(us)*time.Microsecond)
		}
		mu.Lock()
		open[id] = stop
		mu.Unlock()
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				mu.Lock()
				delete(open, id)
				mu.Unlock()
				stop()
			}()
			s.serve(xctx, id, f, out)
		}()
	}
}

// serve runs one exchange to its end.
func (s *SessionServer) serve(ctx context.Context, id uint64, f *toolv1.SessionRequest, out *frameSender) {
	switch fr := f.GetFrame().(type) {
	case *toolv1.SessionRequest_Prepare:
		resp, err := s.Impl.Prepare(ctx, fr.Prepare)
		if err == nil {
			err = out.send(&toolv1.SessionResponse{Id: id, Frame: &toolv1.SessionResponse_Prepared{Prepared: resp}}, false)
		}
		if err != nil {
			out.end(id, err)
		}
	case *toolv1.SessionRequest_Call:
		final := false
		ctx, hold := withHold(ctx)
		err := s.Impl.Call(ctx, fr.Call, func(ev *toolv1.CallEvent) error {
			if err := ctx.Err(); err != nil {
				// The host cancelled the exchange and reads no more of it.
				return status.FromContextError(err).Err()
			}
			// A Final flushes what was held before it; so does an End.
			held := hold.on.Load() && ev.GetFinal() == nil
			if err := out.send(&toolv1.SessionResponse{Id: id, Frame: &toolv1.SessionResponse_Event{Event: ev}}, held); err != nil {
				return err
			}
			final = final || ev.GetFinal() != nil
			return nil
		})
		// After a Final the host has closed the exchange; otherwise the End
		// is what the RPC's status would have been.
		if !final || err != nil {
			out.end(id, err)
		}
	}
}

// frameSender serialises the exchanges' frames onto the stream.
type frameSender struct {
	mu     sync.Mutex
	stream sessionServerConn
}

// heldSender is a connection that can write a frame for the next Send to
// flush with its own (a link; a gRPC stream batches by itself).
type heldSender interface {
	SendHeld(*toolv1.SessionResponse) error
}

// send sends one frame; held, it may wait for the next frame's write. A
// frame over the host's message limit is refused here, as gRPC refuses an
// RPC's message: on the shared stream it would end every exchange, not
// only its own.
func (o *frameSender) send(f *toolv1.SessionResponse, held bool) error {
	if n := proto.Size(f); n > MaxMessageSize {
		return status.Errorf(codes.ResourceExhausted, "a message of %d bytes is over the host's limit of %d", n, MaxMessageSize)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if hs, ok := o.stream.(heldSender); ok && held {
		return hs.SendHeld(f)
	}
	return o.stream.Send(f)
}

// end sends an exchange's End frame for err, read as gRPC reads a
// handler's error; nil is a clean end.
func (o *frameSender) end(id uint64, err error) {
	e := &toolv1.End{}
	if err != nil {
		st, ok := status.FromError(err)
		if !ok {
			st = status.FromContextError(err)
		}
		e.Code, e.Message = int32(st.Code()), st.Message()
	}
	_ = o.send(&toolv1.SessionResponse{Id: id, Frame: &toolv1.SessionResponse_End{End: e}}, false)
}
