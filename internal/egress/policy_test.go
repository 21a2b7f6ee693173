package egress

import (
	"net/netip"
	"strings"
	"testing"
)

func mustRules(t testing.TB, entries ...string) []Rule {
	t.Helper()
	rules := make([]Rule, 0, len(entries))
	for _, e := range entries {
		r, err := ParseRule(e)
		if err != nil {
			t.Fatalf("ParseRule(%q): %v", e, err)
		}
		rules = append(rules, r)
	}
	return rules
}

func TestParseRule(t *testing.T) {
	for _, tc := range []struct {
		in       string
		host     string
		wildcard bool
		port     int
		str      string
	}{
		{"example.com", "example.com", false, 0, "example.com"},
		{"Example.COM", "example.com", false, 0, "example.com"},
		{"example.com:443", "example.com", false, 443, "example.com:443"},
		{"*.example.com", "example.com", true, 0, "*.example.com"},
		{"*.example.com:22", "example.com", true, 22, "*.example.com:22"},
		{"bücher.example", "xn--bcher-kva.example", false, 0, "xn--bcher-kva.example"},
		{"*.BÜCHER.example", "xn--bcher-kva.example", true, 0, "*.xn--bcher-kva.example"},
		{"192.0.2.1", "192.0.2.1", false, 0, "192.0.2.1"},
		{"192.0.2.1:8080", "192.0.2.1", false, 8080, "192.0.2.1:8080"},
		{"2001:db8::1", "2001:db8::1", false, 0, "2001:db8::1"},
		{"[2001:db8::1]", "2001:db8::1", false, 0, "2001:db8::1"},
		{"[2001:DB8::1]:443", "2001:db8::1", false, 443, "[2001:db8::1]:443"},
		{"::ffff:192.0.2.1", "192.0.2.1", false, 0, "192.0.2.1"},
		{"localhost", "localhost", false, 0, "localhost"},
	} {
		r, err := ParseRule(tc.in)
		if err != nil {
			t.Errorf("ParseRule(%q): %v", tc.in, err)
			continue
		}
		if r.Host != tc.host || r.Wildcard != tc.wildcard || r.Port != tc.port || r.String() != tc.str {
			t.Errorf("ParseRule(%q) = %+v (%s), want host %q wildcard %v port %d (%s)", tc.in, r, r, tc.host, tc.wildcard, tc.port, tc.str)
		}
	}
}

func TestParseRuleErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "the entry is empty; write a host name such as example.com"},
		{"https://example.com/x", `has a scheme (https://); write the host alone: "example.com"`},
		{"example.com/path", "has a path; write only the host"},
		{"user@example.com", "has user information before @"},
		{"example.com:0", `has the port "0"; write a port from 1 to 65535`},
		{"example.com:65536", `has the port "65536"`},
		{"example.com:https", `has the port "https"`},
		{"example.com:", `has the port ""`},
		{"example.com:+443", `has the port "+443"`},
		{"*", "would match every host; list the domains instead"},
		{"*example.com", "has a * that is not the whole first label; write *.example.com"},
		{"a.*.example.com", "has a * that is not the whole first label"},
		{"*.*.example.com", "has a * that is not the whole first label"},
		{"example.com.", `ends with a dot; use the name without the trailing dot: "example.com"`},
		{"*.example.com.", "ends with a dot; use the name without the trailing dot"},
		{"exa mple.com", "has a control character or space (byte 0x20 at offset 3)"},
		{"example.com\x00", "has a control character or space (byte 0x00 at offset 11)"},
		{"a..example.com", "has an empty label"},
		{".example.com", "has an empty label"},
		{"my_host.example.com", "host names have no underscores"},
		{"-bad.example.com", "use letters, digits, hyphens (not at either end of a label) and dots"},
		{strings.Repeat("a", 64) + ".com", "has a label of 64 characters; a label is at most 63"},
		{strings.Repeat("a.", 127) + "com", "is 257 characters long; a host name is at most 253"},
		{"*.192.0.2.1", "puts a wildcard on an IP address; write the address alone"},
		{"127.1", "writes an address in an unusual form; write it as 127.0.0.1"},
		{"0x7f.0.0.1", "write it as 127.0.0.1"},
		{"2130706433", "write it as 127.0.0.1"},
		{"1.2.3.256", "reads as an IP address but has an IPv4 part too large for the bytes it fills"},
		{"[2001:db8::1", "opens a bracket it does not close"},
		{"[2001:db8::1]x", `has "x" after the bracketed address`},
		{"[fe80::1%eth0]", "has an interface zone (%eth0); write the address without it"},
		{"[example.com]:443", "reads as an IP address but is not a valid IPv6 address"},
	} {
		_, err := ParseRule(tc.in)
		if err == nil {
			t.Errorf("ParseRule(%q) = nil error, want %q", tc.in, tc.want)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseRule(%q) = %q, want it to contain %q", tc.in, err, tc.want)
		}
	}
}

