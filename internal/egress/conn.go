package egress

import (
	"io"
	"net"
	"sync"
)

// clientConn is a connection from a sandboxed command. It replays the
// bytes read to tell its protocol, and leaves the Proxy's set when
// closed. Its WriteTo and ReadFrom hand the raw connections to io.Copy,
// so a tunnel between a clientConn and a targetConn stays in the kernel
// (splice) as it would without the wrappers.
type clientConn struct {
	net.Conn
	p *Proxy
	// prefix is what sniffing read and the first Read returns. One
	// goroutine reads at a time, handing the conn on through channels.
	prefix []byte
	// head is the request head read on the HTTP side: http.Server drops
	// the Host header, which the proxy compares with the target.
	head *requestHead
	once sync.Once
}

func (c *clientConn) Read(b []byte) (int, error) {
	if len(c.prefix) > 0 {
		n := copy(b, c.prefix)
		c.prefix = c.prefix[n:]
		return n, nil
	}
	return c.Conn.Read(b)
}

func (c *clientConn) WriteTo(w io.Writer) (int64, error) {
	var n int64
	if len(c.prefix) > 0 {
		m, err := w.Write(c.prefix)
		n += int64(m)
		c.prefix = c.prefix[m:]
		if err != nil {
			return n, err
		}
	}
	m, err := io.Copy(rawWriter(w), c.Conn)
	return n + m, err
}

func (c *clientConn) ReadFrom(r io.Reader) (int64, error) {
	return io.Copy(c.Conn, rawReader(r))
}

func (c *clientConn) CloseRead() error  { return closeRead(c.Conn) }
func (c *clientConn) CloseWrite() error { return closeWrite(c.Conn) }

func (c *clientConn) Close() error {
	var err error
	c.once.Do(func() {
		c.p.untrack(c)
		err = c.Conn.Close()
	})
	return err
}

// targetConn is a connection the proxy opened to a checked address.
type targetConn struct {
	net.Conn
	p    *Proxy
	once sync.Once
}

func (t *targetConn) WriteTo(w io.Writer) (int64, error) {
	return io.Copy(rawWriter(w), t.Conn)
}

func (t *targetConn) ReadFrom(r io.Reader) (int64, error) {
	if c, ok := r.(*clientConn); ok {
		return c.WriteTo(t.Conn)
	}
	return io.Copy(t.Conn, r)
}

func (t *targetConn) CloseRead() error  { return closeRead(t.Conn) }
func (t *targetConn) CloseWrite() error { return closeWrite(t.Conn) }

// LocalAddr is always a *net.TCPAddr: the SOCKS5 server reports it to
// the client and asserts the type.
func (t *targetConn) LocalAddr() net.Addr {
	if a, ok := t.Conn.LocalAddr().(*net.TCPAddr); ok {
		return a
	}
	return &net.TCPAddr{IP: net.IPv4zero}
}

func (t *targetConn) Close() error {
	var err error
	t.once.Do(func() {
		t.p.untrack(t)
		err = t.Conn.Close()
	})
	return err
}

func rawWriter(w io.Writer) io.Writer {
	switch c := w.(type) {
	case *clientConn:
		return c.Conn
	case *targetConn:
		return c.Conn
	}
	return w
}

// rawReader unwraps a targetConn; a clientConn keeps its wrapper, whose
// WriteTo replays its prefix first.
func rawReader(r io.Reader) io.Reader {
	if c, ok := r.(*targetConn); ok {
		return c.Conn
	}
	return r
}

func closeRead(c net.Conn) error {
	if h, ok := c.(interface{ CloseRead() error }); ok {
		return h.CloseRead()
	}
	return c.Close()
}

func closeWrite(c net.Conn) error {
	if h, ok := c.(interface{ CloseWrite() error }); ok {
		return h.CloseWrite()
	}
	return c.Close()
}

// connQueue is the listener http.Server serves: the connections the
// Proxy accepted and found to speak HTTP.
type connQueue struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func newConnQueue() *connQueue {
	return &connQueue{conns: make(chan net.Conn), done: make(chan struct{})}
}

// deliver hands c to http.Server, or closes it once the queue is closed.
func (q *connQueue) deliver(c net.Conn) {
	select {
	case q.conns <- c:
	case <-q.done:
		_ = c.Close()
	}
}

func (q *connQueue) Accept() (net.Conn, error) {
	select {
	case c := <-q.conns:
		return c, nil
	case <-q.done:
		return nil, net.ErrClosed
	}
}

func (q *connQueue) Close() error {
	q.once.Do(func() { close(q.done) })
	return nil
}

func (q *connQueue) Addr() net.Addr { return queueAddr{} }

type queueAddr struct{}

func (queueAddr) Network() string { return "egress" }
func (queueAddr) String() string  { return "egress" }
