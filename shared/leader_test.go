package shared

import (
	"context"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	toolv1 "github.com/riot-tools/riot/shared/proto/riot/tool/v1"
)

// Over protocol 3 a caller waiting for its exchange's frame reads the link
// itself (session.lead). These tests drive the paths where that reader
// meets other exchanges.

// manyTools adds Many to fakeTools: a Call of manyEvents chunks and a
// Final, sent as fast as the link takes them.
type manyTools struct{ *fakeTools }

const manyEvents = 8

func (m manyTools) Call(ctx context.Context, req *toolv1.CallRequest, send func(*toolv1.CallEvent) error) error {
	if req.GetTool() != "Many" {
		return m.fakeTools.Call(ctx, req, send)
	}
	for i := range manyEvents {
		if err := send(&toolv1.CallEvent{Event: &toolv1.CallEvent_Chunk{Chunk: &toolv1.Chunk{Kind: toolv1.BlockKind_BLOCK_KIND_TEXT, Data: fmt.Appendf(nil, "%d,", i)}}}); err != nil {
			return err
		}
	}
	return send(&toolv1.CallEvent{Event: &toolv1.CallEvent_Final{Final: &toolv1.Final{Status: toolv1.Status_STATUS_OK}}})
}

// current is c's open session.
func current(t *testing.T, c *SessionClient) *session {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cur == nil || c.cur.direct == nil {
		t.Fatal("no link is open")
	}
	return c.cur
}

// The caller that reads the link hands another exchange's frame to that
// exchange, and goes on reading for its own.
func TestLinkLeaderHandsOnOtherExchangesFrames(t *testing.T) {
	fake := newFake()
	c, _ := serveSession(t, fake, 3)
	ctx := context.Background()
	sa, xa, err := c.begin(ctx, &toolv1.SessionRequest{Frame: &toolv1.SessionRequest_Call{Call: &toolv1.CallRequest{Tool: "Block", CallId: "a"}}})
	if err != nil {
		t.Fatal(err)
	}
	<-fake.blocked
	sb, xb, err := c.begin(ctx, &toolv1.SessionRequest{Frame: &toolv1.SessionRequest_Prepare{Prepare: &toolv1.PrepareRequest{Tool: "Echo", CallId: "b"}}})
	if err != nil || sb != sa {
		t.Fatalf("the second exchange: %v, on the same session %v", err, sb == sa)
	}
	type result struct {
		f   *toolv1.SessionResponse
		err error
	}
	got := make(chan result, 1)
	go func() {
		f, err := sa.next(ctx, xa)
		got <- result{f, err}
	}()
	// Nobody but a's caller reads: b's answer reaches b's channel from it.
	f := <-xb.frames
	if f.GetPrepared().GetDescribe() != "prepared b" {
		t.Fatalf("b's frame: %v", f)
	}
	sb.finish(xb, false)
	close(fake.release)
	r := <-got
	if r.err != nil || string(r.f.GetEvent().GetChunk().GetData()) != "released a" {
		t.Fatalf("a's frame: %v, %v", r.f, r.err)
	}
	sa.finish(xa, true)
}

// A reading caller whose context ends leaves, and the role passes on: the
// next caller reads its own frames.
func TestLinkLeaderLeavingHandsTheReadingOn(t *testing.T) {
	fake := newFake()
	c, _ := serveSession(t, fake, 3)
	s, xa, err := c.begin(context.Background(), &toolv1.SessionRequest{Frame: &toolv1.SessionRequest_Call{Call: &toolv1.CallRequest{Tool: "Block", CallId: "a"}}})
	if err != nil {
		t.Fatal(err)
	}
	<-fake.blocked
	ctx, cancel := context.WithCancel(context.Background())
	<-s.role // a's caller reads: it holds the role
	left := make(chan error, 1)
	go func() {
		_, err, ok := s.lead(ctx, xa)
		if !ok {
			err = fmt.Errorf("lead found a frame of a's, which has none")
		}
		left <- err
	}()
	cancel()
	if err := <-left; status.Code(err) != codes.Canceled {
		t.Fatalf("the leaving reader: %v, want Canceled", err)
	}
	s.finish(xa, true)
	if id := <-fake.cancelled; id != "a" {
		t.Fatalf("the plugin saw %q cancelled", id)
	}
	for _, id := range []string{"b", "c"} {
		if text, err := call(context.Background(), c, "Echo", id); err != nil || text != id {
			t.Fatalf("a call after the reader left: %q, %v", text, err)
		}
	}
	if len(s.role) != 1 {
		t.Fatal("the role is not free after the calls")
	}
}

