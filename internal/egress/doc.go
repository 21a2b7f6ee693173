// Package egress is riot's network policy for sandboxed commands and the
// per-session proxy that enforces it. In proxy mode a command has no
// network of its own; it reaches the outside only through a Proxy, which
// lets through what the policy, or the user, allows. config imports it to
// validate [sandbox.network] entries, core to run a session's Proxy.
//
// # Policy
//
// ParseRule reads one allowed_domains or denied_domains entry:
//
//	example.com          that name, every port
//	example.com:443      that name, one port
//	*.example.com        every subdomain of example.com, at any depth,
//	                     but not example.com itself: list both to get both
//	*.example.com:22     the same, one port
//	192.0.2.1, [2001:db8::1]:443
//	                     an IP address, in its usual spelling
//
// Rules come from ParseRule, never built by hand: matching compares the
// canonical forms it makes. Case is folded and Unicode names become
// punycode, so one rule covers
// every spelling of a name. Policy{Allowed, Denied, AllowPrivate}.Check
// decides a host and port: Deny, Allow or Ask, with a Reason for the
// model. Deny rules win. A name no rule covers is Ask. A host is read
// failing closed: a control character or space, a trailing dot, an empty
// label, an over-long name or label, or a name IDNA (the lookup profile)
// rejects is refused with its own reason. IP literals are read in every
// form clients accept (2130706433, 0177.0.0.1, 0x7f.1, 127.1, [::1],
// ::ffff:127.0.0.1, zones). Private, loopback, link-local, CGNAT, unique
// local, multicast and unspecified addresses are refused unless
// AllowPrivate; cloud metadata addresses unless AllowPrivate and an allow
// rule names them. A public IP literal is allowed only when a rule names
// it, or, in a Proxy, when an allowed name resolved to it earlier in the
// session.
//
// # Proxy
//
//	p := egress.New(egress.Options{Policy: pol, Ask: ask, Persist: persist})
//	go p.Serve(listener) // a Unix socket the sandbox reaches
//	user, pass := p.Register(callID)
//	// run the command with HTTP_PROXY, HTTPS_PROXY and ALL_PROXY naming
//	// the proxy with user:pass (socks5h:// for ALL_PROXY)
//	denied := p.Denials(callID) // tell the model in the call's result
//	p.Unregister(callID)
//	p.Close() // at the end of the session
//
// One listener serves both protocols, told apart by the first byte: HTTP
// (absolute-URL requests and CONNECT tunnels, through
// github.com/elazarl/goproxy, never intercepting TLS) and SOCKS5 CONNECT
// (through github.com/armon/go-socks5). Every request must carry a
// registered caller's credentials (407, or a SOCKS5 authentication
// failure, otherwise). The proxy resolves names itself, checks every
// address, and dials only an address it checked, so DNS that points an
// allowed name at a private address gets nowhere. A CONNECT or request
// whose Host header names another authority than its target is refused.
// Refusals are 403 with an X-Riot-Egress: denied header (Header) and a
// plain-text body naming the host and the config line that would allow
// it; each is also kept for Denials. An HTTP connection carries one
// request: the proxy reads the head itself to see the Host header.
//
// A name no rule covers is put to Options.Ask once per session per
// host:port; concurrent connections wait for that one question. Answers
// are remembered for the session, in memory; AnswerAlways also calls
// Options.Persist with the entry to write. With no Ask such names are
// refused.
package egress
