package shared

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	toolv1 "github.com/riot-tools/riot/shared/proto/riot/tool/v1"
)

// frame is b as one frame: its uvarint length, then b.
func frame(b []byte) []byte { return append(binary.AppendUvarint(nil, uint64(len(b))), b...) }

// Frames written are the frames read, in order, and a clean end between
// frames is io.EOF.
func TestFramesRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	w := newFrameWriter(&buf)
	sent := []*toolv1.SessionResponse{
		{Id: 1, Frame: &toolv1.SessionResponse_Prepared{Prepared: &toolv1.PrepareResponse{Describe: "d"}}},
		{Id: 2, Frame: &toolv1.SessionResponse_Event{Event: &toolv1.CallEvent{Event: &toolv1.CallEvent_Chunk{Chunk: &toolv1.Chunk{Data: bytes.Repeat([]byte("x"), 3*reuseBelow)}}}}},
		{Id: 3},
		{Id: 4, Frame: &toolv1.SessionResponse_End{End: &toolv1.End{Code: 13, Message: "m"}}},
	}
	for _, f := range sent {
		if err := w.write(f); err != nil {
			t.Fatal(err)
		}
	}
	r := newFrameReader(&buf)
	for i, want := range sent {
		got := &toolv1.SessionResponse{}
		if err := r.read(got); err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if !proto.Equal(got, want) {
			t.Fatalf("frame %d: %v, want %v", i, got, want)
		}
	}
	if err := r.read(&toolv1.SessionResponse{}); !errors.Is(err, io.EOF) {
		t.Fatalf("after the last frame: %v, want io.EOF", err)
	}
}

// A frame that is not whole or not right ends the connection with the
// status protocol 2's stream would have ended with: over the limit is
// ResourceExhausted, malformed Internal, cut short a broken connection.
func TestFrameFaults(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []byte
		code codes.Code
	}{
		{"a length over the limit", binary.AppendUvarint(nil, MaxMessageSize+1), codes.ResourceExhausted},
		{"the largest length", binary.AppendUvarint(nil, 1<<64-1), codes.ResourceExhausted},
		{"a varint of eleven bytes", bytes.Repeat([]byte{0x80}, 11), codes.Internal},
		{"a tenth varint byte past 64 bits", append(bytes.Repeat([]byte{0xff}, 9), 0x02), codes.Internal},
		{"bytes that are no message", frame([]byte{0xff, 0xff, 0xff}), codes.Internal},
		{"a length cut short", []byte{0x80}, codes.Unavailable},
		{"a frame cut short", frame([]byte("abc"))[:3], codes.Unavailable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := readError(newFrameReader(bytes.NewReader(tc.in)).read(&toolv1.SessionResponse{}))
			if status.Code(err) != tc.code {
				t.Fatalf("%v, want %v", err, tc.code)
			}
		})
	}
	// The limit itself is a frame's size, not past it.
	r := newFrameReader(bytes.NewReader(binary.AppendUvarint(nil, MaxMessageSize)))
	if _, err := r.next(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("a frame of the limit's size cut short: %v, want it read as a frame", err)
	}
}

// A message over the limit is refused before a byte of it is written, and
// the writer goes on.
func TestFrameWriterRefusesOverTheLimit(t *testing.T) {
	var buf bytes.Buffer
	w := newFrameWriter(&buf)
	huge := &toolv1.SessionRequest{Frame: &toolv1.SessionRequest_Prepare{Prepare: &toolv1.PrepareRequest{Input: make([]byte, MaxMessageSize)}}}
	if err := w.write(huge); status.Code(err) != codes.ResourceExhausted {
		t.Fatalf("a message over the limit: %v", err)
	}
	if buf.Len() != 0 {
		t.Fatalf("%d bytes of it were written", buf.Len())
	}
	if err := w.write(&toolv1.SessionRequest{Id: 7}); err != nil {
		t.Fatal(err)
	}
	got := &toolv1.SessionRequest{}
	if err := newFrameReader(&buf).read(got); err != nil || got.GetId() != 7 {
		t.Fatalf("the next frame: %v, %v", got, err)
	}
}

