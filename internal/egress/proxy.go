package egress

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"time"

	socks5 "github.com/armon/go-socks5"
	"github.com/elazarl/goproxy"
	"github.com/hashicorp/go-hclog"
)

// Resolver looks up the addresses of a name; *net.Resolver is one.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Dialer opens connections to the addresses the proxy checked;
// *net.Dialer is one.
type Dialer interface {
	DialContext(ctx context.Context, network, address string) (net.Conn, error)
}

// Options configure a Proxy.
type Options struct {
	// Policy decides each connection.
	Policy Policy
	// Ask puts a name no rule covers to the user. It must return when ctx
	// is done (the Proxy is closing). Nil refuses such names.
	Ask func(ctx context.Context, q Question) Answer
	// Persist writes an "always" answer to the user's config, as one
	// allowed_domains entry. Nil keeps such answers for the session only.
	Persist func(rule string) error
	// Resolver resolves names; nil is net.DefaultResolver.
	Resolver Resolver
	// Dialer connects to checked addresses; nil is a net.Dialer with
	// DialTimeout.
	Dialer Dialer
	// Logger gets what the proxy refused and why; nil discards.
	Logger hclog.Logger
}

// DialTimeout bounds a connection attempt of the default Dialer.
const DialTimeout = 30 * time.Second

// maxDenials bounds what one call keeps before Denials reads it.
const maxDenials = 64

// Denial is a connection the proxy refused a caller.
type Denial struct {
	// Host is the host as rules match it, or as the command sent it
	// (quoted) when it could not be read.
	Host string
	Port int
	// Reason is for the model: why, and what would allow it.
	Reason string
}

// Proxy is one session's egress proxy. It serves HTTP (absolute-URL
// requests and CONNECT tunnels) and SOCKS5 on the same listeners, tells
// them apart by their first byte, and lets through only what the policy,
// or the user, allows.
type Proxy struct {
	policy   Policy
	ask      func(context.Context, Question) Answer
	persist  func(string) error
	resolver Resolver
	dialer   Dialer
	log      hclog.Logger

	ctx    context.Context // done when the Proxy closes
	cancel context.CancelFunc

	http    *http.Server
	queue   *connQueue // accepted HTTP connections, for http
	gp      *goproxy.ProxyHttpServer
	tr      *http.Transport
	socks   *socks5.Server
	workers sync.WaitGroup // every goroutine the Proxy starts or serves in

	mu        sync.Mutex
	closed    bool
	listeners map[net.Listener]struct{}
	conns     map[net.Conn]struct{} // client and upstream connections open
	users     map[string]credential // by user name
	callers   map[string]string     // caller → user name
	denials   map[string][]Denial   // by caller
	answers   map[string]*asked     // by host:port
	known     map[netip.Addr]struct{}

	// onWait, when set (by tests), is called as a connection starts
	// waiting for the user's answer.
	onWait func(Question)
}

type credential struct {
	caller, password string
}

// New makes a session's Proxy. Serve it on a listener; Close it when the
// session ends.
func New(opts Options) *Proxy {
	p := &Proxy{
		policy:    copyPolicy(opts.Policy),
		ask:       opts.Ask,
		persist:   opts.Persist,
		resolver:  opts.Resolver,
		dialer:    opts.Dialer,
		log:       opts.Logger,
		listeners: map[net.Listener]struct{}{},
		conns:     map[net.Conn]struct{}{},
		users:     map[string]credential{},
		callers:   map[string]string{},
		denials:   map[string][]Denial{},
		answers:   map[string]*asked{},
		known:     map[netip.Addr]struct{}{},
	}
	if p.resolver == nil {
		p.resolver = net.DefaultResolver
	}
	if p.dialer == nil {
		p.dialer = &net.Dialer{Timeout: DialTimeout}
	}
	if p.log == nil {
		p.log = hclog.NewNullLogger()
	}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	p.initHTTP()
	p.initSOCKS()
	return p
}

func copyPolicy(p Policy) Policy {
	p.Allowed = append([]Rule(nil), p.Allowed...)
	p.Denied = append([]Rule(nil), p.Denied...)
	return p
}

// Serve accepts connections on l until Close, which closes l; it then
// returns nil. It returns the listener's error if l fails first.
func (p *Proxy) Serve(l net.Listener) error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		_ = l.Close()
		return nil
	}
	p.listeners[l] = struct{}{}
	p.mu.Unlock()
	for {
		c, err := l.Accept()
		if err != nil {
			p.mu.Lock()
			closed := p.closed
			delete(p.listeners, l)
			p.mu.Unlock()
			if closed {
				return nil
			}
			return err
		}
		cc := &clientConn{Conn: c, p: p}
		if !p.track(cc) || !p.start(func() { p.serveConn(cc) }) {
			_ = cc.Close()
			return nil
		}
	}
}

// Close stops the listeners, ends every connection and tunnel, and waits
// for the proxy's goroutines.
func (p *Proxy) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	ls := make([]net.Listener, 0, len(p.listeners))
	for l := range p.listeners {
		ls = append(ls, l)
	}
	conns := make([]net.Conn, 0, len(p.conns))
	for c := range p.conns {
		conns = append(conns, c)
	}
	p.mu.Unlock()

	p.cancel()
	for _, l := range ls {
		_ = l.Close()
	}
	_ = p.http.Close()
	for _, c := range conns {
		_ = c.Close()
	}
	p.workers.Wait()
	p.tr.CloseIdleConnections()
	return nil
}

