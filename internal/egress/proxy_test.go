package egress

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"

	xproxy "golang.org/x/net/proxy"
)

// testNet is the network the proxy sees in tests: a resolver of made-up
// names, and a dialer that reaches only loopback servers, each standing
// in for a public address (documentation ranges), so AllowPrivate stays
// false. An address it has no route for fails: no test traffic leaves
// loopback.
type testNet struct {
	mu      sync.Mutex
	names   map[string][]netip.Addr
	routes  map[netip.AddrPort]string
	lookups []string
	dials   []string
}

func newTestNet() *testNet {
	return &testNet{names: map[string][]netip.Addr{}, routes: map[netip.AddrPort]string{}}
}

// name makes host resolve to addrs.
func (n *testNet) name(host string, addrs ...string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, a := range addrs {
		n.names[host] = append(n.names[host], netip.MustParseAddr(a))
	}
}

// route sends connections to public (addr:port) to a loopback server.
func (n *testNet) route(public, loopback string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.routes[netip.MustParseAddrPort(public)] = loopback
}

func (n *testNet) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.lookups = append(n.lookups, host)
	if a, ok := n.names[host]; ok {
		return a, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

func (n *testNet) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	n.mu.Lock()
	n.dials = append(n.dials, address)
	to, ok := n.routes[netip.MustParseAddrPort(address)]
	n.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("test network: no route to %s", address)
	}
	var d net.Dialer
	return d.DialContext(ctx, network, to)
}

func (n *testNet) looked() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.lookups...)
}

func (n *testNet) dialed() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.dials...)
}

// origin is a loopback HTTP server that says who it is and records the
// requests it got.
type origin struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []*http.Request
}

func newOrigin(t testing.TB, name string, tlsToo bool) *origin {
	o := &origin{}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o.mu.Lock()
		o.reqs = append(o.reqs, r)
		o.mu.Unlock()
		fmt.Fprintf(w, "hello from %s, host %s", name, r.Host)
	})
	if tlsToo {
		o.Server = httptest.NewTLSServer(h)
	} else {
		o.Server = httptest.NewServer(h)
	}
	t.Cleanup(o.Close)
	return o
}

func (o *origin) requests() []*http.Request {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]*http.Request(nil), o.reqs...)
}

func (o *origin) hostPort() string {
	return strings.TrimPrefix(strings.TrimPrefix(o.URL, "http://"), "https://")
}

// fixture is a running Proxy with one registered caller.
type fixture struct {
	p          *Proxy
	net        *testNet
	addr       string
	user, pass string
}

const caller = "toolu_01"

// startProxy serves a Proxy on loopback TCP; the test's cleanup closes
// it and checks Serve returned nil.
func startProxy(t testing.TB, opts Options, tn *testNet, setup ...func(*Proxy)) *fixture {
	t.Helper()
	opts.Resolver, opts.Dialer = tn, tn
	p := New(opts)
	for _, f := range setup {
		f(p)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- p.Serve(l) }()
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	user, pass := p.Register(caller)
	return &fixture{p: p, net: tn, addr: l.Addr().String(), user: user, pass: pass}
}

// standard is the usual world: example.com at 203.0.113.10 with an HTTP
// origin on port 80 and a TLS origin on 443.
func standard(t testing.TB) (*testNet, *origin, *origin) {
	tn := newTestNet()
	web := newOrigin(t, "web", false)
	secure := newOrigin(t, "secure", true)
	tn.name("example.com", "203.0.113.10")
	tn.route("203.0.113.10:80", web.hostPort())
	tn.route("203.0.113.10:443", secure.hostPort())
	return tn, web, secure
}

func policy(t testing.TB, allowed, denied []string) Policy {
	return Policy{Allowed: mustRules(t, allowed...), Denied: mustRules(t, denied...)}
}

func (f *fixture) proxyURL() *url.URL {
	return &url.URL{Scheme: "http", User: url.UserPassword(f.user, f.pass), Host: f.addr}
}

// client is an HTTP client that goes through the proxy, trusting the
// TLS origin's certificate.
func (f *fixture) client(t testing.TB, secure *origin) *http.Client {
	tr := &http.Transport{Proxy: http.ProxyURL(f.proxyURL()), DisableKeepAlives: true}
	if secure != nil {
		pool := x509.NewCertPool()
		pool.AddCert(secure.Certificate())
		tr.TLSClientConfig = &tls.Config{RootCAs: pool}
	}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

func get(t testing.TB, c *http.Client, u string) (int, http.Header, string, error) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		return 0, nil, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b), err
}

