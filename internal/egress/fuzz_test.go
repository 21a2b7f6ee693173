package egress

import (
	"strings"
	"testing"

	"golang.org/x/net/idna"
)

// FuzzCheck: Check never panics and returns a known verdict; the form it
// matches is stable; and a name denied by an exact rule is denied in
// every spelling of it (ASCII case, fullwidth, Unicode and punycode),
// even where an allow rule names it too.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		"example.com", "EXAMPLE.com", "bücher.example", "xn--bcher-kva.example", "ｅｘａｍｐｌｅ.com",
		"example.com.", "example.com\x00", "a..b", "127.0.0.1", "2130706433", "0177.0.0.1", "0x7f.1",
		"[::1]", "::ffff:127.0.0.1", "fe80::1%eth0", "169.254.169.254", "例え.テスト", "xn--zz", "a_b.c",
		strings.Repeat("a", 70) + ".com", "example。com", "١٢٣.com",
	} {
		f.Add(s, 443)
	}
	f.Fuzz(func(t *testing.T, host string, port int) {
		open := Policy{Allowed: mustRules(t, "*.com", "example.com")}
		d := open.Check(host, port)
		switch d.Verdict {
		case Deny, Allow, Ask:
		default:
			t.Fatalf("Check(%q) = verdict %d", host, d.Verdict)
		}
		if d.Reason == "" {
			t.Fatalf("Check(%q) has no reason", host)
		}
		tg, err := normalizeHost(host)
		if err != nil {
			if d.Verdict != Deny {
				t.Fatalf("Check(%q) = %v for a host normalisation refuses (%v)", host, d.Verdict, err)
			}
			return
		}
		again, err := normalizeHost(tg.String())
		if err != nil || again != tg {
			t.Fatalf("normalising %q gives %q, which normalises to %q, %v", host, tg, again, err)
		}
		if tg.name == "" {
			return
		}
		deny := Rule{Host: tg.name}
		p := Policy{Allowed: []Rule{deny, {Host: tg.name, Wildcard: true}}, Denied: []Rule{deny}}
		if dot := strings.IndexByte(tg.name, '.'); dot >= 0 {
			p.Allowed = append(p.Allowed, Rule{Host: tg.name[dot+1:], Wildcard: true})
		}
		variants := []string{host, tg.name, flipASCIICase(host), strings.ToUpper(tg.name), fullwidth(tg.name)}
		if u, err := idna.Display.ToUnicode(tg.name); err == nil {
			variants = append(variants, u, flipASCIICase(u))
		}
		for _, v := range variants {
			if d := p.Check(v, 443); d.Verdict != Deny {
				t.Fatalf("%q (a spelling of the denied %q) is %v: %s", v, tg.name, d.Verdict, d.Reason)
			}
		}
	})
}

func flipASCIICase(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return r - 'a' + 'A'
		case r >= 'A' && r <= 'Z':
			return r - 'A' + 'a'
		}
		return r
	}, s)
}

// fullwidth spells ASCII letters and digits in their fullwidth forms,
// which IDNA maps back.
func fullwidth(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			return r - '!' + '！'
		}
		return r
	}, s)
}
