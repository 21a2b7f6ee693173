package egress

import (
	"errors"
	"net/netip"
	"strings"
)

// parseIP reads host as an IP literal, in every form a client's resolver
// or URL parser reads as one: bracketed or bare IPv6 (zones kept), and
// IPv4 as inet_aton reads it (decimal 2130706433, octal 0177.0.0.1, hex
// 0x7f.0.0.1, shorthand 127.1). ok is false when host is a name; err is
// set when host reads as an address but is not a valid one. The address
// is unmapped: ::ffff:127.0.0.1 is 127.0.0.1.
func parseIP(host string) (addr netip.Addr, ok bool, err error) {
	if strings.HasPrefix(host, "[") || strings.Contains(host, ":") {
		inner := host
		if strings.HasPrefix(host, "[") {
			if !strings.HasSuffix(host, "]") {
				return netip.Addr{}, true, errors.New("opens a bracket it does not close")
			}
			inner = host[1 : len(host)-1]
		}
		a, perr := netip.ParseAddr(inner)
		if perr != nil || !a.Is6() {
			return netip.Addr{}, true, errors.New("is not a valid IPv6 address")
		}
		return a.Unmap(), true, nil
	}
	if !endsInNumber(host) {
		return netip.Addr{}, false, nil
	}
	a, err := parseIPv4(host)
	if err != nil {
		return netip.Addr{}, true, err
	}
	return a, true, nil
}

// endsInNumber is the URL standard's test for a host that must be an
// IPv4 address: its last label is decimal digits, or 0x and hex digits.
// No top-level domain is numeric, so such a host is never a name.
func endsInNumber(host string) bool {
	last := host[strings.LastIndexByte(host, '.')+1:]
	if last == "" {
		return false
	}
	if h, ok := cutHexPrefix(last); ok {
		return strings.Trim(h, "0123456789abcdefABCDEF") == ""
	}
	return strings.Trim(last, "0123456789") == ""
}

func cutHexPrefix(s string) (string, bool) {
	if len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		return s[2:], true
	}
	return s, false
}

// parseIPv4 reads 1 to 4 dot-separated parts as inet_aton does: the last
// part fills the bytes the earlier ones leave.
func parseIPv4(host string) (netip.Addr, error) {
	parts := strings.Split(host, ".")
	if len(parts) > 4 {
		return netip.Addr{}, errors.New("has more than four parts for an IPv4 address")
	}
	var v uint64
	for i, p := range parts {
		n, err := parseIPv4Part(p)
		if err != nil {
			return netip.Addr{}, err
		}
		if i < len(parts)-1 {
			if n > 0xff {
				return netip.Addr{}, errors.New("has an IPv4 part over 255")
			}
			v |= n << (24 - 8*i)
			continue
		}
		if n > uint64(1)<<(8*(5-len(parts)))-1 {
			return netip.Addr{}, errors.New("has an IPv4 part too large for the bytes it fills")
		}
		v |= n
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), nil
}

func parseIPv4Part(p string) (uint64, error) {
	base := uint64(10)
	if h, ok := cutHexPrefix(p); ok {
		p, base = h, 16
	} else if len(p) > 1 && p[0] == '0' {
		p, base = p[1:], 8
	} else if p == "" {
		return 0, errors.New("has an empty IPv4 part")
	}
	var n uint64
	for _, c := range []byte(p) {
		var d uint64
		switch {
		case c >= '0' && c <= '9':
			d = uint64(c - '0')
		case c >= 'a' && c <= 'f':
			d = uint64(c-'a') + 10
		case c >= 'A' && c <= 'F':
			d = uint64(c-'A') + 10
		default:
			return 0, errors.New("has an IPv4 part that is not a number")
		}
		if d >= base {
			return 0, errors.New("has an IPv4 part with a digit its base does not have (octal parts start with 0)")
		}
		n = n*base + d
		if n > 0xffffffff {
			return 0, errors.New("has an IPv4 part over 32 bits")
		}
	}
	return n, nil
}

// Address classes a sandboxed command may not reach unless the policy
// allows private addresses. Each names the class for the model.
var (
	metadataAddrs = []netip.Addr{
		netip.MustParseAddr("169.254.169.254"), // AWS, GCP, Azure, OpenStack instance metadata
		netip.MustParseAddr("fd00:ec2::254"),   // AWS instance metadata over IPv6
		netip.MustParseAddr("168.63.129.16"),   // Azure's host endpoint, a public address
	}
	privateClasses = []struct {
		prefix netip.Prefix
		class  string
	}{
		{netip.MustParsePrefix("0.0.0.0/8"), "an unspecified (this-network) address"},
		{netip.MustParsePrefix("127.0.0.0/8"), "a loopback address"},
		{netip.MustParsePrefix("10.0.0.0/8"), "a private (RFC 1918) address"},
		{netip.MustParsePrefix("172.16.0.0/12"), "a private (RFC 1918) address"},
		{netip.MustParsePrefix("192.168.0.0/16"), "a private (RFC 1918) address"},
		{netip.MustParsePrefix("100.64.0.0/10"), "a carrier-grade NAT address (100.64.0.0/10)"},
		{netip.MustParsePrefix("169.254.0.0/16"), "a link-local address"},
		{netip.MustParsePrefix("224.0.0.0/4"), "a multicast address"},
		{netip.MustParsePrefix("240.0.0.0/4"), "a reserved or broadcast address"},
		{netip.MustParsePrefix("::/128"), "an unspecified address"},
		{netip.MustParsePrefix("::1/128"), "a loopback address"},
		{netip.MustParsePrefix("::/96"), "an IPv4-compatible address, a deprecated form"},
		{netip.MustParsePrefix("64:ff9b:1::/48"), "a local-use NAT64 address"},
		{netip.MustParsePrefix("100::/64"), "a discard-only address"},
		{netip.MustParsePrefix("fc00::/7"), "a unique local address (fc00::/7)"},
		{netip.MustParsePrefix("fe80::/10"), "a link-local address"},
		{netip.MustParsePrefix("fec0::/10"), "a site-local address"},
		{netip.MustParsePrefix("ff00::/8"), "a multicast address"},
	}
	// IPv6 prefixes that carry an IPv4 address a gateway forwards to:
	// they are as private as the address they carry.
	nat64Prefix = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour   = netip.MustParsePrefix("2002::/16")
)

// isMetadata reports whether a is a cloud instance metadata endpoint,
// which hands out the machine's credentials.
func isMetadata(a netip.Addr) bool {
	a = a.WithZone("").Unmap()
	for _, m := range metadataAddrs {
		if a == m {
			return true
		}
	}
	return false
}

// privateClass names the class of a when it is not a public unicast
// address (such as "a loopback address"), or returns "".
func privateClass(a netip.Addr) string {
	a = a.WithZone("").Unmap()
	if isMetadata(a) {
		return "the cloud metadata address"
	}
	for _, c := range privateClasses {
		if c.prefix.Contains(a) {
			return c.class
		}
	}
	if a.Is6() {
		b := a.As16()
		var v4 netip.Addr
		switch {
		case nat64Prefix.Contains(a):
			v4 = netip.AddrFrom4([4]byte(b[12:16]))
		case sixToFour.Contains(a):
			v4 = netip.AddrFrom4([4]byte(b[2:6]))
		}
		if v4.IsValid() {
			if c := privateClass(v4); c != "" {
				return c + " carried in an IPv6 address"
			}
		}
	}
	return ""
}