func TestHTTPGetAllowed(t *testing.T) {
	tn, web, _ := standard(t)
	f := startProxy(t, Options{Policy: policy(t, []string{"example.com"}, nil)}, tn)
	code, _, body, err := get(t, f.client(t, nil), "http://example.com/hello")
	if err != nil || code != http.StatusOK || body != "hello from web, host example.com" {
		t.Fatalf("GET = %d %q %v", code, body, err)
	}
	reqs := web.requests()
	if len(reqs) != 1 {
		t.Fatalf("origin got %d requests", len(reqs))
	}
	if h := reqs[0].Header.Get("Proxy-Authorization"); h != "" {
		t.Errorf("the proxy credentials reached the origin: %q", h)
	}
	if d := f.p.Denials(caller); len(d) != 0 {
		t.Errorf("Denials = %v", d)
	}
}

func TestConnectAllowed(t *testing.T) {
	tn, _, secure := standard(t)
	f := startProxy(t, Options{Policy: policy(t, []string{"example.com:443"}, nil)}, tn)
	code, _, body, err := get(t, f.client(t, secure), "https://example.com/")
	if err != nil || code != http.StatusOK || body != "hello from secure, host example.com" {
		t.Fatalf("GET = %d %q %v", code, body, err)
	}
	if got := tn.dialed(); len(got) != 1 || got[0] != "203.0.113.10:443" {
		t.Errorf("dialed %v, want the checked address", got)
	}
}

func TestDeniedName(t *testing.T) {
	tn, _, secure := standard(t)
	tn.name("denied.test", "203.0.113.10")
	tn.name("unknown.test", "203.0.113.10")
	f := startProxy(t, Options{Policy: policy(t, []string{"*.test"}, []string{"denied.test"})}, tn)
	c := f.client(t, secure)

	code, h, body, err := get(t, c, "http://denied.test/")
	if err != nil || code != http.StatusForbidden || h.Get(Header) != "denied" {
		t.Fatalf("GET denied.test = %d %v %v", code, h, err)
	}
	if want := `riot's egress proxy refused denied.test:80: denied.test:80 is refused by the deny rule "denied.test" in denied_domains`; !strings.Contains(body, want) {
		t.Errorf("body %q, want %q", body, want)
	}
	if resp, err := c.Get("https://denied.test/"); err == nil {
		_ = resp.Body.Close()
		t.Errorf("CONNECT denied.test succeeded")
	} else if !strings.Contains(err.Error(), "Forbidden") {
		t.Errorf("CONNECT denied.test: %v, want 403 Forbidden", err)
	}
	want := []Denial{
		{Host: "denied.test", Port: 80, Reason: `denied.test:80 is refused by the deny rule "denied.test" in denied_domains; do not try to reach it another way`},
		{Host: "denied.test", Port: 443, Reason: `denied.test:443 is refused by the deny rule "denied.test" in denied_domains; do not try to reach it another way`},
	}
	if got := f.p.Denials(caller); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Denials = %v\nwant %v", got, want)
	}
	if got := f.p.Denials(caller); len(got) != 0 {
		t.Errorf("Denials again = %v, want them cleared", got)
	}
	for _, n := range tn.looked() {
		if n == "denied.test" {
			t.Errorf("the proxy looked up a denied name")
		}
	}

	// With nobody to ask, a name no rule covers is refused with the line
	// that would allow it.
	g := startProxy(t, Options{Policy: policy(t, []string{"example.com"}, nil)}, tn)
	code, _, body, _ = get(t, g.client(t, nil), "http://unknown.test/x")
	if want := `unknown.test is not an allowed domain. If the task needs it, ask the user to allow it: allowed_domains = ["unknown.test"] under [sandbox.network]`; code != http.StatusForbidden || !strings.Contains(body, want) {
		t.Errorf("GET unknown.test = %d %q, want 403 containing %q", code, body, want)
	}
}

// rawRequest sends a request head as written and reads the response.
func rawRequest(t testing.TB, addr, head string) *http.Response {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if _, err := io.WriteString(c, head); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func readBody(t testing.TB, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func (f *fixture) basic() string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(f.user+":"+f.pass))
}