// A reader held up by a consumer whose buffer is full leaves when its own
// caller does, and the consumer still gets every frame in order.
func TestLinkLeaderLeavesASlowConsumerItsFrames(t *testing.T) {
	fake := newFake()
	c, _ := serveSession(t, manyTools{fake}, 3)
	first, resume := make(chan struct{}), make(chan struct{})
	slow := make(chan string, 1)
	go func() {
		text, err := callEach(context.Background(), c, "Many", func(n int) {
			if n == 1 {
				close(first)
				<-resume
			}
		})
		if err != nil {
			text = err.Error()
		}
		slow <- text
	}()
	<-first // the slow caller reads no more until resumed
	s := current(t, c)
	bctx, cancel := context.WithCancel(context.Background())
	blocked := make(chan error, 1)
	go func() {
		_, err := call(bctx, c, "Block", "b")
		blocked <- err
	}()
	<-fake.blocked
	cancel()
	if err := <-blocked; status.Code(err) != codes.Canceled {
		t.Fatalf("the call behind a slow consumer: %v, want Canceled", err)
	}
	close(resume)
	want := ""
	for i := range manyEvents {
		want += fmt.Sprintf("%d,", i)
	}
	if got := <-slow; got != want {
		t.Fatalf("the slow consumer read %q, want %q", got, want)
	}
	if text, err := call(context.Background(), c, "Echo", "after"); err != nil || text != "after" {
		t.Fatalf("a call after: %q, %v", text, err)
	}
	if len(s.role) != 1 {
		t.Fatal("the role is not free after the calls")
	}
}

// callEach is call with each(n) run after the nth event is handed on.
func callEach(ctx context.Context, c ToolPlugin, tool string, each func(n int)) (string, error) {
	var text []byte
	n := 0
	err := c.Call(ctx, &toolv1.CallRequest{Tool: tool}, func(ev *toolv1.CallEvent) error {
		text = append(text, ev.GetChunk().GetData()...)
		n++
		each(n)
		return nil
	})
	return string(text), err
}

// A read interrupted inside a frame, in its length or in its bytes, goes
// on from there at the next read: nothing is lost or read twice.
func TestFrameReaderResumesAfterAnInterruption(t *testing.T) {
	// Over 127 bytes: a length of two bytes, so that the first cut falls
	// inside it.
	want := &toolv1.SessionResponse{Id: 300, Frame: &toolv1.SessionResponse_End{End: &toolv1.End{Code: 2, Message: strings.Repeat("m", 200)}}}
	body, err := proto.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	wire := frame(body)
	for _, cut := range []int{1, 2, 40} {
		t.Run(fmt.Sprint(cut), func(t *testing.T) {
			host, plugin := net.Pipe()
			defer host.Close()
			defer plugin.Close()
			r := newFrameReader(host)
			wrote := make(chan error, 1)
			go func() {
				// A pipe's write returns once the reader has the bytes:
				// then the reader, waiting for the rest, is interrupted.
				_, err := plugin.Write(wire[:cut])
				_ = host.SetReadDeadline(time.Unix(1, 0))
				wrote <- err
			}()
			got := &toolv1.SessionResponse{}
			if err := r.read(got); !os.IsTimeout(err) {
				t.Fatalf("an interrupted read: %v, want a timeout", err)
			}
			if err := <-wrote; err != nil {
				t.Fatal(err)
			}
			_ = host.SetReadDeadline(time.Time{})
			go func() {
				_, err := plugin.Write(wire[cut:])
				wrote <- err
			}()
			if err := r.read(got); err != nil || !proto.Equal(got, want) {
				t.Fatalf("the resumed read: %v, %v", got, err)
			}
			if err := <-wrote; err != nil {
				t.Fatal(err)
			}
		})
	}
}
