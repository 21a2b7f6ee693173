package shared

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	toolv1 "github.com/riot-tools/riot/shared/proto/riot/tool/v1"
)

// A link opens in the background while the first exchanges run on the
// gRPC stream; these tests hold its opening on the plugin's side and
// watch the exchanges move to it.

// heldLink is a plugin's ToolLink that holds each Link RPC until the test
// lets it go on to the SDK's LinkServer.
type heldLink struct {
	toolv1.UnimplementedToolLinkServer
	inner *LinkServer
	// started receives when a Link RPC arrives.
	started chan struct{}
	// release lets one held RPC go on per value; closed, every one.
	release chan struct{}
	// left receives when a held RPC's host gave up on it.
	left chan struct{}
}

func newHeldLink(impl ToolPlugin) *heldLink {
	return &heldLink{inner: &LinkServer{Sessions: &SessionServer{Impl: impl}}, started: make(chan struct{}, 8), release: make(chan struct{}, 8), left: make(chan struct{}, 8)}
}

func (h *heldLink) Link(ctx context.Context, req *toolv1.LinkRequest) (*toolv1.LinkResponse, error) {
	h.started <- struct{}{}
	select {
	case <-h.release:
		return h.inner.Link(ctx, req)
	case <-ctx.Done():
		h.left <- struct{}{}
		return nil, ctx.Err()
	}
}

// heldHost is a client of a plugin whose link is held.
type heldHost struct {
	c    *SessionClient
	held *heldLink
	// dir is where its links are made; log has its debug records.
	dir string
	log *syncBuffer
}

// serveHeld serves impl over protocol 3 with a held link.
func serveHeld(t *testing.T, life context.Context, impl ToolPlugin) heldHost {
	t.Helper()
	h := heldHost{held: newHeldLink(impl), dir: t.TempDir(), log: &syncBuffer{}}
	log := hclog.New(&hclog.LoggerOptions{Level: hclog.Debug, Output: h.log})
	h.c, _ = serveLife(t, life, &withLink{GRPCPlugin: GRPCPlugin{Impl: impl, Protocol: 2}, link: h.held}, 3, HostOptions{LinkDir: h.dir, Log: log})
	h.c.ExpectPeer(os.Getpid())
	return h
}

// syncBuffer is a log's output that the test reads while it is written.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// echoOn runs an Echo call as Call does and says which connection carried
// it: "link" or "stream".
func echoOn(t *testing.T, c *SessionClient, id string) string {
	t.Helper()
	on, err := tryEchoOn(c, id)
	if err != nil {
		t.Fatal(err)
	}
	return on
}

func tryEchoOn(c *SessionClient, id string) (string, error) {
	ctx := context.Background()
	s, x, err := c.begin(ctx, &toolv1.SessionRequest{Frame: &toolv1.SessionRequest_Call{Call: &toolv1.CallRequest{Tool: "Echo", CallId: id}}})
	if err != nil {
		return "", fmt.Errorf("call %s: %w", id, err)
	}
	var text []byte
	for {
		f, err := s.next(ctx, x)
		if err != nil {
			s.finish(x, true)
			return "", fmt.Errorf("call %s: %w", id, err)
		}
		text = append(text, f.GetEvent().GetChunk().GetData()...)
		if f.GetEvent().GetFinal() != nil {
			break
		}
	}
	s.finish(x, false)
	if string(text) != id {
		return "", fmt.Errorf("call %s answered %q", id, text)
	}
	if s.direct != nil {
		return "link", nil
	}
	return "stream", nil
}

// onStream runs n Echo calls, each of which must run on the stream.
func onStream(t *testing.T, c *SessionClient, n int) {
	t.Helper()
	for i := range n {
		if got := echoOn(t, c, fmt.Sprint("s", i)); got != "stream" {
			t.Fatalf("call %d ran on the %s, want the stream", i, got)
		}
	}
}

// curSession is c's current session.
func curSession(c *SessionClient) *session {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cur
}

// The first linkAfter exchanges run on the stream with no link asked
// for; the next one starts its opening, and runs on the stream too, as do
// the exchanges while the opening is held; once it opens, the next ones
// run on the link, and the stream, with no exchange open, ends. No
// exchange waited for the link.
func TestLinkOpensBehindTheFirstExchanges(t *testing.T) {
	h := serveHeld(t, t.Context(), newFake())
	c, held, dir := h.c, h.held, h.dir
	onStream(t, c, linkAfter)
	c.mu.Lock()
	early := c.linking
	c.mu.Unlock()
	if early != nil || len(held.started) != 0 {
		t.Fatalf("a link was asked for within the first %d exchanges", linkAfter)
	}
	if p, err := c.Prepare(context.Background(), &toolv1.PrepareRequest{Tool: "Echo", CallId: "p"}); err != nil || p.GetDescribe() != "prepared p" {
		t.Fatalf("the first exchange: %v, %v", p, err)
	}
	<-held.started // the link is opening, and held
	if got := echoOn(t, c, "a"); got != "stream" {
		t.Fatalf("a call while the link opens ran on the %s, want the stream", got)
	}
	// A stream that breaks while the link opens is opened again, and
	// the opening goes on: there is one.
	c.mu.Lock()
	opening := c.linking
	c.mu.Unlock()
	curSession(c).end(errLinkBroken)
	if got := echoOn(t, c, "a2"); got != "stream" {
		t.Fatalf("a call on the next stream ran on the %s, want the stream", got)
	}
	c.mu.Lock()
	again := c.linking
	c.mu.Unlock()
	if again != opening {
		t.Fatal("the new stream started another opening")
	}
	stream := curSession(c)
	held.release <- struct{}{}
	settle(c)
	if got := echoOn(t, c, "b"); got != "link" {
		t.Fatalf("a call after the link opened ran on the %s, want the link", got)
	}
	<-stream.done
	if !errors.Is(stream.err, errRetired) {
		t.Fatalf("the stream ended with %v, want its retirement", stream.err)
	}
	if left := entries(t, dir); len(left) != 0 {
		t.Fatalf("the link left %v in its directory", left)
	}
}

