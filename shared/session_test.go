package shared

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	goplugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	toolv1 "github.com/riot-tools/riot/shared/proto/riot/tool/v1"
)

// fakeTools is a ToolPlugin whose tools each do one thing to the exchange.
type fakeTools struct {
	// cancelled receives the call id of a Block call once its context ends,
	// and the deadline it had.
	cancelled chan string
	deadlines chan time.Time
	// release ends every Block call that waits for it.
	release chan struct{}
	// blocked receives the call id of a Block call once it waits.
	blocked chan string
}

func (f *fakeTools) Manifest(context.Context) (*toolv1.ManifestResponse, error) {
	return &toolv1.ManifestResponse{SdkVersion: "fake"}, nil
}

func (f *fakeTools) Prepare(ctx context.Context, req *toolv1.PrepareRequest) (*toolv1.PrepareResponse, error) {
	switch req.GetTool() {
	case "PrepareError":
		return nil, status.Error(codes.Internal, "no verdict")
	case "Deadline":
		d, _ := ctx.Deadline()
		f.deadlines <- d
	}
	return &toolv1.PrepareResponse{Describe: "prepared " + req.GetCallId(), ReadOnly: true}, nil
}

func ok(text string) []*toolv1.CallEvent {
	return []*toolv1.CallEvent{
		{Event: &toolv1.CallEvent_Chunk{Chunk: &toolv1.Chunk{Kind: toolv1.BlockKind_BLOCK_KIND_TEXT, Data: []byte(text)}}},
		{Event: &toolv1.CallEvent_Final{Final: &toolv1.Final{Status: toolv1.Status_STATUS_OK}}},
	}
}

func (f *fakeTools) Call(ctx context.Context, req *toolv1.CallRequest, send func(*toolv1.CallEvent) error) error {
	var events []*toolv1.CallEvent
	switch req.GetTool() {
	case "Echo":
		events = ok(req.GetCallId())
	case "Block":
		f.blocked <- req.GetCallId()
		select {
		case <-ctx.Done():
			f.cancelled <- req.GetCallId()
			return ctx.Err()
		case <-f.release:
			events = ok("released " + req.GetCallId())
		}
	case "NoFinal":
		events = ok("partial")[:1]
	case "StatusError":
		return status.Error(codes.Internal, "broken")
	case "Huge":
		events = ok(strings.Repeat("x", MaxMessageSize))
	}
	for _, ev := range events {
		if err := send(ev); err != nil {
			return err
		}
	}
	return nil
}

// sessionProtocols are the versions whose exchanges the session tests run
// over: the Session stream and the link.
var sessionProtocols = []int{2, 3}

// serveSession serves impl's version on a Unix socket in a temporary
// directory and returns a stub connected to it, which it closes when the
// test ends, and the server.
// Over protocol 3 the link is open before it returns, so that the
// exchanges the test begins run on it.
func serveSession(t *testing.T, impl ToolPlugin, version int) (*SessionClient, *grpc.Server) {
	t.Helper()
	c, srv := serveVersions(t, &GRPCPlugin{Impl: impl, Protocol: version}, version, HostOptions{LinkDir: t.TempDir()})
	if version >= 3 {
		linkUp(t, c)
	}
	return c, srv
}

// linkUp opens c's stream and its link behind it, as after linkAfter
// exchanges, and waits for the link.
func linkUp(t *testing.T, c *SessionClient) {
	t.Helper()
	if _, err := c.stream(context.Background()); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	c.startLink()
	c.mu.Unlock()
	settle(c)
	if got := transport(c); got != "link" {
		t.Fatalf("the client is on the %s, want the link", got)
	}
}

// settle waits until c opens no link in the background: the one it
// opened is open, failed or abandoned.
func settle(c *SessionClient) {
	c.mu.Lock()
	w := c.linking
	c.mu.Unlock()
	if w != nil {
		<-w
	}
}

// serveVersions serves server and returns a stub of version with opts.
func serveVersions(t *testing.T, server goplugin.GRPCPlugin, version int, opts HostOptions) (*SessionClient, *grpc.Server) {
	t.Helper()
	return serveLife(t, t.Context(), server, version, opts)
}

