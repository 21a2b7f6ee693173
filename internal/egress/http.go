package egress

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/textproto"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/elazarl/goproxy"
	"github.com/hashicorp/go-hclog"
)

// The HTTP side is github.com/elazarl/goproxy behind a net/http Server:
// absolute-URL requests go through its Transport, CONNECT becomes a blind
// tunnel (no TLS interception). The proxy replaces every dial goproxy
// would make, so each connection goes to an address decide checked.

// Header marks the proxy's own refusals, so that a client, or a test,
// tells them from an upstream server's.
const Header = "X-Riot-Egress"

// maxHead bounds a request head (request line and headers); headTimeout
// bounds the wait for it, and for a new connection's first byte.
const (
	maxHead     = 64 << 10
	headTimeout = 30 * time.Second
)

type connKey struct{}

type routeKey struct{}

// requestHead is what the proxy reads of a request before http.Server
// does: the Host headers, which http.Server folds away, and the method
// and target, to check both read the same request.
type requestHead struct {
	method, target string
	hosts          []string
}

func (p *Proxy) initHTTP() {
	p.tr = &http.Transport{
		DialContext: p.dialChecked,
		// The client's Accept-Encoding goes through untouched, and its
		// response comes back as the server sent it.
		DisableCompression: true,
		MaxIdleConns:       64,
		IdleConnTimeout:    DialTimeout * 3,
	}
	gp := goproxy.NewProxyHttpServer()
	gp.Logger = p.log.StandardLogger(&hclog.StandardLoggerOptions{ForceLevel: hclog.Debug})
	gp.Tr = p.tr
	// NewProxyHttpServer chains to $HTTPS_PROXY; every dial is the
	// Proxy's own (ProxyCtx.Dialer, set per request).
	gp.ConnectDial = nil
	gp.ConnectDialWithReq = nil
	gp.KeepAcceptEncoding = true
	gp.NonproxyHandler = http.HandlerFunc(notAProxyRequest)
	gp.OnRequest().HandleConnectFunc(p.handleConnect)
	gp.OnRequest().DoFunc(p.handleRequest)
	p.gp = gp

	p.queue = newConnQueue()
	p.http = &http.Server{
		Handler: http.HandlerFunc(p.serveHTTP),
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			return context.WithValue(ctx, connKey{}, c)
		},
		ErrorLog:       p.log.StandardLogger(&hclog.StandardLoggerOptions{ForceLevel: hclog.Debug}),
		MaxHeaderBytes: maxHead,
	}
	// One request per connection: the head the proxy read is then the
	// head of the one request http.Server reads.
	p.http.SetKeepAlivesEnabled(false)
	p.start(func() { _ = p.http.Serve(p.queue) })
}

// serveConn tells a new connection's protocol by its first byte, 5 for
// SOCKS5, else HTTP, and serves it.
func (p *Proxy) serveConn(c *clientConn) {
	defer func() {
		if r := recover(); r != nil {
			p.log.Error("egress: connection handler panicked", "panic", r, "stack", string(debug.Stack()))
			_ = c.Close()
		}
	}()
	_ = c.SetReadDeadline(time.Now().Add(headTimeout))
	buf := make([]byte, 4096)
	n, err := c.Conn.Read(buf)
	if n == 0 {
		if err != nil && !errors.Is(err, io.EOF) {
			p.log.Debug("egress: reading a new connection", "error", err)
		}
		_ = c.Close()
		return
	}
	c.prefix = buf[:n]
	if buf[0] == socks5Version {
		_ = c.SetReadDeadline(time.Time{})
		p.serveSOCKS(c)
		return
	}
	head, err := readHead(c)
	_ = c.SetReadDeadline(time.Time{})
	if err != nil {
		_, _ = io.WriteString(c.Conn, "HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\n"+Header+": refused\r\n\r\n"+err.Error()+"\n")
		_ = c.Close()
		return
	}
	c.head = head
	p.queue.deliver(c)
}

// readHead reads c until its prefix holds a whole request head, and
// parses the parts the proxy checks.
func readHead(c *clientConn) (*requestHead, error) {
	buf := c.prefix
	for {
		if end := headEnd(buf); end >= 0 {
			c.prefix = buf
			return parseHead(buf[:end])
		}
		if len(buf) >= maxHead {
			return nil, fmt.Errorf("the request head is over %d bytes; send a shorter request", maxHead)
		}
		if len(buf) == cap(buf) {
			grown := make([]byte, len(buf), min(2*cap(buf), maxHead))
			copy(grown, buf)
			buf = grown
		}
		n, err := c.Conn.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err != nil && n == 0 {
			return nil, errors.New("the connection ended inside the request head; send a whole HTTP request or a SOCKS5 greeting")
		}
	}
}