// TestCheck runs the list of bad input and attacks, and the
// rules' semantics, through Policy.Check: each row asserts the verdict
// and the reason.
func TestCheck(t *testing.T) {
	base := Policy{
		Allowed: mustRules(t, "example.com", "*.example.com", "bücher.example", "ssh.example.org:22",
			"192.0.2.7", "[2001:db8::7]:443", "10.1.2.3", "169.254.169.254", "public.example"),
		Denied: mustRules(t, "evil.example.com", "*.bad.example.com", "denied.test", "xn--bcher-kva.example:25", "192.0.2.66"),
	}
	private := base
	private.AllowPrivate = true
	known := func(a netip.Addr) bool { return a == netip.MustParseAddr("198.51.100.9") }

	for _, tc := range []struct {
		name    string
		policy  Policy
		host    string
		port    int
		verdict Verdict
		reason  string
	}{
		// Rules: exact, wildcard (not the apex), ports, deny wins.
		{"exact name", base, "example.com", 443, Allow, `example.com matches the allow rule "example.com"`},
		{"wildcard subdomain", base, "a.b.example.com", 443, Allow, `a.b.example.com matches the allow rule "*.example.com"`},
		{"wildcard is not the apex", Policy{Allowed: mustRules(t, "*.example.net")}, "example.net", 443, Ask, `example.net is not an allowed domain. If the task needs it, ask the user to allow it: allowed_domains = ["example.net"] under [sandbox.network]`},
		{"suffix is not a subdomain", base, "notexample.com", 443, Ask, "notexample.com is not an allowed domain"},
		{"port rule matches its port", base, "ssh.example.org", 22, Allow, `matches the allow rule "ssh.example.org:22"`},
		{"port rule refuses other ports", base, "ssh.example.org", 443, Ask, "ssh.example.org is not an allowed domain"},
		{"deny wins over a wildcard allow", base, "evil.example.com", 443, Deny, `evil.example.com:443 is refused by the deny rule "evil.example.com" in denied_domains; do not try to reach it another way`},
		{"deny wildcard", base, "x.bad.example.com", 80, Deny, `refused by the deny rule "*.bad.example.com"`},
		{"unknown name asks", base, "other.test", 443, Ask, `allowed_domains = ["other.test"]`},
		{"bad port", base, "example.com", 0, Deny, "port 0 is not a port; use a port from 1 to 65535"},
		{"port over range", base, "example.com", 70000, Deny, "port 70000 is not a port"},

		// Case and IDN forms of a denied name are denied.
		{"mixed case of a denied name", base, "EVIL.Example.COM", 443, Deny, `refused by the deny rule "evil.example.com"`},
		{"fullwidth form of a denied name", base, "ｅｖｉｌ.example.com", 443, Deny, `refused by the deny rule "evil.example.com"`},
		{"fullwidth upper-case form of a denied name", base, "ＤＥＮＩＥＤ.test", 443, Deny, `refused by the deny rule "denied.test"`},
		{"IDN denied on its port", base, "BÜCHER.example", 25, Deny, `xn--bcher-kva.example:25 is refused by the deny rule "xn--bcher-kva.example:25"`},
		{"punycode of a denied IDN", base, "xn--bcher-kva.example", 25, Deny, `refused by the deny rule "xn--bcher-kva.example:25"`},
		{"upper-case punycode of a denied IDN", base, "XN--BCHER-KVA.EXAMPLE", 25, Deny, `refused by the deny rule`},
		{"IDN allowed on other ports", base, "Bücher.Example", 443, Allow, `xn--bcher-kva.example matches the allow rule "xn--bcher-kva.example"`},
		{"invalid punycode", base, "xn--zz.example", 443, Deny, `the host "xn--zz.example" is not a valid host name`},
		{"ideographic full stop", base, "example。com", 443, Allow, `example.com matches the allow rule "example.com"`},

		// Bad input.
		{"NUL byte", base, "example.com\x00.evil.test", 443, Deny, `the host "example.com\x00.evil.test" has a control character or space (byte 0x00 at offset 11); use the host name alone`},
		{"newline", base, "example.com\r\nX: y", 443, Deny, "has a control character or space (byte 0x0d"},
		{"space", base, "example.com evil.test", 443, Deny, "(byte 0x20 at offset 11)"},
		{"DEL", base, "example.com\x7f", 443, Deny, "(byte 0x7f at offset 11)"},
		{"Unicode space", base, "example.com\u00a0", 443, Deny, "is not a valid host name"},
		{"trailing dot", base, "example.com.", 443, Deny, `the host "example.com." ends with a dot; use the name without the trailing dot: "example.com"`},
		{"trailing ideographic full stop", base, "example.com。", 443, Deny, "ends with a dot; use the name without the trailing dot"},
		{"empty", base, "", 443, Deny, "the host is empty"},
		{"empty label", base, "a..example.com", 443, Deny, "has an empty label (a leading dot, two dots in a row, or an empty xn-- label); write the name with single dots between labels"},
		{"leading dot", base, ".example.com", 443, Deny, "has an empty label"},
		{"empty punycode label", base, "a.xn--.example.com", 443, Deny, `the host "a.xn--.example.com" has an empty label`},
		{"empty punycode name", base, "Xn--", 443, Deny, `the host "Xn--" has an empty label`},
		{"invalid UTF-8", base, "ex\xffample.com", 443, Deny, `the host "ex\xffample.com" is not valid UTF-8`},
		{"long label", base, strings.Repeat("a", 64) + ".example.com", 443, Deny, "has a label of 64 characters; a label is at most 63"},
		{"long name", base, strings.Repeat("a.", 126) + "example.com", 443, Deny, "characters long; a host name is at most 253"},
		{"huge name", base, strings.Repeat("a", 5000), 443, Deny, "is 5000 bytes long"},
		{"underscore", base, "a_b.example.com", 443, Deny, "host names have no underscores"},
		{"percent-encoding", base, "example%2ecom", 443, Deny, "is not a valid host name"},
		{"bad IPv4", base, "1.2.3.256", 443, Deny, `the host "1.2.3.256" reads as an IP address but has an IPv4 part too large`},
		{"five parts", base, "1.2.3.4.5", 443, Deny, "has more than four parts"},
		{"bad octal", base, "08.0.0.1", 443, Deny, "with a digit its base does not have"},
		{"numeric last label", base, "example.123", 443, Deny, "reads as an IP address"},
		{"bad IPv6", base, "[::g]", 443, Deny, "is not a valid IPv6 address"},
		{"bracketed IPv4", base, "[127.0.0.1]", 443, Deny, "is not a valid IPv6 address"},

		// IP literals for private classes, in every spelling.
		{"loopback", base, "127.0.0.1", 80, Deny, "127.0.0.1 is a loopback address; the sandbox reaches private addresses only if the user sets allow_private = true under [sandbox.network]"},
		{"decimal loopback", base, "2130706433", 80, Deny, "127.0.0.1 is a loopback address"},
		{"octal loopback", base, "0177.0.0.1", 80, Deny, "127.0.0.1 is a loopback address"},
		{"hex loopback", base, "0x7f.0.0.1", 80, Deny, "127.0.0.1 is a loopback address"},
		{"hex word loopback", base, "0x7F000001", 80, Deny, "127.0.0.1 is a loopback address"},
		{"shorthand loopback", base, "127.1", 80, Deny, "127.0.0.1 is a loopback address"},
		{"three-part loopback", base, "127.0.1", 80, Deny, "127.0.0.1 is a loopback address"},
		{"fullwidth loopback", base, "１２７.０.０.１", 80, Deny, "127.0.0.1 is a loopback address"},
		{"IPv6 loopback", base, "::1", 80, Deny, "::1 is a loopback address"},
		{"bracketed IPv6 loopback", base, "[::1]", 80, Deny, "::1 is a loopback address"},
		{"IPv4-mapped loopback", base, "::ffff:127.0.0.1", 80, Deny, "127.0.0.1 is a loopback address"},
		{"IPv4-mapped hex loopback", base, "[::ffff:7f00:1]", 80, Deny, "127.0.0.1 is a loopback address"},
		{"IPv4-compatible loopback", base, "::127.0.0.1", 80, Deny, "is an IPv4-compatible address, a deprecated form"},
		{"NAT64 loopback", base, "64:ff9b::127.0.0.1", 80, Deny, "is a loopback address carried in an IPv6 address"},
		{"6to4 private", base, "2002:a00:1::1", 80, Deny, "is a private (RFC 1918) address carried in an IPv6 address"},
		{"unspecified", base, "0.0.0.0", 80, Deny, "0.0.0.0 is an unspecified (this-network) address"},
		{"zero", base, "0", 80, Deny, "0.0.0.0 is an unspecified (this-network) address"},
		{"IPv6 unspecified", base, "::", 80, Deny, ":: is an unspecified address"},
		{"RFC 1918", base, "10.0.0.1", 80, Deny, "10.0.0.1 is a private (RFC 1918) address"},
		{"RFC 1918 172", base, "172.16.5.4", 80, Deny, "is a private (RFC 1918) address"},
		{"RFC 1918 192", base, "192.168.1.1", 80, Deny, "is a private (RFC 1918) address"},
		{"private even when named", base, "10.1.2.3", 80, Deny, "10.1.2.3 is a private (RFC 1918) address; the sandbox reaches private addresses only if"},
		{"CGNAT", base, "100.64.0.1", 80, Deny, "100.64.0.1 is a carrier-grade NAT address (100.64.0.0/10)"},
		{"link-local", base, "169.254.1.1", 80, Deny, "169.254.1.1 is a link-local address"},
		{"metadata", base, "169.254.169.254", 80, Deny, "169.254.169.254 is the cloud metadata address, which hands out the machine's credentials; do not try to reach it"},
		{"decimal metadata", base, "2852039166", 80, Deny, "169.254.169.254 is the cloud metadata address"},
		{"hex metadata", base, "0xa9.0xfe.0xa9.0xfe", 80, Deny, "169.254.169.254 is the cloud metadata address"},
		{"IPv6 metadata", base, "[fd00:ec2::254]", 80, Deny, "fd00:ec2::254 is the cloud metadata address"},
		{"multicast", base, "224.0.0.1", 80, Deny, "224.0.0.1 is a multicast address"},
		{"broadcast", base, "255.255.255.255", 80, Deny, "is a reserved or broadcast address"},
		{"ULA", base, "fc00::1", 80, Deny, "fc00::1 is a unique local address (fc00::/7)"},
		{"IPv6 link-local", base, "fe80::1", 80, Deny, "fe80::1 is a link-local address"},
		{"zoned link-local", base, "[fe80::1%eth0]", 80, Deny, "fe80::1 is a link-local address"},
		{"IPv6 multicast", base, "ff02::1", 80, Deny, "ff02::1 is a multicast address"},

		// Private addresses with allow_private: still only when named;
		// metadata only when named too; zones never.
		{"allow_private, named", private, "10.1.2.3", 80, Allow, `10.1.2.3 matches the allow rule "10.1.2.3"`},
		{"allow_private, unnamed", private, "10.9.9.9", 80, Deny, "10.9.9.9 is an IP address that no allow rule names"},
		{"allow_private, metadata named", private, "169.254.169.254", 80, Allow, `matches the allow rule "169.254.169.254"`},
		{"allow_private, IPv6 metadata unnamed", private, "fd00:ec2::254", 80, Deny, "is the cloud metadata address"},
		{"allow_private, zone", private, "fe80::1%eth0", 80, Deny, "fe80::1%eth0 names an interface zone"},

		// Public IP literals: named, resolved earlier, or refused.
		{"named address", base, "192.0.2.7", 443, Allow, `192.0.2.7 matches the allow rule "192.0.2.7"`},
		{"named address, other spelling", base, "3221225991", 443, Allow, `192.0.2.7 matches the allow rule "192.0.2.7"`},
		{"named IPv6 on its port", base, "2001:DB8:0::7", 443, Allow, `matches the allow rule "[2001:db8::7]:443"`},
		{"named IPv6 off its port", base, "2001:db8::7", 22, Deny, "2001:db8::7 is an IP address that no allow rule names"},
		{"unnamed address", base, "203.0.113.5", 443, Deny, `203.0.113.5 is an IP address that no allow rule names and no allowed name resolved to; connect by name through the proxy (socks5h://, curl --socks5-hostname) so the name is checked, or ask the user to allow the address: allowed_domains = ["203.0.113.5"] under [sandbox.network]`},
		{"denied address", base, "192.0.2.66", 443, Deny, `192.0.2.66:443 is refused by the deny rule "192.0.2.66"`},
		{"zoned public address", base, "2001:db8::7%eth0", 443, Deny, "names an interface zone"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.policy.Check(tc.host, tc.port)
			if d.Verdict != tc.verdict || !strings.Contains(d.Reason, tc.reason) {
				t.Errorf("Check(%q, %d) = %v, %q\nwant %v, containing %q", tc.host, tc.port, d.Verdict, d.Reason, tc.verdict, tc.reason)
			}
		})
	}

	t.Run("resolved earlier in the session", func(t *testing.T) {
		d, _ := base.check("198.51.100.9", 443, known)
		if d.Verdict != Allow || d.Reason != "198.51.100.9 is an address an allowed name resolved to in this session" {
			t.Errorf("got %v, %q", d.Verdict, d.Reason)
		}
		d, _ = base.check("198.51.100.10", 443, known)
		if d.Verdict != Deny {
			t.Errorf("an address never resolved: got %v, %q", d.Verdict, d.Reason)
		}
	})
}

