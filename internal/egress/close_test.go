package egress

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	xproxy "golang.org/x/net/proxy"
)

// TestCloseEndsEverything opens every kind of connection (tunnels over
// CONNECT and SOCKS5, a request waiting for the user, a pooled upstream
// connection, a client that never speaks, a half-sent head), closes the
// Proxy, and checks each ended and no goroutine is left.
func TestCloseEndsEverything(t *testing.T) {
	before := runtime.NumGoroutine()
	func() {
		web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			_, _ = io.WriteString(w, "ok")
		}))
		defer web.Close()
		tn := newTestNet()
		tn.name("example.com", "203.0.113.10")
		tn.name("new.test", "203.0.113.10")
		tn.route("203.0.113.10:80", strings.TrimPrefix(web.URL, "http://"))

		asked := make(chan Question, 1)
		p := New(Options{
			Policy:   policy(t, []string{"example.com"}, nil),
			Resolver: tn,
			Dialer:   tn,
			Ask: func(ctx context.Context, q Question) Answer {
				asked <- q
				<-ctx.Done()
				return AnswerDeny
			},
		})
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		served := make(chan error, 1)
		go func() { served <- p.Serve(l) }()
		user, pass := p.Register(caller)
		f := &fixture{p: p, net: tn, addr: l.Addr().String(), user: user, pass: pass}

		var open []net.Conn
		// A CONNECT tunnel, established and idle.
		tunnel, err := net.Dial("tcp", f.addr)
		if err != nil {
			t.Fatal(err)
		}
		open = append(open, tunnel)
		_, _ = io.WriteString(tunnel, "CONNECT example.com:80 HTTP/1.1\r\nHost: example.com:80\r\nProxy-Authorization: "+f.basic()+"\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(tunnel), &http.Request{Method: http.MethodConnect})
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("CONNECT: %v %v", resp, err)
		}
		_ = resp.Body.Close()
		// A SOCKS5 tunnel, established and idle.
		d, err := xproxy.SOCKS5("tcp", f.addr, &xproxy.Auth{User: user, Password: pass}, nil)
		if err != nil {
			t.Fatal(err)
		}
		socksConn, err := d.Dial("tcp", "example.com:80")
		if err != nil {
			t.Fatal(err)
		}
		open = append(open, socksConn)
		// A request waiting for the user.
		waiting := make(chan error, 1)
		c := f.client(t, nil)
		go func() {
			resp, err := c.Get("http://new.test/")
			if err == nil {
				_ = resp.Body.Close()
			}
			waiting <- err
		}()
		<-asked
		// A finished request, whose upstream connection the proxy pools.
		if code, _, _, err := get(t, c, "http://example.com/"); err != nil || code != http.StatusOK {
			t.Fatalf("GET: %d %v", code, err)
		}
		// A client that never speaks, and one that stops mid-head.
		silent, err := net.Dial("tcp", f.addr)
		if err != nil {
			t.Fatal(err)
		}
		half, err := net.Dial("tcp", f.addr)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.WriteString(half, "GET http://example.com/ HTTP/1.1\r\nHo")
		open = append(open, silent, half)

		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
		<-waiting
		for i, c := range open {
			if _, err := io.ReadAll(c); err != nil && !strings.Contains(err.Error(), "reset") {
				t.Errorf("connection %d: %v", i, err)
			}
			_ = c.Close()
		}
		if c, err := net.Dial("tcp", f.addr); err == nil {
			_ = c.Close()
			t.Error("the listener still accepts after Close")
		}
		c.CloseIdleConnections()
	}()
	waitGoroutines(t, before)
}

// waitGoroutines waits, yielding, until no more than want goroutines
// run. Close has returned by now; what remains are library goroutines
// returning after the connections they served closed.
func waitGoroutines(t *testing.T, want int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > want {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines, want %d:\n%s", runtime.NumGoroutine(), want, buf[:runtime.Stack(buf, true)])
		}
		runtime.Gosched()
	}
}
