package config

import (
	"strings"
)

// locator finds the line of a key in a TOML file. The toml package knows
// key positions but does not export them, and an error or a provenance
// listing is of little use without a line.
type locator struct {
	lines []string
	// first is the first line (1-based) that defines each key or table,
	// by its path joined with NULs, indexed once: a layer asks for the
	// line of each of its keys.
	first map[string]int
}

func newLocator(text string) locator {
	l := locator{lines: strings.Split(text, "\n"), first: map[string]int{}}
	var table []string
	for i, raw := range l.lines {
		s := strings.TrimSpace(raw)
		if s == "" || s[0] == '#' {
			continue
		}
		var path []string
		if s[0] == '[' {
			table = splitKey(strings.Trim(strings.SplitN(s, "]", 2)[0], "[] \t"))
			path = table
		} else if eq := strings.IndexByte(s, '='); eq > 0 {
			path = append(append([]string{}, table...), splitKey(s[:eq])...)
		} else {
			continue
		}
		if k := strings.Join(path, "\x00"); l.first[k] == 0 {
			l.first[k] = i + 1
		}
	}
	return l
}

// line returns the 1-based line that defines key, or of its nearest
// enclosing table; 0 if neither is found.
func (l locator) line(key []string) int {
	for n := len(key); n > 0; n-- {
		if line := l.first[strings.Join(key[:n], "\x00")]; line > 0 {
			return line
		}
	}
	return 0
}

// element returns the line of the string value v in the array at key.
func (l locator) element(key []string, v string) int {
	start := l.line(key)
	if start == 0 {
		return 0
	}
	for i := start - 1; i < len(l.lines); i++ {
		s := l.lines[i]
		if strings.Contains(s, `"`+v+`"`) || strings.Contains(s, `'`+v+`'`) {
			return i + 1
		}
		if i > start-1 && strings.HasPrefix(strings.TrimSpace(s), "[") && !strings.HasPrefix(strings.TrimSpace(s), "[\"") {
			break
		}
	}
	return start
}

// splitKey splits a dotted TOML key, unquoting its parts.
func splitKey(s string) []string {
	var parts []string
	var cur strings.Builder
	quote := byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			cur.WriteByte(c)
		case c == '"' || c == '\'':
			quote = c
		case c == '.':
			parts = append(parts, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	return append(parts, strings.TrimSpace(cur.String()))
}

// arrayTable returns the line of the n-th (0-based) [[key]] header, or of
// the key's nearest table.
func (l locator) arrayTable(key []string, n int) int {
	want := strings.Join(key, ".")
	for i, raw := range l.lines {
		s := strings.TrimSpace(raw)
		if !strings.HasPrefix(s, "[[") {
			continue
		}
		if strings.TrimSpace(strings.Trim(strings.SplitN(s, "]]", 2)[0], "[ \t")) == want {
			if n == 0 {
				return i + 1
			}
			n--
		}
	}
	return l.line(key)
}
