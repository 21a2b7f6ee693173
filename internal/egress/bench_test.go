package egress

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	xproxy "golang.org/x/net/proxy"
)

// The bars: a download through the proxy at 0.9 of direct
// throughput or better, and at most 1 ms added per new connection. Each
// iteration runs the direct and the proxied case back to back, so both
// see the same machine; run with -count and take medians.

const (
	downloadSize = 1 << 30   // the 1 GB download
	readBuf      = 128 << 10 // what a downloading client reads at once
)

// benchServer serves every connection with first, then size bytes more,
// and closes it.
func benchServer(b *testing.B, first []byte, size int) string {
	b.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	done := make(chan struct{})
	b.Cleanup(func() { _ = l.Close(); <-done })
	go func() {
		defer close(done)
		chunk := make([]byte, 1<<20)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				if _, err := c.Write(first); err != nil {
					return
				}
				for left := size; left > 0; {
					n, err := c.Write(chunk[:min(left, len(chunk))])
					if err != nil {
						return
					}
					left -= n
				}
			}()
		}
	}()
	return l.Addr().String()
}

// benchProxy serves a Proxy on a Unix socket, as a session does, with
// example.com routed to server.
func benchProxy(b *testing.B, server string) (sock, user, pass string) {
	b.Helper()
	tn := newTestNet()
	tn.name("example.com", "203.0.113.10")
	tn.route("203.0.113.10:443", server)
	p := New(Options{Policy: policy(b, []string{"example.com"}, nil), Resolver: tn, Dialer: tn})
	sock = filepath.Join(b.TempDir(), "egress.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		b.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- p.Serve(l) }()
	b.Cleanup(func() { _ = p.Close(); <-served })
	user, pass = p.Register(caller)
	return sock, user, pass
}

// connectVia opens a CONNECT tunnel to example.com:443 and returns it
// with the reader past the proxy's answer.
func connectVia(b *testing.B, sock, user, pass string) (net.Conn, io.Reader) {
	c, err := net.Dial("unix", sock)
	if err != nil {
		b.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodConnect, "http://example.com:443", nil)
	if err != nil {
		b.Fatal(err)
	}
	req.Host = "example.com:443"
	req.SetBasicAuth(user, pass)
	req.Header["Proxy-Authorization"] = req.Header["Authorization"]
	delete(req.Header, "Authorization")
	if err := req.Write(c); err != nil {
		b.Fatal(err)
	}
	br := bufio.NewReaderSize(c, readBuf)
	resp, err := http.ReadResponse(br, req)
	if err != nil || resp.StatusCode != http.StatusOK {
		b.Fatalf("CONNECT: %v %v", resp, err)
	}
	_ = resp.Body.Close()
	return c, br
}

func drain(b *testing.B, r io.Reader, buf []byte) int {
	total := 0
	for {
		n, err := r.Read(buf)
		total += n
		if err == io.EOF {
			return total
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkThroughput(b *testing.B) {
	server := benchServer(b, nil, downloadSize)
	sock, user, pass := benchProxy(b, server)
	buf := make([]byte, readBuf)
	var direct, proxied time.Duration
	b.SetBytes(2 * downloadSize)
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		c, err := net.Dial("tcp", server)
		if err != nil {
			b.Fatal(err)
		}
		if n := drain(b, c, buf); n != downloadSize {
			b.Fatalf("direct: %d bytes", n)
		}
		_ = c.Close()
		direct += time.Since(start)

		start = time.Now()
		c, r := connectVia(b, sock, user, pass)
		if n := drain(b, r, buf); n != downloadSize {
			b.Fatalf("proxied: %d bytes", n)
		}
		_ = c.Close()
		proxied += time.Since(start)
	}
	mbps := func(d time.Duration) float64 { return float64(b.N) * downloadSize / d.Seconds() / 1e6 }
	b.ReportMetric(mbps(direct), "direct-MB/s")
	b.ReportMetric(mbps(proxied), "proxy-MB/s")
	b.ReportMetric(direct.Seconds()/proxied.Seconds(), "ratio")
}

func BenchmarkConnectionSetup(b *testing.B) {
	server := benchServer(b, []byte{'x'}, 0)
	sock, user, pass := benchProxy(b, server)
	socks, err := xproxy.SOCKS5("unix", sock, &xproxy.Auth{User: user, Password: pass}, nil)
	if err != nil {
		b.Fatal(err)
	}
	one := make([]byte, 1)
	firstByte := func(r io.Reader) {
		if _, err := io.ReadFull(r, one); err != nil {
			b.Fatal(err)
		}
	}
	var direct, connect, socks5 time.Duration
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		c, err := net.Dial("tcp", server)
		if err != nil {
			b.Fatal(err)
		}
		firstByte(c)
		direct += time.Since(start)
		_ = c.Close()

		start = time.Now()
		c, r := connectVia(b, sock, user, pass)
		firstByte(r)
		connect += time.Since(start)
		_ = c.Close()

		start = time.Now()
		c, err = socks.(xproxy.ContextDialer).DialContext(context.Background(), "tcp", "example.com:443")
		if err != nil {
			b.Fatal(err)
		}
		firstByte(c)
		socks5 += time.Since(start)
		_ = c.Close()
	}
	us := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(b.N) }
	b.ReportMetric(us(direct), "direct-µs/conn")
	b.ReportMetric(us(connect-direct), "connect-added-µs/conn")
	b.ReportMetric(us(socks5-direct), "socks5-added-µs/conn")
}
