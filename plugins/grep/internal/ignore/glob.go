package ignore

import (
	"errors"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Glob is one compiled gitignore-style glob. It matches a slash-separated
// path whole: * and ? never match a slash, ** matches across components
// when it is a whole component, [...] is a class ([!...] or [^...]
// negates), {a,b} is an alternation and a backslash escapes the next
// character. These are the rules of ripgrep's globs, which its ignore
// files, --glob and file types share.
type Glob struct {
	kind globKind
	lit  string
	re   *regexp.Regexp
}

type globKind uint8

const (
	// globRegexp is the general case, matched with re.
	globRegexp globKind = iota
	// globLiteral has no metacharacter: the path equals lit.
	globLiteral
	// globSuffix is "*" then a literal, as in "*.go": the most common glob
	// by far, so it skips the regexp.
	globSuffix
	// globPrefix is a literal then "*", as in "build*".
	globPrefix
)

const globMeta = `*?[{\`

// Errors of CompileGlob, worded for a model that wrote the glob.
var (
	ErrUnclosedClass = errors.New("a `[` character class is not closed with `]`")
	ErrUnclosedAlt   = errors.New("a `{` alternation is not closed with `}`")
	ErrEmptyGlob     = errors.New("the glob is empty")
)

// CompileGlob compiles a glob for Glob.Match.
func CompileGlob(pattern string) (*Glob, error) {
	if pattern == "" {
		return nil, ErrEmptyGlob
	}
	switch {
	case !strings.ContainsAny(pattern, globMeta):
		return &Glob{kind: globLiteral, lit: pattern}, nil
	case pattern[0] == '*' && !strings.ContainsAny(pattern[1:], globMeta):
		return &Glob{kind: globSuffix, lit: pattern[1:]}, nil
	case pattern[len(pattern)-1] == '*' && !strings.ContainsAny(pattern[:len(pattern)-1], globMeta):
		return &Glob{kind: globPrefix, lit: pattern[:len(pattern)-1]}, nil
	}
	expr, err := globRegexpSource(pattern)
	if err != nil {
		return nil, err
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		// The translation quotes everything it does not emit itself, so
		// this is a bug; report it as an unusable glob rather than panic.
		return nil, errors.New("the glob cannot be compiled")
	}
	return &Glob{kind: globRegexp, re: re}, nil
}

// Match reports whether path, slash-separated and without a leading
// slash, matches the glob whole.
func (g *Glob) Match(path string) bool {
	switch g.kind {
	case globLiteral:
		return path == g.lit
	case globSuffix:
		return strings.HasSuffix(path, g.lit) && strings.IndexByte(path[:len(path)-len(g.lit)], '/') < 0
	case globPrefix:
		return strings.HasPrefix(path, g.lit) && strings.IndexByte(path[len(g.lit):], '/') < 0
	default:
		return g.re.MatchString(path)
	}
}

// globRegexpSource translates a glob into an anchored regexp.
func globRegexpSource(p string) (string, error) {
	var b strings.Builder
	b.WriteString(`(?s)^`)
	depth := 0 // open { alternations
loop:
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch c {
		case '*':
			if i+1 < len(p) && p[i+1] == '*' {
				start := i == 0 || p[i-1] == '/'
				j := i
				for j < len(p) && p[j] == '*' {
					j++
				}
				switch {
				case start && j == len(p):
					// "**" alone or a trailing "/**": everything below.
					b.WriteString(`.*`)
					break loop
				case start && p[j] == '/':
					// "**/" at the start or "/**/" inside: zero or more
					// whole components.
					b.WriteString(`(?:.*/)?`)
					i = j
					continue
				default:
					// "**" inside a component is a plain "*", as in git.
					b.WriteString(`[^/]*`)
					i = j - 1
					continue
				}
			}
			b.WriteString(`[^/]*`)
		case '?':
			b.WriteString(`[^/]`)
		case '[':
			end, class, err := globClass(p, i)
			if err != nil {
				return "", err
			}
			b.WriteString(class)
			i = end
		case '{':
			depth++
			b.WriteString(`(?:`)
		case '}':
			if depth == 0 {
				b.WriteString(`\}`)
				continue
			}
			depth--
			b.WriteString(`)`)
		case ',':
			if depth > 0 {
				b.WriteString(`|`)
			} else {
				b.WriteString(`,`)
			}
		case '\\':
			if i+1 < len(p) {
				i++
				b.WriteString(regexp.QuoteMeta(p[i : i+1]))
			} else {
				b.WriteString(`\\`)
			}
		default:
			b.WriteString(regexp.QuoteMeta(p[i : i+1]))
		}
	}
	if depth != 0 {
		return "", ErrUnclosedAlt
	}
	b.WriteString(`$`)
	return b.String(), nil
}

// globClass translates the class starting at p[start] == '['. It returns
// the index of its closing ']'.
func globClass(p string, start int) (int, string, error) {
	var b strings.Builder
	b.WriteByte('[')
	i := start + 1
	if i < len(p) && (p[i] == '!' || p[i] == '^') {
		// A negated class never matches a slash, as in git.
		b.WriteString(`^/`)
		i++
	}
	first := true
	for i < len(p) {
		r, size := utf8.DecodeRuneInString(p[i:])
		switch {
		case r == ']' && !first:
			b.WriteByte(']')
			return i, b.String(), nil
		case r == '\\' && i+1 < len(p):
			i++
			r, size = utf8.DecodeRuneInString(p[i:])
			b.WriteString(classQuote(r))
		case r == '-' && !first && i+1 < len(p) && p[i+1] != ']':
			b.WriteByte('-')
		default:
			b.WriteString(classQuote(r))
		}
		i += size
		first = false
	}
	return 0, "", ErrUnclosedClass
}

func classQuote(r rune) string {
	switch r {
	case '\\', ']', '[', '^', '-':
		return `\` + string(r)
	}
	return string(r)
}