func TestHostMismatch(t *testing.T) {
	tn, _, _ := standard(t)
	tn.name("evil.test", "203.0.113.66")
	f := startProxy(t, Options{Policy: policy(t, []string{"example.com", "evil.test"}, nil)}, tn)
	for _, tc := range []struct{ name, head string }{
		{"CONNECT", "CONNECT example.com:443 HTTP/1.1\r\nHost: evil.test:443\r\n"},
		{"CONNECT other port", "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:8443\r\n"},
		{"GET", "GET http://example.com/ HTTP/1.1\r\nHost: evil.test\r\n"},
		{"GET other port", "GET http://example.com/ HTTP/1.1\r\nHost: example.com:8080\r\n"},
		{"GET bad Host", "GET http://example.com/ HTTP/1.1\r\nHost: example.com.\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := rawRequest(t, f.addr, tc.head+"Proxy-Authorization: "+f.basic()+"\r\n\r\n")
			body := readBody(t, resp)
			if resp.StatusCode != http.StatusForbidden || resp.Header.Get(Header) != "denied" || !strings.Contains(body, "names another authority than the target") {
				t.Errorf("%d %q", resp.StatusCode, body)
			}
		})
	}
	if d := f.p.Denials(caller); len(d) != 5 || !strings.Contains(d[0].Reason, `the Host header "evil.test:443" names another authority than the target "example.com:443"; send the target's host in the Host header`) {
		t.Errorf("Denials = %v", d)
	}
	if got := tn.dialed(); len(got) != 0 {
		t.Errorf("dialed %v after mismatches", got)
	}
	// The same authority in another spelling is no mismatch.
	resp := rawRequest(t, f.addr, "GET http://example.com/ HTTP/1.1\r\nHost: EXAMPLE.com:80\r\nProxy-Authorization: "+f.basic()+"\r\n\r\n")
	if body := readBody(t, resp); resp.StatusCode != http.StatusOK || body != "hello from web, host example.com" {
		t.Errorf("matching Host: %d %q", resp.StatusCode, body)
	}
}

func TestUnauthenticated(t *testing.T) {
	tn, _, secure := standard(t)
	f := startProxy(t, Options{Policy: policy(t, []string{"example.com"}, nil)}, tn)
	for _, tc := range []struct {
		name string
		user *url.Userinfo
	}{
		{"no credentials", nil},
		{"wrong password", url.UserPassword(f.user, "wrong")},
		{"unknown user", url.UserPassword("nobody", f.pass)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := &url.URL{Scheme: "http", User: tc.user, Host: f.addr}
			tr := &http.Transport{Proxy: http.ProxyURL(u)}
			defer tr.CloseIdleConnections()
			c := &http.Client{Transport: tr}
			code, h, _, err := get(t, c, "http://example.com/")
			if err != nil || code != http.StatusProxyAuthRequired || h.Get("Proxy-Authenticate") != `Basic realm="riot egress"` || h.Get(Header) != "unauthenticated" {
				t.Errorf("GET: %d %v %v", code, h, err)
			}
			pool := x509.NewCertPool()
			pool.AddCert(secure.Certificate())
			tr.TLSClientConfig = &tls.Config{RootCAs: pool}
			if resp, err := c.Get("https://example.com/"); err == nil {
				_ = resp.Body.Close()
				t.Errorf("CONNECT without valid credentials succeeded")
			} else if !strings.Contains(err.Error(), "Proxy Authentication Required") {
				t.Errorf("CONNECT: %v", err)
			}
			var auth *xproxy.Auth
			if tc.user != nil {
				pw, _ := tc.user.Password()
				auth = &xproxy.Auth{User: tc.user.Username(), Password: pw}
			}
			d, err := xproxy.SOCKS5("tcp", f.addr, auth, nil)
			if err != nil {
				t.Fatal(err)
			}
			if c, err := d.Dial("tcp", "example.com:80"); err == nil {
				_ = c.Close()
				t.Errorf("SOCKS5 without valid credentials connected")
			}
		})
	}
	if got := tn.dialed(); len(got) != 0 {
		t.Errorf("dialed %v for unauthenticated requests", got)
	}

	// Not a proxy request at all.
	resp := rawRequest(t, f.addr, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	if body := readBody(t, resp); resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "This is riot's egress proxy") {
		t.Errorf("GET /: %d %q", resp.StatusCode, body)
	}

	// Unregistered credentials stop working.
	f.p.Unregister(caller)
	code, _, _, err := get(t, f.client(t, nil), "http://example.com/")
	if err != nil || code != http.StatusProxyAuthRequired {
		t.Errorf("after Unregister: %d %v", code, err)
	}
}

