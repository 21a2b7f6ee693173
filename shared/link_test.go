package shared

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	goplugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	toolv1 "github.com/riot-tools/riot/shared/proto/riot/tool/v1"
)

// transport is what carries c's open session: "link" or "stream".
func transport(c *SessionClient) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cur == nil {
		return "none"
	}
	if _, ok := c.cur.stream.(*hostLink); ok {
		return "link"
	}
	return "stream"
}

// entries lists dir, which the test made.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, de := range des {
		names = append(names, de.Name())
	}
	return names
}

// Over protocol 3 the exchanges run on the link, and the socket and its
// directory are gone once it is open.
func TestLinkCarriesTheExchanges(t *testing.T) {
	dir := t.TempDir()
	c, _ := serveVersions(t, &GRPCPlugin{Impl: newFake(), Protocol: 3}, 3, HostOptions{LinkDir: dir})
	c.ExpectPeer(os.Getpid())
	for i := range linkAfter + 2 {
		id := fmt.Sprint(i)
		if text, err := call(context.Background(), c, "Echo", id); err != nil || text != id {
			t.Fatalf("call %s: %q, %v", id, text, err)
		}
		settle(c)
	}
	if got := transport(c); got != "link" {
		t.Fatalf("the exchanges ran on the %s, want the link", got)
	}
	if left := entries(t, dir); len(left) != 0 {
		t.Fatalf("the link left %v in its directory", left)
	}
}

// wrongToken is a plugin's ToolLink that connects and sends mangle of
// the host's token instead of it.
type wrongToken struct {
	toolv1.UnimplementedToolLinkServer
	conns  chan net.Conn
	mangle func([]byte) []byte
}

func (w wrongToken) Link(ctx context.Context, req *toolv1.LinkRequest) (*toolv1.LinkResponse, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", req.GetPath())
	if err != nil {
		return nil, err
	}
	w.conns <- conn
	token := w.mangle(append([]byte(nil), req.GetToken()...))
	if err := newFrameWriter(conn).writeRaw(token); err != nil {
		return nil, err
	}
	return &toolv1.LinkResponse{}, nil
}

// withLink is a server of protocol 2 with link as its ToolLink.
type withLink struct {
	GRPCPlugin
	link toolv1.ToolLinkServer
}

func (w *withLink) GRPCServer(b *goplugin.GRPCBroker, s *grpc.Server) error {
	if w.link != nil {
		toolv1.RegisterToolLinkServer(s, w.link)
	}
	return w.GRPCPlugin.GRPCServer(b, s)
}

// A link is not opened, and the host keeps the plugin's Session stream,
// when: the host cannot listen (a socket path past the kernel's limit),
// the plugin cannot or will not connect (here it serves no ToolLink, as
// where Unix sockets are denied it), the connection's first frame is not
// the token, or its process is not the plugin's. Each check is tested
// alone: everything else in its case is right.
func TestLinkFallsBackToTheStream(t *testing.T) {
	long := filepath.Join(t.TempDir(), strings.Repeat("d", 120))
	if err := os.Mkdir(long, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		link func(*SessionServer) toolv1.ToolLinkServer
		dir  string
		pid  int
		want string
	}{
		{name: "the host cannot listen", dir: long, pid: os.Getpid(), link: func(s *SessionServer) toolv1.ToolLinkServer { return &LinkServer{Sessions: s} }, want: "listen"},
		{name: "the plugin serves no link", pid: os.Getpid(), want: "Unimplemented"},
		{name: "the wrong token", pid: os.Getpid(), link: func(*SessionServer) toolv1.ToolLinkServer {
			return wrongToken{conns: make(chan net.Conn, 2), mangle: func(b []byte) []byte { b[len(b)-1] ^= 1; return b }}
		}, want: "wrong token"},
		{name: "the token and more", pid: os.Getpid(), link: func(*SessionServer) toolv1.ToolLinkServer {
			return wrongToken{conns: make(chan net.Conn, 2), mangle: func(b []byte) []byte { return append(b, 0) }}
		}, want: "is 33 bytes, not a token"},
		{name: "a token cut short", pid: os.Getpid(), link: func(*SessionServer) toolv1.ToolLinkServer {
			return wrongToken{conns: make(chan net.Conn, 2), mangle: func(b []byte) []byte { return b[:linkTokenSize-1] }}
		}, want: "is 31 bytes, not a token"},
		{name: "another process", pid: os.Getpid() + 1, link: func(s *SessionServer) toolv1.ToolLinkServer { return &LinkServer{Sessions: s} }, want: "its process is"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			server := &withLink{GRPCPlugin: GRPCPlugin{Impl: newFake(), Protocol: 2}}
			sessions := &SessionServer{Impl: server.Impl}
			if tc.link != nil {
				server.link = tc.link(sessions)
			}
			dir := tc.dir
			if dir == "" {
				dir = t.TempDir()
			}
			c, _ := serveVersions(t, server, 3, HostOptions{LinkDir: dir})
			c.ExpectPeer(tc.pid)
			// The reason, as the debug log would have it.
			why, err := c.link.open(context.Background())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				if why != nil {
					why.close()
				}
				t.Fatalf("opening the link: %v, want an error saying %q", err, tc.want)
			}
			onStream(t, c, linkAfter+1)
			settle(c)
			if got := echoOn(t, c, "b"); got != "stream" {
				t.Fatalf("the call after the link failed ran on the %s, want the stream", got)
			}
			c.mu.Lock()
			again := c.link != nil
			c.mu.Unlock()
			if again {
				t.Fatal("the client would try the link again")
			}
			if left := entries(t, dir); len(left) != 0 {
				t.Fatalf("the failed link left %v", left)
			}
			if w, ok := server.link.(wrongToken); ok {
				for range 2 {
					(<-w.conns).Close()
				}
			}
		})
	}
}