// headEnd is the length of the head in b, blank line included, or -1.
// Lines end in CRLF or, as net/textproto also reads them, LF.
func headEnd(b []byte) int {
	for i := bytes.IndexByte(b, '\n'); i >= 0; {
		rest := b[i+1:]
		switch {
		case bytes.HasPrefix(rest, []byte("\n")):
			return i + 2
		case bytes.HasPrefix(rest, []byte("\r\n")):
			return i + 3
		}
		j := bytes.IndexByte(rest, '\n')
		if j < 0 {
			return -1
		}
		i += j + 1
	}
	return -1
}

func parseHead(b []byte) (*requestHead, error) {
	line, rest, _ := bytes.Cut(b, []byte("\n"))
	method, uri, ok := strings.Cut(strings.TrimSuffix(string(line), "\r"), " ")
	uri, _, ok2 := strings.Cut(uri, " ")
	if !ok || !ok2 {
		return nil, errors.New("the request line is malformed; send METHOD target HTTP/1.1")
	}
	h, err := textproto.NewReader(bufio.NewReader(bytes.NewReader(rest))).ReadMIMEHeader()
	if err != nil {
		return nil, errors.New("the request headers are malformed; send a valid HTTP/1.1 request")
	}
	return &requestHead{method: method, target: uri, hosts: h.Values("Host")}, nil
}

// serveHTTP runs goproxy as a worker Close waits for.
func (p *Proxy) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if !p.enter() {
		http.Error(w, "the proxy is closing", http.StatusServiceUnavailable)
		return
	}
	defer p.workers.Done()
	p.gp.ServeHTTP(w, r)
}

// handleConnect checks a CONNECT request. An allowed one becomes a
// tunnel whose dial goes to the checked route.
func (p *Proxy) handleConnect(authority string, ctx *goproxy.ProxyCtx) (*goproxy.ConnectAction, string) {
	r := ctx.Req
	caller, ok := p.callerOf(r)
	if !ok {
		return rejectConnect(ctx, authRequired())
	}
	host, port, err := splitAuthority(authority, 0)
	if err != nil {
		return rejectConnect(ctx, refused(p.refuse(caller, quoteHost(authority), 0, err.Error())))
	}
	if reason := hostMismatch(r, host, port, port); reason != "" {
		return rejectConnect(ctx, refused(p.refuse(caller, host, port, reason)))
	}
	rt, err := p.decide(r.Context(), caller, host, port)
	if err != nil {
		return rejectConnect(ctx, failed(err))
	}
	ctx.Dialer = func(dctx context.Context, _, _ string) (net.Conn, error) {
		return p.dial(dctx, rt)
	}
	return &goproxy.ConnectAction{Action: goproxy.ConnectAccept}, authority
}

// rejectConnect answers a CONNECT with resp, which goproxy writes (and
// closes) before it closes the connection.
func rejectConnect(ctx *goproxy.ProxyCtx, rp reply) (*goproxy.ConnectAction, string) {
	ctx.Resp = rp.response(ctx.Req) //nolint:bodyclose // goproxy writes ctx.Resp, which closes its body
	return &goproxy.ConnectAction{Action: goproxy.ConnectReject}, ""
}

// handleRequest checks an absolute-URL request; an allowed one carries
// its route in its context to dialChecked.
func (p *Proxy) handleRequest(r *http.Request, _ *goproxy.ProxyCtx) (*http.Request, *http.Response) {
	caller, ok := p.callerOf(r)
	if !ok {
		return nil, authRequired().response(r)
	}
	if r.URL.Scheme != "http" {
		return nil, refused(p.refuse(caller, quoteHost(r.URL.Host), 0, fmt.Sprintf(
			"the proxy forwards plain requests for http:// URLs only, not %s://; for https://, let the client tunnel with CONNECT (it does when HTTPS_PROXY is set)", r.URL.Scheme))).response(r)
	}
	host, port, err := splitAuthority(r.URL.Host, 80)
	if err != nil {
		return nil, refused(p.refuse(caller, quoteHost(r.URL.Host), 0, err.Error())).response(r)
	}
	if reason := hostMismatch(r, host, port, 80); reason != "" {
		return nil, refused(p.refuse(caller, host, port, reason)).response(r)
	}
	rt, err := p.decide(r.Context(), caller, host, port)
	if err != nil {
		return nil, failed(err).response(r)
	}
	return r.WithContext(context.WithValue(r.Context(), routeKey{}, rt)), nil
}