// gatedTools adds Gated to fakeTools: a Call of gatedChunks chunks that
// stops after the first half until rest is closed.
type gatedTools struct {
	*fakeTools
	half, rest chan struct{}
}

const gatedChunks = 2000

func (g gatedTools) Call(ctx context.Context, req *toolv1.CallRequest, send func(*toolv1.CallEvent) error) error {
	if req.GetTool() != "Gated" {
		return g.fakeTools.Call(ctx, req, send)
	}
	for i := range gatedChunks {
		if i == gatedChunks/2 {
			close(g.half)
			<-g.rest
		}
		if err := send(&toolv1.CallEvent{Event: &toolv1.CallEvent_Chunk{Chunk: &toolv1.Chunk{Kind: toolv1.BlockKind_BLOCK_KIND_TEXT, Data: fmt.Appendf(nil, "%d,", i)}}}); err != nil {
			return err
		}
	}
	return send(&toolv1.CallEvent{Event: &toolv1.CallEvent_Final{Final: &toolv1.Final{Status: toolv1.Status_STATUS_OK}}})
}

// A Call streaming on the stream when the link opens stays there, whole
// and in order, while new exchanges run on the link; the stream ends
// after it, not before.
func TestLinkLeavesAnOpenCallOnItsStream(t *testing.T) {
	gated := gatedTools{fakeTools: newFake(), half: make(chan struct{}), rest: make(chan struct{})}
	h := serveHeld(t, t.Context(), gated)
	c, held := h.c, h.held
	onStream(t, c, linkAfter)
	type result struct {
		text string
		err  error
	}
	done := make(chan result, 1)
	go func() {
		text, err := call(context.Background(), c, "Gated", "g")
		done <- result{text, err}
	}()
	<-gated.half
	stream := curSession(c)
	if stream.direct != nil {
		t.Fatal("the call began on the link, want the stream")
	}
	close(held.release)
	settle(c)
	if got := echoOn(t, c, "b"); got != "link" {
		t.Fatalf("a call after the link opened ran on the %s, want the link", got)
	}
	select {
	case <-stream.done:
		t.Fatal("the stream ended under an open call")
	default:
	}
	close(gated.rest)
	var want strings.Builder
	for i := range gatedChunks {
		fmt.Fprintf(&want, "%d,", i)
	}
	if r := <-done; r.err != nil || r.text != want.String() {
		t.Fatalf("the call on the stream: %v, %d bytes, want %d", r.err, len(r.text), want.Len())
	}
	<-stream.done
	if !errors.Is(stream.err, errRetired) {
		t.Fatalf("the stream ended with %v, want its retirement", stream.err)
	}
	if got := echoOn(t, c, "c"); got != "link" {
		t.Fatalf("a call after the stream ended ran on the %s, want the link", got)
	}
}

// Many callers at once while the link opens: each call completes, those
// begun while it was held ran on the stream, and the last of each caller
// runs on the link.
func TestLinkSwitchUnderConcurrentExchanges(t *testing.T) {
	h := serveHeld(t, t.Context(), newFake())
	c, held := h.c, h.held
	const callers = 24
	var before, during sync.WaitGroup
	stop := make(chan struct{})
	errs := make(chan error, callers)
	before.Add(callers)
	during.Add(callers)
	for i := range callers {
		go func() {
			defer during.Done()
			fail := func(err error) {
				errs <- err
			}
			for j := range 3 {
				on, err := tryEchoOn(c, fmt.Sprintf("%d.%d", i, j))
				if err == nil && on != "stream" {
					err = fmt.Errorf("a call while the link was held ran on the %s", on)
				}
				if err != nil {
					fail(err)
					before.Done()
					return
				}
			}
			before.Done()
			for j := 0; ; j++ {
				select {
				case <-stop:
					on, err := tryEchoOn(c, fmt.Sprintf("%d.last", i))
					if err == nil && on != "link" {
						err = fmt.Errorf("a call after the link opened ran on the %s", on)
					}
					if err != nil {
						fail(err)
					}
					return
				default:
				}
				if _, err := tryEchoOn(c, fmt.Sprintf("%d.during.%d", i, j)); err != nil {
					fail(err)
					return
				}
			}
		}()
	}
	before.Wait()
	stream := curSession(c)
	close(held.release)
	settle(c)
	close(stop)
	during.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	<-stream.done
}