// serveLife is serveVersions with life as the client's life, as
// go-plugin's: its end closes a link.
func serveLife(t *testing.T, life context.Context, server goplugin.GRPCPlugin, version int, opts HostOptions) (*SessionClient, *grpc.Server) {
	t.Helper()
	lis, err := net.Listen("unix", filepath.Join(t.TempDir(), "s"))
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	if err := server.GRPCServer(nil, srv); err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient("unix://"+lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(MaxMessageSize)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	stub, err := (&GRPCPlugin{Protocol: version, Host: opts}).GRPCClient(life, nil, conn)
	if err != nil {
		t.Fatal(err)
	}
	return stub.(*SessionClient), srv
}

// eachProtocol runs test over each of sessionProtocols.
func eachProtocol(t *testing.T, test func(t *testing.T, version int)) {
	for _, v := range sessionProtocols {
		t.Run(fmt.Sprintf("protocol%d", v), func(t *testing.T) { test(t, v) })
	}
}

// breakSession breaks c's open stream or link as a plugin's crash does:
// for a stream, the plugin's server stops; a link's reads end, as when
// its peer went.
func breakSession(t *testing.T, c *SessionClient, srv *grpc.Server) {
	t.Helper()
	c.mu.Lock()
	s := c.cur
	c.mu.Unlock()
	if l, ok := s.stream.(*hostLink); ok {
		if err := l.conn.(*net.UnixConn).CloseRead(); err != nil {
			t.Fatal(err)
		}
	}
	srv.Stop()
}

func newFake() *fakeTools {
	return &fakeTools{cancelled: make(chan string, 8), deadlines: make(chan time.Time, 1), release: make(chan struct{}), blocked: make(chan string, 8)}
}

// call runs one Call exchange and returns its text.
func call(ctx context.Context, c ToolPlugin, tool, id string) (string, error) {
	var text strings.Builder
	err := c.Call(ctx, &toolv1.CallRequest{Tool: tool, CallId: id}, func(ev *toolv1.CallEvent) error {
		text.Write(ev.GetChunk().GetData())
		return nil
	})
	return text.String(), err
}

// Exchanges of many calls share the stream at once; each gets its own
// answers, and cancelling one stops it alone.
func TestSessionMultiplexesAndCancelsPerCall(t *testing.T) { eachProtocol(t, multiplexesAndCancels) }

func multiplexesAndCancels(t *testing.T, version int) {
	fake := newFake()
	c, _ := serveSession(t, fake, version)
	bctx, cancelBlock := context.WithCancel(context.Background())
	blocked := make(chan error, 1)
	go func() {
		_, err := call(bctx, c, "Block", "b")
		blocked <- err
	}()
	var wg sync.WaitGroup
	for _, id := range []string{"a", "c", "d", "e", "f"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, err := c.Prepare(context.Background(), &toolv1.PrepareRequest{Tool: "Echo", CallId: id})
			if err != nil || p.GetDescribe() != "prepared "+id {
				t.Errorf("prepare %s: %v, %v", id, p, err)
			}
			if text, err := call(context.Background(), c, "Echo", id); err != nil || text != id {
				t.Errorf("call %s: %q, %v", id, text, err)
			}
		}()
	}
	wg.Wait()
	cancelBlock()
	if err := <-blocked; status.Code(err) != codes.Canceled {
		t.Fatalf("the cancelled call returned %v, want Canceled", err)
	}
	if id := <-fake.cancelled; id != "b" {
		t.Fatalf("the plugin saw %q cancelled", id)
	}
	if text, err := call(context.Background(), c, "Echo", "after"); err != nil || text != "after" {
		t.Fatalf("after a cancel: %q, %v", text, err)
	}
}

// Each way an exchange ends reads as its RPC would have ended.
func TestSessionEndsAsTheRPCs(t *testing.T) { eachProtocol(t, endsAsTheRPCs) }

func endsAsTheRPCs(t *testing.T, version int) {
	c, _ := serveSession(t, newFake(), version)
	ctx := context.Background()
	if _, err := c.Prepare(ctx, &toolv1.PrepareRequest{Tool: "PrepareError"}); status.Code(err) != codes.Internal {
		t.Fatalf("a Prepare error: %v", err)
	}
	if text, err := call(ctx, c, "NoFinal", "1"); !errors.Is(err, ErrNoFinal) || text != "partial" {
		t.Fatalf("a Call without Final: %q, %v", text, err)
	}
	if _, err := call(ctx, c, "StatusError", "2"); status.Code(err) != codes.Internal || status.Convert(err).Message() != "broken" {
		t.Fatalf("a Call's status: %v", err)
	}
	// Over the limit is refused for its call, and the stream goes on.
	if _, err := call(ctx, c, "Huge", "3"); status.Code(err) != codes.ResourceExhausted {
		t.Fatalf("a message over the limit: %v", err)
	}
	if text, err := call(ctx, c, "Echo", "4"); err != nil || text != "4" {
		t.Fatalf("after a refused message: %q, %v", text, err)
	}
	// A callback's error stops the call there.
	stop := errors.New("stop")
	if err := c.Call(ctx, &toolv1.CallRequest{Tool: "Echo"}, func(*toolv1.CallEvent) error { return stop }); !errors.Is(err, stop) {
		t.Fatalf("a callback's error: %v", err)
	}
}

