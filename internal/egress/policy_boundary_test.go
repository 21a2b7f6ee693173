package egress

import (
	"strings"
	"testing"
)

// name253 is a valid name of exactly maxNameLen characters, its labels
// 63, 63, 63 and 61 long.
var name253 = strings.Repeat("a", 63) + "." + strings.Repeat("b", 63) + "." + strings.Repeat("c", 63) + "." + strings.Repeat("d", 61)

// TestCheckLimits pins each limit and character class of the policy at
// its edge: the value on the limit passes and the one past it is refused,
// with its reason. Each row asserts the verdict, the host as read and the
// reason.
func TestCheckLimits(t *testing.T) {
	p := Policy{Allowed: mustRules(t, "example.com", "192.0.2.10", "15.0.0.1", "1.255.255.255", "1.2.255.255", "1.0.0.0", "9.9.9.9")}
	// Soft hyphens (2 bytes) and a variation selector (3 bytes) are
	// ignored by IDNA, so these raw hosts read as example.com while
	// being exactly maxRawHost bytes long, and one byte over it.
	atRaw := "ex" + "\ufe0f" + strings.Repeat("\u00ad", 499) + "ample.com"
	overRaw := "ex" + strings.Repeat("\u00ad", 501) + "ample.com"
	if len(atRaw) != maxRawHost || len(overRaw) != maxRawHost+1 {
		t.Fatalf("raw hosts of %d and %d bytes, want %d and %d", len(atRaw), len(overRaw), maxRawHost, maxRawHost+1)
	}
	label63 := strings.Repeat("x", 63) + ".test"
	under80 := "a_" + strings.Repeat("b", 78)
	if len(under80) != 80 {
		t.Fatalf("under80 is %d bytes", len(under80))
	}
	notAllowed := func(h string) string {
		return h + ` is not an allowed domain. If the task needs it, ask the user to allow it: allowed_domains = ["` + h + `"] under [sandbox.network]`
	}
	unnamed := func(h string) string {
		return h + " is an IP address that no allow rule names and no allowed name resolved to; connect by name through the proxy (socks5h://, curl --socks5-hostname) so the name is checked, or ask the user to allow the address: allowed_domains = [\"" + h + "\"] under [sandbox.network]"
	}
	for _, tc := range []struct {
		name    string
		host    string
		port    int
		verdict Verdict
		read    string // Decision.Host
		reason  string // the whole reason
	}{
		// Ports: 1 and 65535 are ports, 0 and 65536 are not.
		{"port 1", "example.com", 1, Allow, "example.com", `example.com matches the allow rule "example.com"`},
		{"port 65535", "example.com", 65535, Allow, "example.com", `example.com matches the allow rule "example.com"`},
		{"port 0", "example.com", 0, Deny, "example.com", "port 0 is not a port; use a port from 1 to 65535"},
		{"port 65536", "example.com", 65536, Deny, "example.com", "port 65536 is not a port; use a port from 1 to 65535"},
		{"port -1", "example.com", -1, Deny, "example.com", "port -1 is not a port; use a port from 1 to 65535"},

		// Name and label lengths.
		{"name of 253", name253, 443, Ask, name253, notAllowed(name253)},
		{"name of 254", name253 + "d", 443, Deny, quoteHost(name253 + "d"),
			"the host " + quoteHost(name253+"d") + " is 254 characters long; a host name is at most 253"},
		{"label of 63", label63, 443, Ask, label63, notAllowed(label63)},
		{"label of 64", "x" + label63, 443, Deny, quoteHost("x" + label63),
			"the host " + quoteHost("x"+label63) + " has a label of 64 characters; a label is at most 63"},
		{"upper-case name of 253", strings.ToUpper(name253), 443, Ask, name253, notAllowed(name253)},

		// Raw length before any work: 1012 bytes are read, 1013 are not.
		{"raw host of maxRawHost bytes", atRaw, 443, Allow, "example.com", `example.com matches the allow rule "example.com"`},
		{"raw host over maxRawHost bytes", overRaw, 443, Deny, quoteHost(overRaw),
			"the host " + quoteHost(overRaw) + " is 1013 bytes long; a host name is at most 253 characters"},

		// quoteHost keeps 80 bytes whole and cuts 81; the underscore is refused
		// before the label length.
		{"quoted host of 80 bytes", under80, 443, Deny, `"` + under80 + `"`,
			`the host "` + under80 + `" is not a valid host name; host names have no underscores`},
		{"quoted host of 81 bytes", under80 + "c", 443, Deny, `"` + under80 + `"...`,
			`the host "` + under80 + `"... is not a valid host name; host names have no underscores`},

		// Case folding and mapping reach the rule; what mapping empties is refused.
		{"upper case", "EXAMPLE.COM", 443, Allow, "example.com", `example.com matches the allow rule "example.com"`},
		{"ignored characters", "exa\u00adm\ufe0fple.com", 443, Allow, "example.com", `example.com matches the allow rule "example.com"`},
		{"mapping empties a label", "Ａ.\u00ad.com", 443, Deny, `"\uff21.\u00ad.com"`,
			`the host "\uff21.\u00ad.com" has an empty label (a leading dot, two dots in a row, or an empty xn-- label); write the name with single dots between labels`},
		{"mapped name with an underscore", "Ex_ample.com", 443, Deny, `"Ex_ample.com"`,
			`the host "Ex_ample.com" is not a valid host name; host names have no underscores`},
		{"joiner out of context", "A\u200dB.com", 443, Deny, `"A\u200dB.com"`,
			`the host "A\u200dB.com" is not a valid host name; use letters, digits, hyphens (not at either end of a label) and dots, or a valid Unicode name`},

		// A punycode label that decodes to ASCII is an error IDNA reports
		// while still returning the ASCII name; the name returned then
		// converts cleanly, so only the first error refuses it.
		{"punycode of an ASCII name", "xn--example-.com", 443, Deny, `"xn--example-.com"`,
			`the host "xn--example-.com" is not a valid host name; use letters, digits, hyphens (not at either end of a label) and dots, or a valid Unicode name`},
		{"upper-case punycode of an ASCII name", "XN--EXAMPLE-.com", 443, Deny, `"XN--EXAMPLE-.com"`,
			`the host "XN--EXAMPLE-.com" is not a valid host name; use letters, digits, hyphens (not at either end of a label) and dots, or a valid Unicode name`},

		// Hex and octal digits at the edges of their classes.
		{"hex prefix alone", "0x", 443, Deny, "0.0.0.0",
			"0.0.0.0 is an unspecified (this-network) address; the sandbox reaches private addresses only if the user sets allow_private = true under [sandbox.network]"},
		{"upper-case hex prefix alone", "1.0X", 443, Allow, "1.0.0.0", `1.0.0.0 matches the allow rule "1.0.0.0"`},
		{"lower-case hex digits", "0xc0.0x0.02.0xa", 443, Allow, "192.0.2.10", `192.0.2.10 matches the allow rule "192.0.2.10"`},
		{"upper-case hex digits", "0XC0.0X0.02.0XA", 443, Allow, "192.0.2.10", `192.0.2.10 matches the allow rule "192.0.2.10"`},
		{"hex f", "0xf.0.0.1", 443, Allow, "15.0.0.1", `15.0.0.1 matches the allow rule "15.0.0.1"`},
		{"hex F", "0xF.0.0.1", 443, Allow, "15.0.0.1", `15.0.0.1 matches the allow rule "15.0.0.1"`},
		{"octal 017", "017.0.0.1", 443, Allow, "15.0.0.1", `15.0.0.1 matches the allow rule "15.0.0.1"`},
		{"decimal 9", "9.9.9.9", 443, Allow, "9.9.9.9", `9.9.9.9 matches the allow rule "9.9.9.9"`},
		{"decimal 0 alone", "1.0.0.0", 443, Allow, "1.0.0.0", `1.0.0.0 matches the allow rule "1.0.0.0"`},
		{"hex g", "0xg.0.0.1", 443, Deny, `"0xg.0.0.1"`,
			`the host "0xg.0.0.1" reads as an IP address but has an IPv4 part that is not a number; write a name, or an address such as 192.0.2.1 or [2001:db8::1]`},
		{"hex G", "0xG.0.0.1", 443, Deny, `"0xG.0.0.1"`, `the host "0xG.0.0.1" reads as an IP address but has an IPv4 part that is not a number; write a name, or an address such as 192.0.2.1 or [2001:db8::1]`},
		{"hex @", "0x@.0.0.1", 443, Deny, `"0x@.0.0.1"`, `the host "0x@.0.0.1" reads as an IP address but has an IPv4 part that is not a number; write a name, or an address such as 192.0.2.1 or [2001:db8::1]`},
		{"hex backquote", "0x`.0.0.1", 443, Deny, "\"0x`.0.0.1\"", "the host \"0x`.0.0.1\" reads as an IP address but has an IPv4 part that is not a number; write a name, or an address such as 192.0.2.1 or [2001:db8::1]"},
		{"octal 8", "08.0.0.1", 443, Deny, `"08.0.0.1"`, `the host "08.0.0.1" reads as an IP address but has an IPv4 part with a digit its base does not have (octal parts start with 0); write a name, or an address such as 192.0.2.1 or [2001:db8::1]`},
		{"decimal a", "1a.0.0.1", 443, Deny, `"1a.0.0.1"`, `the host "1a.0.0.1" reads as an IP address but has an IPv4 part with a digit its base does not have (octal parts start with 0); write a name, or an address such as 192.0.2.1 or [2001:db8::1]`},
		{"empty part", "1..2", 443, Deny, `"1..2"`, `the host "1..2" reads as an IP address but has an empty IPv4 part; write a name, or an address such as 192.0.2.1 or [2001:db8::1]`},

		// IPv4 part limits.
		{"part of 32 bits", "4294967295", 443, Deny, "255.255.255.255",
			"255.255.255.255 is a reserved or broadcast address; the sandbox reaches private addresses only if the user sets allow_private = true under [sandbox.network]"},
		{"part over 32 bits", "4294967296", 443, Deny, `"4294967296"`,
			`the host "4294967296" reads as an IP address but has an IPv4 part over 32 bits; write a name, or an address such as 192.0.2.1 or [2001:db8::1]`},
		{"leading part of 255", "255.0.0.1", 443, Deny, "255.0.0.1", "255.0.0.1 is a reserved or broadcast address; the sandbox reaches private addresses only if the user sets allow_private = true under [sandbox.network]"},
		{"leading part of 256", "256.0.0.1", 443, Deny, `"256.0.0.1"`, `the host "256.0.0.1" reads as an IP address but has an IPv4 part over 255; write a name, or an address such as 192.0.2.1 or [2001:db8::1]`},
		{"last of two parts at 24 bits", "1.16777215", 443, Allow, "1.255.255.255", `1.255.255.255 matches the allow rule "1.255.255.255"`},
		{"last of two parts over 24 bits", "1.16777216", 443, Deny, `"1.16777216"`, `the host "1.16777216" reads as an IP address but has an IPv4 part too large for the bytes it fills; write a name, or an address such as 192.0.2.1 or [2001:db8::1]`},
		{"last of three parts at 16 bits", "1.2.65535", 443, Allow, "1.2.255.255", `1.2.255.255 matches the allow rule "1.2.255.255"`},
		{"last of three parts over 16 bits", "1.2.65536", 443, Deny, `"1.2.65536"`, `the host "1.2.65536" reads as an IP address but has an IPv4 part too large for the bytes it fills; write a name, or an address such as 192.0.2.1 or [2001:db8::1]`},
		{"four parts", "1.2.3.4", 443, Deny, "1.2.3.4", unnamed("1.2.3.4")},
		{"mapped digits over 32 bits", "４２９４９６７２９６", 443, Deny, `"\uff14\uff12\uff19\uff14\uff19\uff16\uff17\uff12\uff19\uff16"`,
			`the host "\uff14\uff12\uff19\uff14\uff19\uff16\uff17\uff12\uff19\uff16" reads as an IP address but has an IPv4 part over 32 bits; write a name, or an address such as 192.0.2.1`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := p.Check(tc.host, tc.port)
			if d.Verdict != tc.verdict || d.Host != tc.read || d.Reason != tc.reason {
				t.Errorf("Check(%q, %d) = %v, %q, %q\nwant %v, %q, %q", tc.host, tc.port, d.Verdict, d.Host, d.Reason, tc.verdict, tc.read, tc.reason)
			}
		})
	}
}