func TestCheckResolved(t *testing.T) {
	p := Policy{Allowed: mustRules(t, "example.com"), Denied: mustRules(t, "192.0.2.66")}
	addrs := []netip.Addr{
		netip.MustParseAddr("10.0.0.1"),
		netip.MustParseAddr("::ffff:192.0.2.5"),
		netip.MustParseAddr("192.0.2.66"),
		netip.MustParseAddr("127.0.0.1"),
	}
	kept, dropped := p.CheckResolved("example.com", 443, addrs)
	if len(kept) != 1 || kept[0] != netip.MustParseAddr("192.0.2.5") {
		t.Errorf("kept %v, want [192.0.2.5]", kept)
	}
	if want := "example.com resolved to 10.0.0.1; 10.0.0.1 is a private (RFC 1918) address"; !strings.Contains(dropped, want) {
		t.Errorf("dropped %q, want %q", dropped, want)
	}
	_, dropped = p.CheckResolved("example.com", 443, addrs[2:3])
	if want := `example.com resolved to 192.0.2.66, which the deny rule "192.0.2.66" covers`; dropped != want {
		t.Errorf("dropped %q, want %q", dropped, want)
	}
}

func TestVerdictAndAnswerStrings(t *testing.T) {
	for v, want := range map[Verdict]string{Deny: "deny", Allow: "allow", Ask: "ask", Verdict(9): "deny (9)"} {
		if v.String() != want {
			t.Errorf("%d: %q, want %q", int(v), v.String(), want)
		}
	}
	for a, want := range map[Answer]string{AnswerDeny: "deny", AnswerSession: "allow for the session", AnswerAlways: "allow always", Answer(9): "deny (9)"} {
		if a.String() != want {
			t.Errorf("%d: %q, want %q", int(a), a.String(), want)
		}
	}
}
