package shared

import (
	"context"
	"net"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	toolv1 "github.com/riot-tools/riot/shared/proto/riot/tool/v1"
)

// writeCounter is a plugin's end of a link that counts its writes.
type writeCounter struct {
	net.Conn
	writes atomic.Int64
}

func (w *writeCounter) Write(p []byte) (int, error) {
	w.writes.Add(1)
	return w.Conn.Write(p)
}

// linkPair is a host's link served by impl's SessionServer over a Unix
// socket, and the plugin's end, whose writes it counts.
func linkPair(t *testing.T, impl ToolPlugin) (*hostLink, *writeCounter) {
	t.Helper()
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: filepath.Join(t.TempDir(), "s"), Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	plugin, err := net.Dial("unix", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	host, err := ln.AcceptUnix()
	if err != nil {
		t.Fatal(err)
	}
	counted := &writeCounter{Conn: plugin}
	served := make(chan struct{})
	go func() {
		defer close(served)
		(&SessionServer{Impl: impl}).serveConn(context.Background(), newPluginLink(counted))
	}()
	t.Cleanup(func() {
		_ = host.Close()
		<-served
		_ = plugin.Close()
	})
	return newHostLink(host, newFrameReader(host)), counted
}

// outcomeTools' Call sends two blocks and then ends as its tool says,
// holding them first unless the tool is "Unheld"; Stream sends a block,
// unheld, and waits until the host has it before its Final.
type outcomeTools struct {
	fakeTools
	seen chan struct{}
}

func chunk(text string) *toolv1.CallEvent {
	return &toolv1.CallEvent{Event: &toolv1.CallEvent_Chunk{Chunk: &toolv1.Chunk{Kind: toolv1.BlockKind_BLOCK_KIND_TEXT, Data: []byte(text)}}}
}

var finalOK = &toolv1.CallEvent{Event: &toolv1.CallEvent_Final{Final: &toolv1.Final{Status: toolv1.Status_STATUS_OK}}}

func (o *outcomeTools) Call(ctx context.Context, req *toolv1.CallRequest, send func(*toolv1.CallEvent) error) error {
	if req.GetTool() == "Stream" {
		if err := send(chunk("streamed")); err != nil {
			return err
		}
		select {
		case <-o.seen:
		case <-ctx.Done():
			return ctx.Err()
		}
		return send(finalOK)
	}
	if req.GetTool() != "Unheld" {
		HoldUntilFinal(ctx)
	}
	for _, text := range []string{"a", "b"} {
		if err := send(chunk(text)); err != nil {
			return err
		}
	}
	if req.GetTool() == "Fails" {
		return status.Error(codes.Internal, "broken after its blocks")
	}
	return send(finalOK)
}

// callOver sends one Call and reads its frames until its Final or End.
func callOver(t *testing.T, l *hostLink, id uint64, tool string, each func(*toolv1.SessionResponse)) []*toolv1.SessionResponse {
	t.Helper()
	if err := l.Send(&toolv1.SessionRequest{Id: id, Frame: &toolv1.SessionRequest_Call{Call: &toolv1.CallRequest{Tool: tool}}}); err != nil {
		t.Fatal(err)
	}
	// A bound for a failure (a frame held for ever), not a wait.
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	var got []*toolv1.SessionResponse
	for {
		f, err := l.recvUntil(ctx)
		if err != nil {
			t.Fatalf("%s: %v after %d frames", tool, err, len(got))
		}
		if f.GetId() != id {
			t.Fatalf("%s: a frame of exchange %d", tool, f.GetId())
		}
		got = append(got, f)
		if each != nil {
			each(f)
		}
		if f.GetEvent().GetFinal() != nil || f.GetEnd() != nil {
			return got
		}
	}
}

// A Call's outcome, held, goes out with its Final in one write; unheld,
// each frame is a write of its own. Either way the host reads the same
// frames in the same order.
func TestLinkWritesAnOutcomeWithItsFinal(t *testing.T) {
	for _, tc := range []struct {
		tool   string
		writes int64
	}{{"Held", 1}, {"Unheld", 3}} {
		t.Run(tc.tool, func(t *testing.T) {
			l, w := linkPair(t, &outcomeTools{})
			got := callOver(t, l, 1, tc.tool, nil)
			if n := w.writes.Load(); n != tc.writes {
				t.Fatalf("the plugin wrote the outcome in %d writes, want %d", n, tc.writes)
			}
			if len(got) != 3 || string(got[0].GetEvent().GetChunk().GetData()) != "a" ||
				string(got[1].GetEvent().GetChunk().GetData()) != "b" || got[2].GetEvent().GetFinal() == nil {
				t.Fatalf("the host read %v", got)
			}
		})
	}
}

// A Call that fails after holding its blocks still delivers them, with
// its End, in one write: nothing held is left behind.
func TestLinkHeldFramesGoWithTheEnd(t *testing.T) {
	l, w := linkPair(t, &outcomeTools{})
	got := callOver(t, l, 1, "Fails", nil)
	if len(got) != 3 || string(got[1].GetEvent().GetChunk().GetData()) != "b" {
		t.Fatalf("the host read %v", got)
	}
	if err := endError(got[2].GetEnd()); status.Code(err) != codes.Internal {
		t.Fatalf("the exchange ended with %v, want the tool's Internal error", err)
	}
	if n := w.writes.Load(); n != 1 {
		t.Fatalf("the plugin wrote %d times, want once", n)
	}
}

// Output a Call streams before its outcome is never held: the host has it
// while the tool still runs. (Held, the tool would wait for ever.)
func TestLinkStreamedOutputIsNotHeld(t *testing.T) {
	o := &outcomeTools{seen: make(chan struct{})}
	l, _ := linkPair(t, o)
	got := callOver(t, l, 1, "Stream", func(f *toolv1.SessionResponse) {
		if f.GetEvent().GetChunk() != nil {
			close(o.seen)
		}
	})
	if len(got) != 2 || got[1].GetEvent().GetFinal() == nil {
		t.Fatalf("the host read %v", got)
	}
}

// Over a Session stream (protocol 2) holding does nothing, and a context
// that belongs to no exchange holds nothing either.
func TestHoldWithoutALink(t *testing.T) {
	HoldUntilFinal(context.Background()) // no exchange's: nothing to hold, no panic
	c, _ := serveSession(t, &outcomeTools{}, 2)
	text, err := call(context.Background(), c, "Held", "a")
	if err != nil || text != "ab" {
		t.Fatalf("over the stream: %q, %v", text, err)
	}
	ctx, hold := withHold(context.Background())
	if hold.on.Load() {
		t.Fatal("a new exchange holds before it is told to")
	}
	HoldUntilFinal(ctx)
	if !hold.on.Load() {
		t.Fatal("HoldUntilFinal did not reach its exchange")
	}
}