// A link that fails to open leaves the client on the stream for good: the
// next session is a stream, and no link is tried again.
func TestLinkThatFailsLeavesTheStream(t *testing.T) {
	fake := newFake()
	held := newHeldLink(fake)
	c, _ := serveVersions(t, &withLink{GRPCPlugin: GRPCPlugin{Impl: fake, Protocol: 2}, link: held}, 3, HostOptions{LinkDir: t.TempDir()})
	// Another process than this one: the host refuses the connection.
	c.ExpectPeer(os.Getpid() + 1)
	close(held.release)
	onStream(t, c, linkAfter+1)
	settle(c)
	if got := echoOn(t, c, "b"); got != "stream" {
		t.Fatalf("a call after the link failed ran on the %s, want the stream", got)
	}
	// A new stream after this one breaks starts no opening.
	curSession(c).end(errLinkBroken)
	if got := echoOn(t, c, "c"); got != "stream" {
		t.Fatalf("a call on the next session ran on the %s, want the stream", got)
	}
	c.mu.Lock()
	linking, again := c.linking, c.link
	c.mu.Unlock()
	if linking != nil || again != nil {
		t.Fatal("the client tries the link again")
	}
	if n := len(held.started); n != 1 {
		t.Fatalf("%d links were asked for, want 1", n)
	}
}

// A link that breaks after it opened is opened again as the first was:
// the next session is a stream at once, and the link behind it, from that
// stream's first exchange on, since the client is past linkAfter. The
// call that found it broken fails as over a broken stream.
func TestLinkReopensBehindAStream(t *testing.T) {
	h := serveHeld(t, t.Context(), newFake())
	c, held := h.c, h.held
	held.release <- struct{}{}
	onStream(t, c, linkAfter+1)
	settle(c)
	link := curSession(c)
	if link.direct == nil {
		t.Fatal("the link did not open")
	}
	link.direct.close()
	if _, err := tryEchoOn(c, "b"); status.Code(err) != codes.Unavailable {
		t.Fatalf("a call on the broken link: %v, want Unavailable", err)
	}
	if got := echoOn(t, c, "c"); got != "stream" {
		t.Fatalf("the call after the break ran on the %s, want the stream", got)
	}
	<-held.started
	<-held.started // the second opening, held
	held.release <- struct{}{}
	settle(c)
	if got := echoOn(t, c, "d"); got != "link" {
		t.Fatalf("a call after the link reopened ran on the %s, want the link", got)
	}
}

// The client's close while its link opens abandons the opening: the
// plugin's RPC ends, no socket or directory is left, and the opening's
// goroutines have returned.
func TestLinkOpeningAbandonedByTheClose(t *testing.T) {
	life, end := context.WithCancel(context.Background())
	defer end()
	h := serveHeld(t, life, newFake())
	c, held, dir := h.c, h.held, h.dir
	onStream(t, c, linkAfter+1)
	<-held.started
	c.mu.Lock()
	opening := c.linking
	c.mu.Unlock()
	if opening == nil {
		t.Fatal("no link is opening")
	}
	end()
	<-opening
	<-held.left
	if left := entries(t, dir); len(left) != 0 {
		t.Fatalf("the abandoned opening left %v", left)
	}
	buf := make([]byte, 1<<20)
	if stacks := buf[:runtime.Stack(buf, true)]; bytes.Contains(stacks, []byte("(*linker).open(")) {
		t.Fatalf("the opening still runs:\n%s", stacks)
	}
	if log := h.log.String(); !strings.Contains(log, "abandoned opening the plugin's session link") || strings.Contains(log, "cannot open") {
		t.Fatalf("the log does not say the opening was abandoned:\n%s", log)
	}
	if _, err := tryEchoOn(c, "b"); !errors.Is(err, errClientClosed) {
		t.Fatalf("a call after the close: %v", err)
	}
	c.mu.Lock()
	cur := c.cur
	c.mu.Unlock()
	if cur.direct != nil {
		t.Fatal("the abandoned link became the session")
	}
}

// A client of protocol 2 opens no link, even from a plugin that serves
// one.
func TestSessionOverProtocol2OpensNoLink(t *testing.T) {
	fake := newFake()
	held := newHeldLink(fake)
	close(held.release)
	c, _ := serveVersions(t, &withLink{GRPCPlugin: GRPCPlugin{Impl: fake, Protocol: 2}, link: held}, 2, HostOptions{LinkDir: t.TempDir()})
	onStream(t, c, linkAfter+1)
	c.mu.Lock()
	linking := c.linking
	c.mu.Unlock()
	if linking != nil || len(held.started) != 0 {
		t.Fatal("a protocol 2 client opens a link")
	}
}
