package egress

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// Rule is one entry of allowed_domains or denied_domains: an exact name,
// a wildcard over a name's subdomains, or an IP address, each with an
// optional port.
type Rule struct {
	// Host is the name in lowercase ASCII (Unicode names in punycode),
	// without the "*." of a wildcard; or the address, for an IP rule.
	Host string
	// Wildcard is set for "*.example.com", which matches every name under
	// example.com at any depth, and not example.com itself.
	Wildcard bool
	// Port is the one port the rule matches, or 0 for every port.
	Port int

	addr netip.Addr
}

// ParseRule reads one config entry: "example.com", "*.example.com",
// "example.com:443", "*.example.com:22", "192.0.2.1", "[2001:db8::1]:443".
// Case is folded and Unicode names become punycode. Its errors name the
// bad part and say what to write instead.
func ParseRule(s string) (Rule, error) {
	if s == "" {
		return Rule{}, errors.New("the entry is empty; write a host name such as example.com, *.example.com for its subdomains, or example.com:443 for one port")
	}
	if scheme, rest, ok := strings.Cut(s, "://"); ok {
		return Rule{}, fmt.Errorf("%s has a scheme (%s://); write the host alone: %s", quoteHost(s), scheme, quoteHost(strings.SplitN(rest, "/", 2)[0]))
	}
	if strings.ContainsAny(s, "/?#") {
		return Rule{}, fmt.Errorf("%s has a path; write only the host, optionally with :port (rules match hosts, not URLs)", quoteHost(s))
	}
	if strings.Contains(s, "@") {
		return Rule{}, fmt.Errorf("%s has user information before @; write only the host", quoteHost(s))
	}
	host, port, err := splitRule(s)
	if err != nil {
		return Rule{}, err
	}
	r := Rule{Port: port}
	if rest, ok := strings.CutPrefix(host, "*."); ok {
		r.Wildcard, host = true, rest
	}
	if strings.Contains(host, "*") {
		if host == "*" && !r.Wildcard {
			return Rule{}, fmt.Errorf("%s would match every host; list the domains instead", quoteHost(s))
		}
		return Rule{}, fmt.Errorf("%s has a * that is not the whole first label; write *.example.com to match the subdomains of example.com", quoteHost(s))
	}
	t, err := normalizeHost(host)
	if err != nil {
		return Rule{}, fmt.Errorf("in %s: %w", quoteHost(s), err)
	}
	if t.addr.IsValid() {
		if r.Wildcard {
			return Rule{}, fmt.Errorf("%s puts a wildcard on an IP address; write the address alone", quoteHost(s))
		}
		if t.addr.Zone() != "" {
			return Rule{}, fmt.Errorf("%s has an interface zone (%%%s); write the address without it", quoteHost(s), t.addr.Zone())
		}
		// Only the usual spelling is accepted, so a reader of the config
		// sees the address the rule names.
		plain := strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
		if std, err := netip.ParseAddr(plain); err != nil || std.Unmap() != t.addr {
			return Rule{}, fmt.Errorf("%s writes an address in an unusual form; write it as %s", quoteHost(s), t.addr)
		}
		r.addr = t.addr
	}
	r.Host = t.String()
	return r, nil
}

// splitRule splits an entry into its host and port (0 when absent).
func splitRule(s string) (host string, port int, err error) {
	host, ps := s, ""
	switch {
	case strings.HasPrefix(s, "["):
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return "", 0, fmt.Errorf("%s opens a bracket it does not close; write [2001:db8::1] or [2001:db8::1]:443", quoteHost(s))
		}
		host, ps = s[:end+1], s[end+1:]
		if ps != "" {
			var ok bool
			if ps, ok = strings.CutPrefix(ps, ":"); !ok {
				return "", 0, fmt.Errorf("%s has %s after the bracketed address; write [address] or [address]:port", quoteHost(s), quoteHost(ps))
			}
		}
	case strings.Count(s, ":") > 1:
		// A bare IPv6 address; a port needs brackets.
	default:
		if i := strings.LastIndexByte(s, ':'); i >= 0 {
			host, ps = s[:i], s[i+1:]
		}
	}
	if host != s {
		n, err := strconv.Atoi(ps)
		if err != nil || n < 1 || n > 65535 || strconv.Itoa(n) != ps {
			return "", 0, fmt.Errorf("%s has the port %s; write a port from 1 to 65535, or leave out :port to match every port", quoteHost(s), quoteHost(ps))
		}
		port = n
	}
	return host, port, nil
}

// String is the rule as a config entry, in canonical form.
func (r Rule) String() string {
	h := r.Host
	if r.Wildcard {
		h = "*." + h
	}
	if r.Port == 0 {
		return h
	}
	if r.addr.Is6() {
		h = "[" + h + "]"
	}
	return h + ":" + strconv.Itoa(r.Port)
}

// matches reports whether the rule covers host t on port.
func (r Rule) matches(t target, port int) bool {
	if r.Port != 0 && r.Port != port {
		return false
	}
	if t.addr.IsValid() || r.addr.IsValid() {
		return r.addr.IsValid() && t.addr.WithZone("") == r.addr
	}
	if r.Wildcard {
		return strings.HasSuffix(t.name, "."+r.Host)
	}
	return t.name == r.Host
}

// ruleFor is the entry naming exactly host:port, as Persist writes it.
func ruleFor(t target, port int) string {
	return Rule{Host: t.String(), Port: port, addr: t.addr}.String()
}