// TestCheckVerdictString runs under the mutation pattern: a Verdict no
// constant names reads as a refusal.
func TestCheckVerdictString(t *testing.T) {
	if got := Verdict(7).String(); got != "deny (7)" {
		t.Errorf("Verdict(7) = %q, want %q", got, "deny (7)")
	}
}

// TestCheckPublicAddressRefused pins that a public address neither named
// nor resolved is refused, and that a public address a rule names is
// reached, with allow_private either way.
func TestCheckPublicAddressRefused(t *testing.T) {
	for _, allowPrivate := range []bool{false, true} {
		p := Policy{Allowed: mustRules(t, "[2001:db8::5]:443"), AllowPrivate: allowPrivate}
		if d := p.Check("2001:db8::5", 443); d.Verdict != Allow || d.Reason != `2001:db8::5 matches the allow rule "[2001:db8::5]:443"` {
			t.Errorf("allow_private %v: named: %v, %q", allowPrivate, d.Verdict, d.Reason)
		}
		kept, dropped := p.CheckResolved("example.com", 443, nil)
		if kept != nil || dropped != "" {
			t.Errorf("no addresses: kept %v, dropped %q", kept, dropped)
		}
	}
}

// TestParseRuleBoundaries pins the port range and the host/port split of
// a rule at their edges.
func TestParseRuleBoundaries(t *testing.T) {
	for _, tc := range []struct{ in, str string }{
		{"example.com:1", "example.com:1"},
		{"example.com:65535", "example.com:65535"},
		{"[2001:db8::1]:1", "[2001:db8::1]:1"},
		{"2001:db8::1", "2001:db8::1"},
		{"::1", "::1"},
		{name253, name253},
		{"*." + name253[2:], "*." + name253[2:]},
		{"0.0.0.0", "0.0.0.0"},
		{"255.255.255.255:65535", "255.255.255.255:65535"},
	} {
		r, err := ParseRule(tc.in)
		if err != nil {
			t.Errorf("ParseRule(%q): %v", tc.in, err)
			continue
		}
		if r.String() != tc.str {
			t.Errorf("ParseRule(%q) = %s, want %s", tc.in, r, tc.str)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{":443", `in ":443": the host is empty; name the host to reach, such as example.com`},
		{"example.com:00443", `"example.com:00443" has the port "00443"; write a port from 1 to 65535, or leave out :port to match every port`},
		{"example.com:65536", `"example.com:65536" has the port "65536"; write a port from 1 to 65535, or leave out :port to match every port`},
		{"example.com:0", `"example.com:0" has the port "0"; write a port from 1 to 65535, or leave out :port to match every port`},
		{"[2001:db8::1]:0", `"[2001:db8::1]:0" has the port "0"; write a port from 1 to 65535, or leave out :port to match every port`},
		{"[2001:db8::1]:", `"[2001:db8::1]:" has the port ""; write a port from 1 to 65535, or leave out :port to match every port`},
		{"[", `"[" opens a bracket it does not close; write [2001:db8::1] or [2001:db8::1]:443`},
		{"[]", `in "[]": the host "[]" reads as an IP address but is not a valid IPv6 address; write a name, or an address such as 192.0.2.1 or [2001:db8::1]`},
		{name253 + "d", `in "` + name253[:80] + `"...: the host "` + name253[:80] + `"... is 254 characters long; a host name is at most 253`},
		{"0x", `"0x" writes an address in an unusual form; write it as 0.0.0.0`},
		{"xn--example-.com", `in "xn--example-.com": the host "xn--example-.com" is not a valid host name; use letters, digits, hyphens (not at either end of a label) and dots, or a valid Unicode name`},
	} {
		_, err := ParseRule(tc.in)
		if err == nil || err.Error() != tc.want {
			t.Errorf("ParseRule(%q) = %v\nwant %s", tc.in, err, tc.want)
		}
	}
}
