package egress

import (
	"fmt"
	"net/netip"
	"strconv"
)

// Policy is a session's network policy, as [sandbox.network] writes it.
type Policy struct {
	// Allowed are the hosts commands reach without asking.
	Allowed []Rule
	// Denied are refused even when an allow rule, an answer or an earlier
	// resolution covers them: deny wins.
	Denied []Rule
	// AllowPrivate lifts the refusal of private, loopback, link-local,
	// CGNAT, unique local, multicast and unspecified addresses. The cloud
	// metadata address stays refused unless an allow rule also names it.
	AllowPrivate bool
}

// Verdict is what a Policy decides for a host and port.
type Verdict int

const (
	// Deny refuses the connection. It is the zero value, so a Verdict
	// nobody set refuses.
	Deny Verdict = iota
	// Allow lets the connection through.
	Allow
	// Ask means no rule covers the name: the user decides, and with
	// nobody to ask it is refused.
	Ask
)

func (v Verdict) String() string {
	switch v {
	case Deny:
		return "deny"
	case Allow:
		return "allow"
	case Ask:
		return "ask"
	default:
		return "deny (" + strconv.Itoa(int(v)) + ")"
	}
}

// Decision is a Policy's answer for one host and port.
type Decision struct {
	Verdict Verdict
	// Host is the host as rules match it (lowercase, punycode, or the
	// address in its usual form); when the host cannot be read, it is the
	// host as given, quoted.
	Host string
	// Reason says why, for the model. For Ask it is the reason the
	// connection is refused when nobody answers.
	Reason string
}

// Check decides whether a command may connect to host (a name or an IP
// literal in any spelling, without its port) on port. Deny rules win over
// allow rules. A name no rule covers is Ask. An IP literal is allowed
// only when a rule names it; the Proxy also allows addresses it resolved
// for an allowed name earlier in the session.
func (p Policy) Check(host string, port int) Decision {
	d, _ := p.check(host, port, nil)
	return d
}

// check is Check with the session's memory of resolved addresses (nil
// for none), returning the host as read.
func (p Policy) check(host string, port int, known func(netip.Addr) bool) (Decision, target) {
	t, err := normalizeHost(host)
	if err != nil {
		return Decision{Verdict: Deny, Host: quoteHost(host), Reason: err.Error()}, target{}
	}
	d := Decision{Host: t.String()}
	if port < 1 || port > 65535 {
		d.Reason = fmt.Sprintf("port %d is not a port; use a port from 1 to 65535", port)
		return d, t
	}
	if r, ok := firstMatch(p.Denied, t, port); ok {
		d.Reason = deniedReason(d.Host, port, r)
		return d, t
	}
	allow, allowed := firstMatch(p.Allowed, t, port)
	if t.addr.IsValid() {
		if reason := p.refuseAddr(t.addr, allowed); reason != "" {
			d.Reason = reason
			return d, t
		}
		if t.addr.Zone() != "" {
			d.Reason = fmt.Sprintf("%s names an interface zone; zones reach local links only, so connect to the host by name", t.addr)
			return d, t
		}
		switch {
		case allowed:
			d.Verdict, d.Reason = Allow, fmt.Sprintf("%s matches the allow rule %q", d.Host, allow.String())
		case known != nil && known(t.addr):
			d.Verdict, d.Reason = Allow, fmt.Sprintf("%s is an address an allowed name resolved to in this session", d.Host)
		default:
			d.Reason = fmt.Sprintf("%s is an IP address that no allow rule names and no allowed name resolved to; connect by name through the proxy (socks5h://, curl --socks5-hostname) so the name is checked, or ask the user to allow the address: %s", d.Host, configLine(d.Host))
		}
		return d, t
	}
	if allowed {
		d.Verdict, d.Reason = Allow, fmt.Sprintf("%s matches the allow rule %q", d.Host, allow.String())
		return d, t
	}
	d.Verdict, d.Reason = Ask, notAllowedReason(d.Host)
	return d, t
}

// refuseAddr is why address a may not be reached, or "" when it may,
// given whether an allow rule names it.
func (p Policy) refuseAddr(a netip.Addr, named bool) string {
	class := privateClass(a)
	switch {
	case class == "":
		return ""
	case isMetadata(a) && (!p.AllowPrivate || !named):
		return fmt.Sprintf("%s is %s, which hands out the machine's credentials; do not try to reach it", a.WithZone(""), class)
	case !p.AllowPrivate:
		return fmt.Sprintf("%s is %s; the sandbox reaches private addresses only if the user sets allow_private = true under [sandbox.network]", a.WithZone(""), class)
	}
	return ""
}

// CheckResolved keeps the addresses a name resolved to that the policy
// lets a connection reach, and says why the first other one was dropped.
// The proxy applies it to every name it dials, and so do HTTP hooks.
func (p Policy) CheckResolved(host string, port int, addrs []netip.Addr) (kept []netip.Addr, dropped string) {
	for _, a := range addrs {
		a = a.Unmap()
		t := target{addr: a}
		if r, ok := firstMatch(p.Denied, t, port); ok {
			if dropped == "" {
				dropped = fmt.Sprintf("%s resolved to %s, which the deny rule %q covers", host, a, r.String())
			}
			continue
		}
		_, named := firstMatch(p.Allowed, t, port)
		if reason := p.refuseAddr(a, named); reason != "" {
			if dropped == "" {
				dropped = fmt.Sprintf("%s resolved to %s; %s", host, a, reason)
			}
			continue
		}
		kept = append(kept, a)
	}
	return kept, dropped
}

func firstMatch(rules []Rule, t target, port int) (Rule, bool) {
	for _, r := range rules {
		if r.matches(t, port) {
			return r, true
		}
	}
	return Rule{}, false
}

// configLine is the config that would allow host, for messages.
func configLine(host string) string {
	return fmt.Sprintf("allowed_domains = [%q] under [sandbox.network]", host)
}

func notAllowedReason(host string) string {
	return fmt.Sprintf("%s is not an allowed domain. If the task needs it, ask the user to allow it: %s", host, configLine(host))
}

func deniedReason(host string, port int, r Rule) string {
	return fmt.Sprintf("%s:%d is refused by the deny rule %q in denied_domains; do not try to reach it another way", host, port, r.String())
}