// deafLink connects links that it never reads.
type deafLink struct {
	toolv1.UnimplementedToolLinkServer
	mu    sync.Mutex
	conns []net.Conn
}

func (d *deafLink) Link(ctx context.Context, req *toolv1.LinkRequest) (*toolv1.LinkResponse, error) {
	var dialer net.Dialer
	conn, err := dialer.DialContext(ctx, "unix", req.GetPath())
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	d.conns = append(d.conns, conn)
	d.mu.Unlock()
	return &toolv1.LinkResponse{}, newFrameWriter(conn).writeRaw(req.GetToken())
}

func (d *deafLink) close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, c := range d.conns {
		c.Close()
	}
}

// A plugin that stops reading its link cannot hold a caller past its
// context: the send gives up on the link after the grace, and every open
// exchange fails as a crash.
func TestLinkGivesUpOnAPluginThatStopsReading(t *testing.T) {
	deaf := &deafLink{}
	t.Cleanup(deaf.close)
	server := &withLink{GRPCPlugin: GRPCPlugin{Impl: newFake(), Protocol: 2}, link: deaf}
	c, _ := serveVersions(t, server, 3, HostOptions{LinkDir: t.TempDir()})
	c.grace = time.Millisecond
	linkUp(t, c)
	s, x, err := c.begin(context.Background(), &toolv1.SessionRequest{Frame: &toolv1.SessionRequest_Call{Call: &toolv1.CallRequest{Tool: "Echo"}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := transport(c); got != "link" {
		t.Fatalf("the exchange is on the %s, want the link", got)
	}
	// Far over what the socket's buffers hold.
	input := []byte(strings.Repeat("x", 8<<20))
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	_, err = c.Prepare(ctx, &toolv1.PrepareRequest{Tool: "Echo", Input: input})
	cancel()
	if code := status.Code(err); code != codes.DeadlineExceeded && code != codes.Unavailable {
		t.Fatalf("Prepare on a jammed link returned %v, want its deadline or Unavailable", err)
	}
	if _, err := s.next(context.Background(), x); status.Code(err) != codes.Unavailable || !strings.Contains(err.Error(), "stopped reading") {
		t.Fatalf("an exchange open when the link jammed: %v, want Unavailable, stopped reading", err)
	}
}

// The end of the plugin client's life closes its link, and no session
// opens after it.
func TestLinkClosesWithTheClient(t *testing.T) {
	fake := newFake()
	life, end := context.WithCancel(context.Background())
	defer end()
	c, _ := serveLife(t, life, &GRPCPlugin{Impl: fake, Protocol: 3}, 3, HostOptions{LinkDir: t.TempDir()})
	linkUp(t, c)
	errs := make(chan error, 1)
	go func() {
		_, err := call(context.Background(), c, "Block", "b")
		errs <- err
	}()
	<-fake.blocked
	end()
	if err := <-errs; status.Code(err) != codes.Unavailable {
		t.Fatalf("an open call when the client closed: %v, want Unavailable", err)
	}
	// The plugin's side saw the link end and cancelled the call.
	if id := <-fake.cancelled; id != "b" {
		t.Fatalf("the plugin saw %q cancelled", id)
	}
	if _, err := call(context.Background(), c, "Echo", "after"); !errors.Is(err, errClientClosed) {
		t.Fatalf("a call after the client closed: %v", err)
	}
}