func (f *fixture) socks(t testing.TB) xproxy.ContextDialer {
	t.Helper()
	d, err := xproxy.SOCKS5("tcp", f.addr, &xproxy.Auth{User: f.user, Password: f.pass}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return d.(xproxy.ContextDialer)
}

// getOver makes one HTTP request on a connection the caller dialed.
func getOver(t testing.TB, dial func() (net.Conn, error), u string) (string, error) {
	t.Helper()
	tr := &http.Transport{
		DialContext:       func(context.Context, string, string) (net.Conn, error) { return dial() },
		DisableKeepAlives: true,
	}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Get(u)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

func TestSOCKS5(t *testing.T) {
	tn, _, _ := standard(t)
	f := startProxy(t, Options{Policy: policy(t, []string{"example.com"}, []string{"denied.test"})}, tn)
	d := f.socks(t)
	ctx := context.Background()

	// By IP, before any allowed name resolved to the address: refused.
	if c, err := d.DialContext(ctx, "tcp", "203.0.113.10:80"); err == nil {
		_ = c.Close()
		t.Fatal("SOCKS5 by IP connected to an address no allowed name resolved to")
	}
	// By name: allowed, resolved by the proxy.
	body, err := getOver(t, func() (net.Conn, error) { return d.DialContext(ctx, "tcp", "example.com:80") }, "http://example.com/")
	if err != nil || body != "hello from web, host example.com" {
		t.Fatalf("SOCKS5 by name: %q %v", body, err)
	}
	// By IP, now that example.com resolved to it.
	body, err = getOver(t, func() (net.Conn, error) { return d.DialContext(ctx, "tcp", "203.0.113.10:80") }, "http://example.com/")
	if err != nil || body != "hello from web, host example.com" {
		t.Fatalf("SOCKS5 by IP after the name: %q %v", body, err)
	}
	// A denied name.
	if c, err := d.DialContext(ctx, "tcp", "denied.test:443"); err == nil {
		_ = c.Close()
		t.Fatal("SOCKS5 connected to a denied name")
	}
	got := f.p.Denials(caller)
	if len(got) != 2 ||
		got[0].Host != "203.0.113.10" || !strings.Contains(got[0].Reason, "203.0.113.10 is an IP address that no allow rule names and no allowed name resolved to") ||
		got[1].Host != "denied.test" || !strings.Contains(got[1].Reason, `refused by the deny rule "denied.test"`) {
		t.Errorf("Denials = %v", got)
	}
}

// socksRaw runs a SOCKS5 exchange by hand: what x/net/proxy will not
// send (a NUL in a name, BIND). It returns the reply code.
func socksRaw(t testing.TB, f *fixture, cmd byte, name string) byte {
	t.Helper()
	c, err := net.Dial("tcp", f.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	msg := []byte{5, 1, 2, 1, byte(len(f.user))}
	msg = append(msg, f.user...)
	msg = append(msg, byte(len(f.pass)))
	msg = append(msg, f.pass...)
	msg = append(msg, 5, cmd, 0, 3, byte(len(name)))
	msg = append(msg, name...)
	msg = append(msg, 0, 80)
	if _, err := c.Write(msg); err != nil {
		t.Fatal(err)
	}
	reply := make([]byte, 2+2+10)
	if _, err := io.ReadFull(c, reply); err != nil {
		t.Fatal(err)
	}
	if reply[0] != 5 || reply[1] != 2 || reply[2] != 1 || reply[3] != 0 {
		t.Fatalf("negotiation: % x", reply[:4])
	}
	return reply[5]
}

func TestSOCKS5Refusals(t *testing.T) {
	tn, _, _ := standard(t)
	f := startProxy(t, Options{Policy: policy(t, []string{"example.com"}, nil)}, tn)
	const ruleFailure = 2
	if code := socksRaw(t, f, 1, "example.com\x00.evil.test"); code != ruleFailure {
		t.Errorf("NUL in name: reply %d", code)
	}
	if code := socksRaw(t, f, 2, "example.com"); code != ruleFailure {
		t.Errorf("BIND: reply %d", code)
	}
	got := f.p.Denials(caller)
	if len(got) != 2 ||
		!strings.Contains(got[0].Reason, `has a control character or space (byte 0x00 at offset 11)`) ||
		!strings.Contains(got[1].Reason, "the proxy serves SOCKS5 CONNECT (TCP) only") {
		t.Errorf("Denials = %v", got)
	}
}

// TestRebinding: DNS that answers an allowed name with a private address
// gets nowhere; the proxy dials only the addresses it checked.
func TestRebinding(t *testing.T) {
	tn, _, _ := standard(t)
	tn.name("rebind.example.com", "10.0.0.5")
	tn.name("loop.example.com", "127.0.0.1", "::1")
	tn.name("meta.example.com", "169.254.169.254")
	tn.name("mixed.example.com", "10.0.0.5", "203.0.113.10")
	f := startProxy(t, Options{Policy: policy(t, []string{"*.example.com"}, nil)}, tn)
	c := f.client(t, nil)
	for host, want := range map[string]string{
		"rebind.example.com": "rebind.example.com resolved to 10.0.0.5; 10.0.0.5 is a private (RFC 1918) address",
		"loop.example.com":   "loop.example.com resolved to 127.0.0.1; 127.0.0.1 is a loopback address",
		"meta.example.com":   "meta.example.com resolved to 169.254.169.254; 169.254.169.254 is the cloud metadata address",
	} {
		code, _, body, err := get(t, c, "http://"+host+"/")
		if err != nil || code != http.StatusForbidden || !strings.Contains(body, want) {
			t.Errorf("GET %s = %d %q %v, want 403 with %q", host, code, body, err, want)
		}
		if conn, err := f.socks(t).DialContext(context.Background(), "tcp", host+":80"); err == nil {
			_ = conn.Close()
			t.Errorf("SOCKS5 %s connected", host)
		}
	}
	// A private address beside a public one is dropped; the public one
	// is dialed.
	code, _, body, err := get(t, c, "http://mixed.example.com/")
	if err != nil || code != http.StatusOK || body != "hello from web, host mixed.example.com" {
		t.Errorf("mixed: %d %q %v", code, body, err)
	}
	if got := tn.dialed(); len(got) != 1 || got[0] != "203.0.113.10:80" {
		t.Errorf("dialed %v, want only the public address", got)
	}
	// A private address a name resolved to is not "known": by IP it stays
	// refused.
	if conn, err := f.socks(t).DialContext(context.Background(), "tcp", "10.0.0.5:80"); err == nil {
		_ = conn.Close()
		t.Error("SOCKS5 by IP reached a private address a name resolved to")
	}
}

// asker is an Ask that records its questions and answers when released.
type asker struct {
	mu       sync.Mutex
	asked    []Question
	question chan Question
	release  chan Answer
}

func newAsker() *asker {
	return &asker{question: make(chan Question, 16), release: make(chan Answer, 16)}
}

func (a *asker) ask(ctx context.Context, q Question) Answer {
	a.mu.Lock()
	a.asked = append(a.asked, q)
	a.mu.Unlock()
	a.question <- q
	select {
	case ans := <-a.release:
		return ans
	case <-ctx.Done():
		return AnswerDeny
	}
}

func (a *asker) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.asked)
}

func TestAskOnceUnderConcurrency(t *testing.T) {
	tn, _, _ := standard(t)
	tn.name("new.test", "203.0.113.10")
	a := newAsker()
	waiting := make(chan Question, 16)
	f := startProxy(t, Options{Policy: policy(t, []string{"example.com"}, nil), Ask: a.ask}, tn,
		func(p *Proxy) { p.onWait = func(q Question) { waiting <- q } })

	const n = 6
	type result struct {
		code int
		body string
		err  error
	}
	results := make(chan result, n)
	c := f.client(t, nil)
	for range n {
		go func() {
			resp, err := c.Get("http://new.test/")
			if err != nil {
				results <- result{err: err}
				return
			}
			b, err := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			results <- result{resp.StatusCode, string(b), err}
		}()
	}
	q := <-a.question
	if want := (Question{Host: "new.test", Port: 80, Caller: caller, Rule: "new.test:80"}); q != want {
		t.Errorf("question %+v, want %+v", q, want)
	}
	for range n {
		<-waiting // every request is waiting for the one question
	}
	a.release <- AnswerSession
	for range n {
		if r := <-results; r.err != nil || r.code != http.StatusOK || r.body != "hello from web, host new.test" {
			t.Errorf("request: %d %q %v", r.code, r.body, r.err)
		}
	}
	// Remembered for the session: no second question.
	if code, _, _, err := get(t, f.client(t, nil), "http://new.test/again"); err != nil || code != http.StatusOK {
		t.Errorf("again: %d %v", code, err)
	}
	if got := a.count(); got != 1 {
		t.Errorf("asked %d times, want 1", got)
	}
}

func TestAskDenyIsRemembered(t *testing.T) {
	tn, _, _ := standard(t)
	tn.name("new.test", "203.0.113.10")
	a := newAsker()
	a.release <- AnswerDeny
	f := startProxy(t, Options{Policy: policy(t, nil, nil), Ask: a.ask}, tn)
	for range 2 {
		code, _, body, err := get(t, f.client(t, nil), "http://new.test/")
		if want := "the user refused new.test:80 for this session; do not retry it or try to reach it another way"; err != nil || code != http.StatusForbidden || !strings.Contains(body, want) {
			t.Errorf("GET = %d %q %v, want 403 with %q", code, body, err, want)
		}
	}
	if got := a.count(); got != 1 {
		t.Errorf("asked %d times, want 1", got)
	}
	if got := tn.looked(); len(got) != 0 {
		t.Errorf("looked up %v for a refused name", got)
	}
}

func TestAskAlwaysPersists(t *testing.T) {
	tn, _, _ := standard(t)
	tn.name("new.test", "203.0.113.10")
	a := newAsker()
	a.release <- AnswerAlways
	persisted := make(chan string, 4)
	f := startProxy(t, Options{
		Policy:  policy(t, nil, nil),
		Ask:     a.ask,
		Persist: func(rule string) error { persisted <- rule; return errors.New("read-only config") },
	}, tn)
	for range 2 {
		if code, _, _, err := get(t, f.client(t, nil), "http://new.test/"); err != nil || code != http.StatusOK {
			t.Fatalf("GET = %d %v", code, err)
		}
	}
	if got := <-persisted; got != "new.test:80" {
		t.Errorf("persisted %q, want new.test:80", got)
	}
	if len(persisted) != 0 || a.count() != 1 {
		t.Errorf("persisted %d more, asked %d times; want once each", len(persisted), a.count())
	}
}

// TestSessionAnswerIsNotPersisted: a session grant is remembered and
// never written.
func TestSessionAnswerIsNotPersisted(t *testing.T) {
	tn, _, _ := standard(t)
	tn.name("new.test", "203.0.113.10")
	a := newAsker()
	a.release <- AnswerSession
	persisted := make(chan string, 1)
	f := startProxy(t, Options{Policy: policy(t, nil, nil), Ask: a.ask, Persist: func(r string) error { persisted <- r; return nil }}, tn)
	for range 2 {
		if code, _, _, err := get(t, f.client(t, nil), "http://new.test/"); err != nil || code != http.StatusOK {
			t.Fatalf("GET = %d %v", code, err)
		}
	}
	if len(persisted) != 0 || a.count() != 1 {
		t.Errorf("persisted %d, asked %d", len(persisted), a.count())
	}
}

// Nobody could be asked: the connection is refused as an unlisted name is,
// and the question is forgotten, so the next connection asks again.
func TestAskUnaskedIsForgotten(t *testing.T) {
	tn, _, _ := standard(t)
	tn.name("new.test", "203.0.113.10")
	a := newAsker()
	a.release <- AnswerUnasked
	a.release <- AnswerSession
	f := startProxy(t, Options{Policy: policy(t, nil, nil), Ask: a.ask}, tn)
	code, _, body, err := get(t, f.client(t, nil), "http://new.test/")
	if err != nil || code != http.StatusForbidden || strings.Contains(body, "the user refused") || !strings.Contains(body, "new.test") {
		t.Errorf("unasked: GET = %d %q %v, want 403 naming new.test, not a refusal by the user", code, body, err)
	}
	if code, _, _, err := get(t, f.client(t, nil), "http://new.test/"); err != nil || code != http.StatusOK {
		t.Errorf("asked again and allowed: GET = %d %v", code, err)
	}
	if got := a.count(); got != 2 {
		t.Errorf("asked %d times, want 2", got)
	}
}
