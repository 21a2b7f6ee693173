package shared

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	toolv1 "github.com/riot-tools/riot/shared/proto/riot/tool/v1"
)

// Protocol version 3 carries a session's frames over a Unix socket of
// their own instead of a gRPC stream: no HTTP/2 framing, no flow-control
// goroutines and no TLS records per exchange. The gRPC connection, mutual
// TLS as ever, opens it. The host listens, so that a plugin confined from
// creating files needs only to connect: on a fresh socket in a directory
// only its user can enter, whose path and a random token it sends over
// that connection. It accepts one connection, from its own user and the
// plugin's process, whose first frame is the token, then removes the
// socket.

// linkTokenSize is the token's length: 256 random bits.
const linkTokenSize = 32

// linkTimeout bounds an opening; past it the host falls back to protocol
// 2's stream. A plugin answers within a few milliseconds.
const linkTimeout = 5 * time.Second

// linker opens the links of one plugin.
type linker struct {
	rpc toolv1.ToolLinkClient
	// dir holds each opening's private directory; "" is os.TempDir.
	dir string
	// pid is the plugin's process, which must be the peer; 0 leaves the
	// process unchecked (a plugin served inside the host's own process).
	pid atomic.Int64
	log hclog.Logger
}

// ExpectPeer makes pid the only process whose connection a link accepts.
// The host calls it with the plugin's pid before the first exchange.
func (c *SessionClient) ExpectPeer(pid int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.link != nil {
		c.link.pid.Store(int64(pid))
	}
}

// linkAfter is how many exchanges a client runs on its stream before it
// opens a link behind them. An opening costs 1-2 ms of both processes'
// time, in the background or not (on a loaded machine the background
// shares the cores with the exchanges), and saves some 30 µs an exchange
// after it: a plugin started for one call (a Prepare and a Call, as a
// one-shot `riot call` makes) never pays it back, and one that serves more
// soon does.
const linkAfter = 2

// streamedOne counts an exchange begun on the stream s, and opens a link
// behind s from the one after linkAfter on, unless a link replaced s
// already. Once a client is past linkAfter, a stream opened after its
// link broke is linked again at once.
func (c *SessionClient) streamedOne(s *session) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.streamed < linkAfter {
		c.streamed++
		return
	}
	if c.cur == s {
		c.startLink()
	}
}