// dialChecked is the Transport's dial: only to the route the request
// was checked for.
func (p *Proxy) dialChecked(ctx context.Context, _, addr string) (net.Conn, error) {
	rt, ok := ctx.Value(routeKey{}).(route)
	if !ok {
		return nil, errors.New("egress: refusing a dial no check routed")
	}
	if _, port, err := net.SplitHostPort(addr); err != nil || port != strconv.Itoa(rt.port) {
		return nil, fmt.Errorf("egress: refusing a dial to %s, checked for port %d", addr, rt.port)
	}
	return p.dial(ctx, rt)
}

// callerOf is the caller whose credentials the request carries.
func (p *Proxy) callerOf(r *http.Request) (string, bool) {
	scheme, enc, ok := strings.Cut(r.Header.Get("Proxy-Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Basic") {
		return "", false
	}
	dec, err := base64.StdEncoding.DecodeString(strings.TrimSpace(enc))
	if err != nil {
		return "", false
	}
	user, password, ok := strings.Cut(string(dec), ":")
	if !ok {
		return "", false
	}
	return p.authenticate(user, password)
}

// splitAuthority splits host[:port]; a missing port is defaultPort, and
// with defaultPort 0 a port is required.
func splitAuthority(authority string, defaultPort int) (string, int, error) {
	host, ps, err := net.SplitHostPort(authority)
	if err != nil {
		if defaultPort == 0 {
			return "", 0, fmt.Errorf("the target %s has no port; send host:port, such as example.com:443", quoteHost(authority))
		}
		host = strings.TrimSuffix(strings.TrimPrefix(authority, "["), "]")
		return host, defaultPort, nil
	}
	port, err := strconv.Atoi(ps)
	if err != nil || port < 1 || port > 65535 || strconv.Itoa(port) != ps {
		return "", 0, fmt.Errorf("the target %s has the port %s; use a port from 1 to 65535", quoteHost(authority), quoteHost(ps))
	}
	return host, port, nil
}

// hostMismatch is why the request's Host header names another authority
// than its target (host:port), or "". A Host without a port means
// defaultPort.
func hostMismatch(r *http.Request, host string, port, defaultPort int) string {
	c, _ := r.Context().Value(connKey{}).(*clientConn)
	if c == nil || c.head == nil || c.head.method != r.Method || c.head.target != r.RequestURI {
		return "the proxy could not read the request head; send one well-formed HTTP/1.1 request per connection"
	}
	switch len(c.head.hosts) {
	case 0:
		return ""
	case 1:
	default:
		return "the request has several Host headers; send one, naming the target"
	}
	hh := c.head.hosts[0]
	h, hp, err := splitAuthority(hh, defaultPort)
	want, werr := normalizeHost(host)
	got, gerr := normalizeHost(h)
	if err != nil || werr != nil || gerr != nil || got != want || hp != port {
		return fmt.Sprintf("the Host header %s names another authority than the target %s; send the target's host in the Host header", quoteHost(hh), quoteHost(net.JoinHostPort(host, strconv.Itoa(port))))
	}
	return ""
}

func notAProxyRequest(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set(Header, "refused")
	http.Error(w, "This is riot's egress proxy: send absolute-URL requests (GET http://host/path) or CONNECT host:port, with the proxy credentials from the proxy variables.", http.StatusBadRequest)
}

// reply is an answer the proxy makes itself.
type reply struct {
	status int
	kind   string // the Header value
	body   string
}

func (rp reply) response(r *http.Request) *http.Response {
	resp := goproxy.NewResponse(r, "text/plain; charset=utf-8", rp.status, rp.body)
	resp.Header.Set(Header, rp.kind)
	if rp.status == http.StatusProxyAuthRequired {
		resp.Header.Set("Proxy-Authenticate", `Basic realm="riot egress"`)
	}
	return resp
}

func authRequired() reply {
	return reply{http.StatusProxyAuthRequired, "unauthenticated",
		"riot's egress proxy needs the credentials in the proxy variables (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY): send them as Proxy-Authorization Basic.\n"}
}

func refused(rf *refusal) reply {
	target := rf.Host
	if rf.Port != 0 {
		target = net.JoinHostPort(rf.Host, strconv.Itoa(rf.Port))
	}
	return reply{http.StatusForbidden, "denied", fmt.Sprintf("riot's egress proxy refused %s: %s\n", target, rf.Reason)}
}

// failed answers a decide error: a refusal, or a name that does not
// resolve.
func failed(err error) reply {
	var rf *refusal
	if errors.As(err, &rf) {
		return refused(rf)
	}
	return reply{http.StatusBadGateway, "unreachable", err.Error() + "\n"}
}
