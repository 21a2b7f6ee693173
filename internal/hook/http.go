package hook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/riot-tools/riot/internal/egress"
)

// Network decides where HTTP hooks may connect: the URL's host first,
// then each address it resolved to, so that a name cannot lead past the
// check to an address it would refuse.
type Network interface {
	Check(host string, port int) error
	CheckAddr(host string, port int, a netip.Addr) error
}

// post runs an HTTP hook: the event is POSTed as JSON; a 2xx answer is
// Done with its body as the answer, any other status, a redirect
// included, a failure. There is no exit status 2: a handler blocks by
// answering with a decision.
func (r *Runner) post(ctx context.Context, h Handler, input []byte) (Result, []byte, bool) {
	u, err := url.Parse(h.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return Fail(h, "its url is not an http:// or https:// URL"), nil, false
	}
	port := 80
	if u.Scheme == "https" {
		port = 443
	}
	if p := u.Port(); p != "" {
		if port, err = strconv.Atoi(p); err != nil {
			return Fail(h, "its url's port is not a number"), nil, false
		}
	}
	if r.Network == nil {
		return Fail(h, "riot reaches no network from this host"), nil, false
	}
	if err := r.Network.Check(u.Hostname(), port); err != nil {
		return Fail(h, "riot may not connect to its url: "+err.Error()), nil, false
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(input))
	if err != nil {
		return Fail(h, "its request could not be made"+note(err.Error())), nil, false
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range h.Headers {
		req.Header.Set(k, r.expand(v, h.AllowedEnvVars))
	}
	resp, err := r.client(u.Hostname()).Do(req)
	if err != nil {
		var refused *refusedError
		if errors.As(err, &refused) {
			return Fail(h, "riot may not connect to its url: "+refused.Error()), nil, false
		}
		return Fail(h, "it could not be reached"+note(err.Error())), nil, false
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(io.LimitReader(resp.Body, OutputCap+1))
	over := len(body) > OutputCap
	body = body[:min(len(body), OutputCap)]
	switch {
	case ctx.Err() != nil:
		return Result{Status: Failed}, nil, false // Run reads the context
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		return Fail(h, fmt.Sprintf("it answered HTTP status %d%s", resp.StatusCode, note(string(body)))), nil, false
	case err != nil:
		return Fail(h, "its answer could not be read"+note(err.Error())), nil, false
	}
	return Result{Status: Done}, body, over
}

// client connects only where the Network lets it: no proxy from the
// environment, no redirect followed, every resolved address checked.
func (r *Runner) client(host string) *http.Client {
	d := &net.Dialer{}
	tr := &http.Transport{
		Proxy: nil,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			h, p, err := net.SplitHostPort(addr)
			if err != nil {
				return nil, err
			}
			port, err := strconv.Atoi(p)
			if err != nil {
				return nil, err
			}
			ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", h)
			if err != nil {
				return nil, err
			}
			var last error
			for _, ip := range ips {
				if err := r.Network.CheckAddr(host, port, ip.Unmap()); err != nil {
					last = &refusedError{err}
					continue
				}
				c, err := d.DialContext(ctx, network, net.JoinHostPort(ip.Unmap().String(), p))
				if err == nil {
					return c, nil
				}
				last = err
			}
			if last == nil {
				last = fmt.Errorf("%s resolved to no address", h)
			}
			return nil, last
		},
		DisableKeepAlives: true,
	}
	return &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

type refusedError struct{ err error }

func (e *refusedError) Error() string { return e.err.Error() }

// expand replaces $NAME and ${NAME} in a header value by the variable's
// value when allowed names it, and by nothing otherwise, as Claude Code
// does: a config cannot send a secret the user did not list.
func (r *Runner) expand(v string, allowed []string) string {
	return os.Expand(v, func(name string) string {
		if r.Getenv == nil || !slices.Contains(allowed, name) {
			return ""
		}
		return r.Getenv(name)
	})
}

// LoopbackOr is the Network of HTTP hooks: loopback always, and otherwise
// what the session's network policy allows without asking.
func LoopbackOr(p egress.Policy) Network { return policyNet{p} }

type policyNet struct{ p egress.Policy }

func isLoopbackName(host string) bool {
	if strings.EqualFold(strings.TrimSuffix(host, "."), "localhost") {
		return true
	}
	a, err := netip.ParseAddr(strings.Trim(host, "[]"))
	return err == nil && a.Unmap().IsLoopback()
}

func (n policyNet) Check(host string, port int) error {
	if isLoopbackName(host) {
		return nil
	}
	d := n.p.Check(host, port)
	if d.Verdict == egress.Allow {
		return nil
	}
	return fmt.Errorf("%s is neither loopback nor allowed by [sandbox.network] allowed_domains (%s)", host, strings.TrimSuffix(d.Reason, "."))
}

// CheckAddr lets a loopback name reach only loopback, and any other name
// only the addresses the network policy lets a sandboxed command reach
// (egress.Policy.CheckResolved: private ranges with allow_private, cloud
// metadata never unless an allow rule names it): one rule for both.
func (n policyNet) CheckAddr(host string, port int, a netip.Addr) error {
	if isLoopbackName(host) {
		if a.IsLoopback() {
			return nil
		}
		return fmt.Errorf("%s resolved to %s, which is not a loopback address", host, a)
	}
	if kept, dropped := n.p.CheckResolved(host, port, []netip.Addr{a}); len(kept) == 0 {
		return errors.New(dropped)
	}
	return nil
}
