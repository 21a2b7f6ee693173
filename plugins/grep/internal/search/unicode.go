package search

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode"
)

// Go's RE2 gives \w, \d, \s and \b their ASCII meaning; ripgrep gives them
// Unicode's, so `Gr\w+e` finds Grüße and `\bna\b` does not match inside
// naïve. The classes are rewritten in the pattern's text before it is
// parsed (the parsed tree cannot tell \w from [0-9A-Za-z_]), and \b is
// checked by a matcher of its own (unicodeVM) on the lines the regexp,
// with \b relaxed, finds.

// wordClass is rg's \w (Unicode's word characters: Alphabetic, marks,
// decimal digits, connector punctuation and the joiners) as the inside of
// a character class. It and spaceClass are written on first use: every
// process that links the package (riot itself among them) paid 0.1 ms at
// init for them.
var wordClass = sync.OnceValue(func() string {
	return `\p{L}\p{Nl}\p{M}\p{Nd}\p{Pc}\x{200C}\x{200D}` + extraRanges(unicode.Other_Alphabetic, isWordCategory)
})

// spaceClass is rg's \s, Unicode's White_Space, as the inside of a class.
var spaceClass = sync.OnceValue(func() string {
	return extraRanges(unicode.White_Space, func(rune) bool { return false })
})

func isWordCategory(r rune) bool {
	return unicode.In(r, unicode.L, unicode.Nl, unicode.M, unicode.Nd, unicode.Pc) || r == 0x200C || r == 0x200D
}

// isWord is rg's \w, for \b.
func isWord(r rune) bool {
	return r >= 0 && (isWordCategory(r) || unicode.Is(unicode.Other_Alphabetic, r))
}

// extraRanges writes the runes of t that covered does not already hold as
// class ranges: \x{24B6}-\x{24E9}.
func extraRanges(t *unicode.RangeTable, covered func(rune) bool) string {
	var b strings.Builder
	lo, hi := rune(-1), rune(-1)
	flush := func() {
		if lo < 0 {
			return
		}
		if lo == hi {
			fmt.Fprintf(&b, `\x{%X}`, lo)
		} else {
			fmt.Fprintf(&b, `\x{%X}-\x{%X}`, lo, hi)
		}
		lo = -1
	}
	each := func(from, to, stride rune) {
		for r := from; r <= to; r += stride {
			switch {
			case covered(r):
				flush()
			case lo >= 0 && r == hi+1:
				hi = r
			default:
				flush()
				lo, hi = r, r
			}
		}
	}
	for _, r := range t.R16 {
		each(rune(r.Lo), rune(r.Hi), rune(r.Stride))
	}
	for _, r := range t.R32 {
		each(rune(r.Lo), rune(r.Hi), rune(r.Stride))
	}
	flush()
	return b.String()
}

// ErrNegatedUnicodeClass is unicodeClasses' error for \W or \S inside a
// negated class, such as [^\W_]: the complement of a union that RE2 can
// only write as an intersection, which it has not.
var ErrNegatedUnicodeClass = errors.New(`\W or \S inside a negated class`)

// unicodeClasses rewrites \w \W \d \D \s \S in pattern, outside and inside
// classes, to their Unicode forms. It leaves \Q…\E, \p{…}, [:ascii:]
// classes and every other escape as written.
func unicodeClasses(pattern string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(pattern); {
		c := pattern[i]
		switch {
		case c == '\\' && i+1 < len(pattern):
			e := pattern[i+1]
			switch e {
			case 'w':
				b.WriteString("[" + wordClass() + "]")
			case 'W':
				b.WriteString("[^" + wordClass() + "]")
			case 'd':
				b.WriteString(`\p{Nd}`)
			case 'D':
				b.WriteString(`\P{Nd}`)
			case 's':
				b.WriteString("[" + spaceClass() + "]")
			case 'S':
				b.WriteString("[^" + spaceClass() + "]")
			case 'Q':
				end := strings.Index(pattern[i:], `\E`)
				if end < 0 {
					b.WriteString(pattern[i:])
					return b.String(), nil
				}
				b.WriteString(pattern[i : i+end+2])
				i += end + 2
				continue
			default:
				b.WriteString(pattern[i : i+2])
			}
			i += 2
		case c == '[':
			n, err := unicodeClass(&b, pattern[i:])
			if err != nil {
				return "", err
			}
			i += n
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String(), nil
}

// unicodeClass rewrites the class at the start of s and returns its
// length. A class holding \W or \S becomes an alternation: [x\W] is
// (?:[x]|[^word]).
func unicodeClass(b *strings.Builder, s string) (int, error) {
	i := 1
	negated := i < len(s) && s[i] == '^'
	if negated {
		i++
	}
	var body strings.Builder
	var others []string // classes of \W and \S, to alternate with
	first := true
	for i < len(s) {
		c := s[i]
		switch {
		case c == ']' && !first:
			return i + 1, writeClass(b, negated, body.String(), others)
		case c == '[' && strings.HasPrefix(s[i:], "[:"):
			end := strings.Index(s[i+2:], ":]")
			if end < 0 {
				body.WriteByte(c)
				i++
				break
			}
			body.WriteString(s[i : i+2+end+2])
			i += 2 + end + 2
		case c == '\\' && i+1 < len(s):
			switch s[i+1] {
			case 'w':
				body.WriteString(wordClass())
			case 'd':
				body.WriteString(`\p{Nd}`)
			case 'D':
				body.WriteString(`\P{Nd}`)
			case 's':
				body.WriteString(spaceClass())
			case 'W':
				others = append(others, "[^"+wordClass()+"]")
			case 'S':
				others = append(others, "[^"+spaceClass()+"]")
			case 'p', 'P':
				// \pL or \p{Greek}: copied whole, so its braces are not read
				// as the class's text.
				n := 3
				if i+2 < len(s) && s[i+2] == '{' {
					if end := strings.IndexByte(s[i:], '}'); end > 0 {
						n = end + 1
					}
				}
				n = min(n, len(s)-i)
				body.WriteString(s[i : i+n])
				i += n
				first = false
				continue
			default:
				body.WriteString(s[i : i+2])
			}
			i += 2
		default:
			body.WriteByte(c)
			i++
		}
		first = false
	}
	// No closing bracket: leave it for the parser to report.
	b.WriteString(s)
	return len(s), nil
}

func writeClass(b *strings.Builder, negated bool, body string, others []string) error {
	switch {
	case len(others) == 0 && negated:
		b.WriteString("[^" + body + "]")
	case len(others) == 0:
		b.WriteString("[" + body + "]")
	case negated:
		return ErrNegatedUnicodeClass
	default:
		alts := others
		if body != "" {
			alts = append([]string{"[" + body + "]"}, others...)
		}
		b.WriteString("(?:" + strings.Join(alts, "|") + ")")
	}
	return nil
}