// startLink opens a link in the background unless one is opening or the
// client has none to open; c.mu is held. Until it opens the exchanges run
// on the stream, so that no exchange waits for it: an opening costs a few
// round trips, and every plugin start's first exchange would pay them.
func (c *SessionClient) startLink() {
	if c.link == nil || c.linking != nil {
		return
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	c.linking, c.stopLink = done, stop
	lk := c.link
	go func() {
		defer close(done)
		defer stop()
		l, err := lk.open(ctx)
		c.linked(lk, l, err)
	}()
}

// linked takes the outcome of startLink's opening: an open link becomes
// the session new exchanges run on, and the stream it replaces ends after
// its last exchange; a link that cannot open leaves the client on the
// stream for good; an opening the client's close abandoned leaves nothing.
func (c *SessionClient) linked(lk *linker, l *hostLink, err error) {
	c.mu.Lock()
	c.linking, c.stopLink = nil, nil
	switch {
	case c.closed:
		c.mu.Unlock()
		if l != nil {
			l.close()
		}
		lk.log.Debug("abandoned opening the plugin's session link: its client closed")
	case err != nil:
		c.link = nil
		c.mu.Unlock()
		lk.log.Debug("cannot open the plugin's session link; using its gRPC session stream", "error", err)
	default:
		s := newSession(l, l.close, c.grace)
		s.direct, s.role = l, make(chan struct{}, 1)
		s.role <- struct{}{}
		// The stream the opening began with, or the one opened after it
		// broke: an opening starts with a stream, and only one runs.
		old := c.cur
		c.cur = s
		c.draining = append(slices.DeleteFunc(c.draining, (*session).isDone), old)
		c.mu.Unlock()
		lk.log.Debug("opened the plugin's session link")
		old.retire()
	}
}

// open opens one link, or says why it cannot.
func (l *linker) open(ctx context.Context) (*hostLink, error) {
	ctx, cancel := context.WithTimeout(ctx, linkTimeout)
	defer cancel()
	dir, err := os.MkdirTemp(l.dir, "riot-link-") // mode 0700
	if err != nil {
		return nil, fmt.Errorf("make the socket's directory: %w", err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "s")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	// Closing the listener unlinks the socket.
	defer ln.Close()
	token := make([]byte, linkTokenSize)
	_, _ = rand.Read(token) // never fails, per its documentation
	answered := make(chan error, 1)
	go func() {
		_, err := l.rpc.Link(ctx, &toolv1.LinkRequest{Path: path, Token: token})
		if err != nil {
			// The plugin will not connect: stop waiting for it.
			_ = ln.SetDeadline(time.Unix(1, 0))
		}
		answered <- err
	}()
	fail := func(err error) (*hostLink, error) {
		cancel()
		return nil, errors.Join(err, <-answered)
	}
	deadline, _ := ctx.Deadline()
	_ = ln.SetDeadline(deadline)
	// An abandoned opening stops the accept too.
	stop := context.AfterFunc(ctx, func() { _ = ln.SetDeadline(time.Unix(1, 0)) })
	conn, err := ln.AcceptUnix()
	stop()
	_ = ln.Close()
	if err != nil {
		return fail(fmt.Errorf("accept: %w", err))
	}
	// The token's read ends with the opening's time or its abandoning.
	if err := conn.SetReadDeadline(deadline); err != nil {
		_ = conn.Close()
		return fail(err)
	}
	stop = context.AfterFunc(ctx, func() { _ = conn.SetReadDeadline(time.Unix(1, 0)) })
	r, err := l.admit(conn, token)
	stop()
	if err != nil {
		_ = conn.Close()
		return fail(err)
	}
	if err := <-answered; err != nil {
		_ = conn.Close()
		return nil, fmt.Errorf("the plugin's answer: %w", err)
	}
	if err := conn.SetDeadline(time.Time{}); err != nil {
		_ = conn.Close()
		return nil, err
	}
	return newHostLink(conn, r), nil
}

// errLinkPeer is a connection that is not the plugin's.
var errLinkPeer = errors.New("the connection is not the plugin's")

// admit checks that conn is the plugin's: its peer is this user and the
// plugin's process, and its first frame is the token. It reads nothing
// before the peer is checked.
func (l *linker) admit(conn *net.UnixConn, token []byte) (*frameReader, error) {
	uid, pid, err := peerOf(conn)
	if err != nil {
		return nil, fmt.Errorf("the peer's credentials: %w", err)
	}
	if uid != os.Getuid() {
		return nil, fmt.Errorf("%w: its user is %d", errLinkPeer, uid)
	}
	if want := l.pid.Load(); want != 0 && int64(pid) != want {
		return nil, fmt.Errorf("%w: its process is %d, not %d", errLinkPeer, pid, want)
	}
	r := newFrameReader(conn)
	// The token's frame is its length exactly: nothing larger is read.
	n, err := r.length()
	if err != nil {
		return nil, fmt.Errorf("read the token: %w", err)
	}
	if n != linkTokenSize {
		return nil, fmt.Errorf("%w: its first frame is %d bytes, not a token", errLinkPeer, n)
	}
	got := make([]byte, linkTokenSize)
	if _, err := io.ReadFull(r.r, got); err != nil {
		return nil, fmt.Errorf("read the token: %w", err)
	}
	if subtle.ConstantTimeCompare(got, token) != 1 {
		return nil, fmt.Errorf("%w: it sent the wrong token", errLinkPeer)
	}
	return r, nil
}

// LinkServer is the plugin side of ToolLink: it dials the host's socket
// and serves the link's exchanges with Sessions, as a Session stream's.
type LinkServer struct {
	toolv1.UnimplementedToolLinkServer
	Sessions *SessionServer
}

// Link dials, writes the token and serves the link in the background
// until the host closes it or the process ends.
func (s *LinkServer) Link(ctx context.Context, req *toolv1.LinkRequest) (*toolv1.LinkResponse, error) {
	if !filepath.IsAbs(req.GetPath()) || len(req.GetToken()) != linkTokenSize {
		return nil, status.Error(codes.InvalidArgument, "a link needs an absolute socket path and a token")
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", req.GetPath())
	if err != nil {
		return nil, status.Errorf(codes.Unavailable, "cannot connect to the host's socket: %v", err)
	}
	link := newPluginLink(conn)
	if err := link.w.writeRaw(req.GetToken()); err != nil {
		_ = conn.Close()
		return nil, status.Errorf(codes.Unavailable, "cannot write the token: %v", err)
	}
	go func() {
		defer conn.Close()
		s.Sessions.serveConn(context.Background(), link)
	}()
	return &toolv1.LinkResponse{}, nil
}