// The host's deadline reaches the plugin's context.
func TestSessionCarriesTheDeadline(t *testing.T) { eachProtocol(t, carriesTheDeadline) }

func carriesTheDeadline(t *testing.T, version int) {
	fake := newFake()
	c, _ := serveSession(t, fake, version)
	want := time.Now().Add(time.Hour)
	ctx, cancel := context.WithDeadline(context.Background(), want)
	defer cancel()
	if _, err := c.Prepare(ctx, &toolv1.PrepareRequest{Tool: "Deadline"}); err != nil {
		t.Fatal(err)
	}
	if got := <-fake.deadlines; got.Before(want.Add(-time.Minute)) || got.After(want.Add(time.Second)) {
		t.Fatalf("the plugin's deadline is %v, want about %v", got, want)
	}
}

// A stream that breaks fails every open exchange as a crash (Unavailable),
// frames that came before it included.
func TestSessionBreakFailsOpenExchanges(t *testing.T) { eachProtocol(t, breakFailsOpenExchanges) }

func breakFailsOpenExchanges(t *testing.T, version int) {
	fake := newFake()
	c, srv := serveSession(t, fake, version)
	errs := make(chan error, 2)
	for _, id := range []string{"x", "y"} {
		go func() {
			_, err := call(context.Background(), c, "Block", id)
			errs <- err
		}()
	}
	// Both are open once Prepare answers behind them on the same stream.
	if _, err := c.Prepare(context.Background(), &toolv1.PrepareRequest{Tool: "Echo"}); err != nil {
		t.Fatal(err)
	}
	breakSession(t, c, srv)
	for range 2 {
		if err := <-errs; status.Code(err) != codes.Unavailable {
			t.Fatalf("an open call on a broken stream: %v, want Unavailable", err)
		}
	}
	if _, err := call(context.Background(), c, "Echo", "z"); status.Code(err) != codes.Unavailable {
		t.Fatalf("a call after the server went: %v, want Unavailable", err)
	}
}

// deaf serves Session streams that it never reads.
type deaf struct {
	toolv1.UnimplementedToolSessionServer
}

func (deaf) Session(stream toolv1.ToolSession_SessionServer) error {
	<-stream.Context().Done()
	return nil
}

// A plugin that stops reading its stream cannot hold a caller past its
// context: a send that the flow-control window blocks gives up on the
// stream after the grace, and one that gRPC queued waits for an answer
// only as long as its context lets it. What is still open ends when the
// plugin goes, as the host stops a plugin whose call ran out of time.
func TestSessionGivesUpOnAPluginThatStopsReading(t *testing.T) {
	lis, err := net.Listen("unix", filepath.Join(t.TempDir(), "s"))
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	toolv1.RegisterToolSessionServer(srv, deaf{})
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient("unix://"+lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	c := NewSessionClient(conn)
	c.grace = time.Millisecond
	// An exchange open before the stream jams, waiting for its answer.
	s, x, err := c.begin(context.Background(), &toolv1.SessionRequest{Frame: &toolv1.SessionRequest_Call{Call: &toolv1.CallRequest{Tool: "Echo"}}})
	if err != nil {
		t.Fatal(err)
	}
	// Each far over the stream's flow-control window.
	input := []byte(strings.Repeat("x", 8<<20))
	for i := range 3 {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		_, err := c.Prepare(ctx, &toolv1.PrepareRequest{Tool: "Echo", Input: input})
		cancel()
		if code := status.Code(err); code != codes.DeadlineExceeded && code != codes.Unavailable {
			t.Fatalf("Prepare %d on a jammed stream returned %v, want its deadline or Unavailable", i, err)
		}
	}
	srv.Stop()
	if _, err := s.next(context.Background(), x); status.Code(err) != codes.Unavailable {
		t.Fatalf("an exchange open when the plugin went: %v, want Unavailable", err)
	}
}
