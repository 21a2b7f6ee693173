package egress

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// Limits of a DNS name in its dotted form (RFC 1035), without the root dot.
const (
	maxNameLen  = 253
	maxLabelLen = 63
	// maxRawHost bounds the work done on a host before it is refused: a
	// Unicode name is at most a few bytes per character of its ASCII form.
	maxRawHost = 4 * maxNameLen
)

// target is a host in the one form rules match: a lowercase ASCII name,
// Unicode names in punycode; or an unmapped IP address, zone kept.
type target struct {
	name string
	addr netip.Addr
}

func (t target) String() string {
	if t.addr.IsValid() {
		return t.addr.String()
	}
	return t.name
}

// hostError is why a host cannot be read. Its text names the bad part and
// the fix, for the model (Check) and for the user (ParseRule).
type hostError struct{ msg string }

func (e *hostError) Error() string { return e.msg }

func badHost(format string, args ...any) error {
	return &hostError{msg: fmt.Sprintf(format, args...)}
}

// normalizeHost reads a host (without its port) into the form rules
// match. It fails closed: whatever it cannot read with certainty is an
// error, so no odd spelling of a denied name reaches a match as something
// else.
func normalizeHost(raw string) (target, error) {
	if raw == "" {
		return target{}, badHost("the host is empty; name the host to reach, such as example.com")
	}
	if len(raw) > maxRawHost {
		return target{}, badHost("the host %s is %d bytes long; a host name is at most %d characters", quoteHost(raw), len(raw), maxNameLen)
	}
	for i := 0; i < len(raw); i++ {
		if c := raw[i]; c <= ' ' || c == 0x7f {
			return target{}, badHost("the host %s has a control character or space (byte 0x%02x at offset %d); use the host name alone", quoteHost(raw), c, i)
		}
	}
	if addr, ok, err := parseIP(raw); ok {
		if err != nil {
			return target{}, badHost("the host %s reads as an IP address but %s; write a name, or an address such as 192.0.2.1 or [2001:db8::1]", quoteHost(raw), err)
		}
		return target{addr: addr}, nil
	}
	if !utf8.ValidString(raw) {
		return target{}, badHost("the host %s is not valid UTF-8; send the name in UTF-8 or in its punycode (xn--) form", quoteHost(raw))
	}
	if err := checkDots(raw, raw); err != nil {
		return target{}, err
	}
	// The lookup profile folds case and width and maps Unicode to
	// punycode, and it checks punycode labels decode to valid names, so
	// every spelling of one name becomes one string.
	ascii, err := idna.Lookup.ToASCII(raw)
	if err == nil && ascii != raw {
		// What the conversion made must read back as itself, or it is
		// not one name.
		var again string
		if again, err = idna.Lookup.ToASCII(ascii); err == nil && again != ascii {
			err = errors.New("not stable")
		}
	}
	if err != nil {
		return target{}, badHost("the host %s is not a valid host name; %s", quoteHost(raw), nameHint(raw))
	}
	// Mapping can make dots (U+3002) and digits (fullwidth) of other
	// characters, so the result is read again from the start.
	if ascii != raw {
		if addr, ok, err := parseIP(ascii); ok {
			if err != nil {
				return target{}, badHost("the host %s reads as an IP address but %s; write a name, or an address such as 192.0.2.1", quoteHost(raw), err)
			}
			return target{addr: addr}, nil
		}
		if err := checkDots(ascii, raw); err != nil {
			return target{}, err
		}
	}
	if len(ascii) > maxNameLen {
		return target{}, badHost("the host %s is %d characters long; a host name is at most %d", quoteHost(raw), len(ascii), maxNameLen)
	}
	for label := range strings.SplitSeq(ascii, ".") {
		if len(label) > maxLabelLen {
			return target{}, badHost("the host %s has a label of %d characters; a label is at most %d", quoteHost(raw), len(label), maxLabelLen)
		}
		if label == "" || strings.Trim(label, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" {
			return target{}, badHost("the host %s is not a valid host name; %s", quoteHost(raw), nameHint(raw))
		}
	}
	return target{name: ascii}, nil
}

// checkDots refuses a trailing dot and empty labels in host, the form
// of raw being checked. A trailing dot names the same host as the name
// without it, so it is refused rather than matched, with the spelling to
// use instead.
func checkDots(host, raw string) error {
	if strings.HasSuffix(host, ".") && endsWithDot(raw) {
		return badHost("the host %s ends with a dot; use the name without the trailing dot: %s", quoteHost(raw), quoteHost(strings.TrimRight(host, ".")))
	}
	if host == "" || strings.HasPrefix(host, ".") || strings.HasSuffix(host, ".") || strings.Contains(host, "..") {
		return badHost("the host %s has an empty label (a leading dot, two dots in a row, or an empty xn-- label); write the name with single dots between labels", quoteHost(raw))
	}
	return nil
}

// endsWithDot reports whether raw ends with a dot or a character IDNA
// maps to one.
func endsWithDot(raw string) bool {
	for _, dot := range []string{".", "\u3002", "\uff0e", "\uff61"} {
		if strings.HasSuffix(raw, dot) {
			return true
		}
	}
	return false
}

func nameHint(host string) string {
	if strings.Contains(host, "_") {
		return "host names have no underscores"
	}
	return "use letters, digits, hyphens (not at either end of a label) and dots, or a valid Unicode name"
}

// quoteHost quotes a host for a message: escaped, so control characters
// show, and cut, so a long one stays readable.
func quoteHost(h string) string {
	const max = 80
	if len(h) > max {
		return strconv.QuoteToASCII(h[:max]) + "..."
	}
	return strconv.QuoteToASCII(h)
}