// start runs f in a goroutine Close waits for, unless the Proxy is closed.
func (p *Proxy) start(f func()) bool {
	if !p.enter() {
		return false
	}
	go func() {
		defer p.workers.Done()
		f()
	}()
	return true
}

// enter counts the caller as a worker Close waits for; false once closed.
func (p *Proxy) enter() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.workers.Add(1)
	return true
}

// track records an open connection for Close; false once closed.
func (p *Proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *Proxy) untrack(c net.Conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
}

// Register gives a caller (one tool call) the credentials its command
// sends as proxy credentials: user:password in the proxy URL, which HTTP
// clients send as Proxy-Authorization Basic and SOCKS5 clients as
// username/password authentication. Registering a caller again replaces
// its credentials.
func (p *Proxy) Register(caller string) (user, password string) {
	user, password = rand.Text(), rand.Text()
	p.mu.Lock()
	defer p.mu.Unlock()
	if old, ok := p.callers[caller]; ok {
		delete(p.users, old)
	}
	p.users[user] = credential{caller: caller, password: password}
	p.callers[caller] = user
	return user, password
}

// Unregister revokes a caller's credentials and drops its denials.
// Tunnels it opened stay open until they end.
func (p *Proxy) Unregister(caller string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if user, ok := p.callers[caller]; ok {
		delete(p.users, user)
	}
	delete(p.callers, caller)
	delete(p.denials, caller)
}

// Denials returns what the proxy refused the caller since the last call,
// oldest first, and forgets it.
func (p *Proxy) Denials(caller string) []Denial {
	p.mu.Lock()
	defer p.mu.Unlock()
	d := p.denials[caller]
	delete(p.denials, caller)
	return d
}

// authenticate returns the caller whose credentials these are.
func (p *Proxy) authenticate(user, password string) (string, bool) {
	p.mu.Lock()
	c, ok := p.users[user]
	p.mu.Unlock()
	if !ok || subtle.ConstantTimeCompare([]byte(c.password), []byte(password)) != 1 {
		return "", false
	}
	return c.caller, true
}

// refusal is a connection the policy or the user refused.
type refusal struct{ Denial }

func (r *refusal) Error() string { return r.Reason }

// route is where a checked connection may go: the host as checked and
// the addresses that passed the checks, tried in order.
type route struct {
	host  string
	port  int
	addrs []netip.Addr
}

// decide checks a caller's connection to host:port: the policy, the
// user's answer for a name no rule covers, then every address the name
// resolves to. It returns a *refusal, recorded for Denials, or another
// error when the name does not resolve.
func (p *Proxy) decide(ctx context.Context, caller, host string, port int) (route, error) {
	d, t := p.policy.check(host, port, p.isKnown)
	switch d.Verdict {
	case Allow:
	case Ask:
		if reason := p.answerFor(ctx, caller, t, port, d.Reason); reason != "" {
			return route{}, p.refuse(caller, d.Host, port, reason)
		}
	case Deny:
		return route{}, p.refuse(caller, d.Host, port, d.Reason)
	default:
		return route{}, p.refuse(caller, d.Host, port, d.Reason)
	}
	if t.addr.IsValid() {
		return route{host: d.Host, port: port, addrs: []netip.Addr{t.addr}}, nil
	}
	addrs, err := p.resolver.LookupNetIP(ctx, "ip", t.name)
	if err != nil {
		return route{}, fmt.Errorf("cannot resolve %s: %w", t.name, err)
	}
	kept, dropped := p.policy.CheckResolved(t.name, port, addrs)
	if len(kept) == 0 {
		if dropped == "" {
			return route{}, fmt.Errorf("%s resolved to no address", t.name)
		}
		return route{}, p.refuse(caller, d.Host, port, dropped)
	}
	p.mu.Lock()
	for _, a := range kept {
		p.known[a] = struct{}{}
	}
	p.mu.Unlock()
	return route{host: d.Host, port: port, addrs: kept}, nil
}

func (p *Proxy) isKnown(a netip.Addr) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, ok := p.known[a]
	return ok
}

// refuse records a refusal for the caller and returns it.
func (p *Proxy) refuse(caller, host string, port int, reason string) *refusal {
	d := Denial{Host: host, Port: port, Reason: reason}
	p.log.Debug("egress refused", "caller", caller, "host", host, "port", port, "reason", reason)
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.callers[caller]; ok {
		list := p.denials[caller]
		seen := false
		for _, e := range list {
			seen = seen || e == d
		}
		if !seen && len(list) < maxDenials {
			p.denials[caller] = append(list, d)
		}
	}
	return &refusal{d}
}

// dial connects to the first address of r that answers. The connection
// is tracked, so Close ends it.
func (p *Proxy) dial(ctx context.Context, r route) (net.Conn, error) {
	if len(r.addrs) == 0 {
		return nil, errors.New("egress: no checked address to dial")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(p.ctx, cancel)
	defer stop()
	var errs []error
	for _, a := range r.addrs {
		c, err := p.dialer.DialContext(ctx, "tcp", netip.AddrPortFrom(a, uint16(r.port)).String())
		if err != nil {
			errs = append(errs, err)
			continue
		}
		t := &targetConn{Conn: c, p: p}
		if !p.track(t) {
			_ = c.Close()
			return nil, net.ErrClosed
		}
		return t, nil
	}
	return nil, fmt.Errorf("cannot connect to %s:%s: %w", r.host, strconv.Itoa(r.port), errors.Join(errs...))
}