// rawLink is a plugin's ToolLink that connects, sends the token and then
// the bytes of send, whatever they are.
type rawLink struct {
	toolv1.UnimplementedToolLinkServer
	send  []byte
	conns chan net.Conn
}

func (r rawLink) Link(ctx context.Context, req *toolv1.LinkRequest) (*toolv1.LinkResponse, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", req.GetPath())
	if err != nil {
		return nil, err
	}
	r.conns <- conn
	if err := newFrameWriter(conn).writeRaw(req.GetToken()); err != nil {
		return nil, err
	}
	// After the answer, so that the host reads it as the session's.
	go func() {
		<-ctx.Done()
		_, _ = conn.Write(r.send)
		_ = conn.(*net.UnixConn).CloseWrite()
	}()
	return &toolv1.LinkResponse{}, nil
}

// A plugin that sends a frame over the limit or a malformed one on its
// link fails the open exchanges with the fault's status, as over its
// stream, and the link is closed.
func TestLinkFaultsFailOpenExchanges(t *testing.T) {
	for _, tc := range []struct {
		name string
		send []byte
		code codes.Code
		why  string
	}{
		{"over the limit", binary.AppendUvarint(nil, MaxMessageSize+1), codes.ResourceExhausted, "over the limit"},
		{"malformed", frame([]byte{0xff}), codes.Internal, "malformed frame"},
		{"cut short", []byte{0x85}, codes.Unavailable, "broke"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw := rawLink{send: tc.send, conns: make(chan net.Conn, 1)}
			server := &withLink{GRPCPlugin: GRPCPlugin{Impl: newFake(), Protocol: 2}, link: raw}
			c, _ := serveVersions(t, server, 3, HostOptions{LinkDir: t.TempDir()})
			linkUp(t, c)
			_, err := call(context.Background(), c, "Echo", "a")
			conn := <-raw.conns
			defer conn.Close()
			if status.Code(err) != tc.code || !strings.Contains(err.Error(), tc.why) {
				t.Fatalf("the open call: %v, want %v saying %q", err, tc.code, tc.why)
			}
			// The host closed its end: the plugin reads the end.
			if _, err := io.ReadAll(conn); err != nil {
				t.Fatalf("the plugin's end after the fault: %v", err)
			}
		})
	}
}

// FuzzFrameReader: any bytes on a link either decode to frames that
// encode back to the same messages, or end with one of the faults the
// host knows; the reader never panics and never reads a frame over the
// limit.
func FuzzFrameReader(f *testing.F) {
	var seed bytes.Buffer
	w := newFrameWriter(&seed)
	_ = w.write(&toolv1.SessionResponse{Id: 1, Frame: &toolv1.SessionResponse_Event{Event: &toolv1.CallEvent{Event: &toolv1.CallEvent_Final{Final: &toolv1.Final{Status: toolv1.Status_STATUS_OK}}}}})
	_ = w.write(&toolv1.SessionResponse{Id: 2, Frame: &toolv1.SessionResponse_End{End: &toolv1.End{Code: 2}}})
	f.Add(seed.Bytes())
	f.Add(binary.AppendUvarint(nil, MaxMessageSize+1))
	f.Add(bytes.Repeat([]byte{0x80}, 11))
	f.Add(frame([]byte{0xff}))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, in []byte) {
		r := newFrameReader(bytes.NewReader(in))
		for {
			got := &toolv1.SessionResponse{}
			err := r.read(got)
			if err != nil {
				switch st := status.Convert(readError(err)); {
				case errors.Is(err, io.EOF):
				case st.Code() == codes.ResourceExhausted, st.Code() == codes.Internal, st.Code() == codes.Unavailable:
				default:
					t.Fatalf("an unknown fault: %v", err)
				}
				return
			}
			var again bytes.Buffer
			if err := newFrameWriter(&again).write(got); err != nil {
				t.Fatalf("a decoded frame does not encode: %v", err)
			}
			back := &toolv1.SessionResponse{}
			if err := newFrameReader(&again).read(back); err != nil || !proto.Equal(back, got) {
				t.Fatalf("re-encoded %v reads as %v, %v", got, back, err)
			}
		}
	})
}
