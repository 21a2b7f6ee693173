package egress

import (
	"context"
	"errors"
	"net"

	// armon/go-socks5 is the SOCKS5 server Debian and Fedora package
	// (golang-github-armon-go-socks5). Its maintained forks are not
	// served by the module proxy riot builds from; the proxy replaces
	// its resolver, rule set and dial, which is where its age would show.
	socks5 "github.com/armon/go-socks5"
	"github.com/hashicorp/go-hclog"
)

const socks5Version = 5

func (p *Proxy) initSOCKS() {
	srv, err := socks5.New(&socks5.Config{
		// Username/password only: a client without credentials is
		// refused at the method negotiation.
		Credentials: socksCredentials{p},
		Resolver:    socksNoLookup{},
		Rules:       socksRules{p},
		Dial:        p.dialSOCKS,
		Logger:      p.log.StandardLogger(&hclog.StandardLoggerOptions{ForceLevel: hclog.Debug}),
	})
	if err != nil {
		p.log.Error("egress: SOCKS5 is unavailable", "error", err)
		return
	}
	p.socks = srv
}

func (p *Proxy) serveSOCKS(c *clientConn) {
	if p.socks == nil {
		_ = c.Close()
		return
	}
	if err := p.socks.ServeConn(c); err != nil {
		p.log.Debug("egress: SOCKS5 connection ended", "error", err)
	}
}

type socksCredentials struct{ p *Proxy }

func (s socksCredentials) Valid(user, password string) bool {
	_, ok := s.p.authenticate(user, password)
	return ok
}

// socksNoLookup leaves names unresolved: the policy must decide before
// any lookup, so that a refused name never reaches DNS. socksRules
// resolves after deciding.
type socksNoLookup struct{}

func (socksNoLookup) Resolve(ctx context.Context, _ string) (context.Context, net.IP, error) {
	return ctx, nil, nil
}

// socksRules decides each SOCKS5 request and hands the checked route to
// dialSOCKS through the context.
type socksRules struct{ p *Proxy }

func (s socksRules) Allow(ctx context.Context, req *socks5.Request) (context.Context, bool) {
	p := s.p
	var user string
	if req.AuthContext != nil {
		user = req.AuthContext.Payload["Username"]
	}
	p.mu.Lock()
	cred, ok := p.users[user]
	p.mu.Unlock()
	if !ok || req.DestAddr == nil {
		return ctx, false
	}
	host := req.DestAddr.FQDN
	if host == "" {
		host = req.DestAddr.IP.String()
	}
	port := req.DestAddr.Port
	if req.Command != socks5.ConnectCommand {
		_ = p.refuse(cred.caller, host, port, "the proxy serves SOCKS5 CONNECT (TCP) only, not BIND or UDP ASSOCIATE; use TCP")
		return ctx, false
	}
	rt, err := p.decide(p.ctx, cred.caller, host, port)
	if err != nil {
		var rf *refusal
		if !errors.As(err, &rf) {
			p.log.Debug("egress: SOCKS5 request failed", "host", host, "error", err)
		}
		return ctx, false
	}
	return context.WithValue(ctx, routeKey{}, rt), true
}

func (p *Proxy) dialSOCKS(ctx context.Context, _, _ string) (net.Conn, error) {
	rt, ok := ctx.Value(routeKey{}).(route)
	if !ok {
		return nil, errors.New("egress: refusing a dial no check routed")
	}
	return p.dial(ctx, rt)
}
