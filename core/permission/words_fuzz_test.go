package permission

import (
	"regexp"
	"strings"
	"testing"
)

// oldBenign and oldChains are the text check wildcard rules used before
// they were matched on parsed words, kept as the fuzz's reference.
var oldBenign = regexp.MustCompile(`(^|\s)(&>>?|[0-9]?>>?)\s*/dev/null(\s|$)|(^|\s)[0-9]?>&[0-9-](\s|$)`)

func oldChains(cmd string) bool {
	for {
		loc := oldBenign.FindStringIndex(cmd)
		if loc == nil {
			break
		}
		cmd = cmd[:loc[0]] + " " + cmd[loc[1]:]
	}
	return strings.ContainsAny(cmd, ";&|`><\n\r") || strings.Contains(cmd, "$(")
}

// quotedOnly is a scanner written apart from the parser: it reports
// whether every character the old check stopped at (after its benign
// redirections) is inside single quotes, inside $'...', or inside double
// quotes and not a substitution there, or escaped by a backslash, and the
// quotes are closed. A comment, and a control character anywhere, count
// as unquoted.
func quotedOnly(cmd string) bool {
	for {
		loc := oldBenign.FindStringIndex(cmd)
		if loc == nil {
			break
		}
		cmd = cmd[:loc[0]] + " " + cmd[loc[1]:]
	}
	const (
		plain = iota
		single
		dollarSingle
		double
	)
	state, atWordStart := plain, true
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		if c < 0x20 && c != '\t' || c == 0x7f {
			return false
		}
		switch state {
		case plain:
			switch {
			case c == '\\':
				i++
			case c == '\'':
				state = single
			case c == '$' && i+1 < len(cmd) && cmd[i+1] == '\'':
				state, i = dollarSingle, i+1
			case c == '"':
				state = double
			case strings.IndexByte(";&|`<>", c) >= 0, c == '$' && i+1 < len(cmd) && cmd[i+1] == '(', c == '#' && atWordStart:
				return false
			}
			atWordStart = c == ' ' || c == '\t'
		case single:
			if c == '\'' {
				state = plain
			}
		case dollarSingle:
			switch c {
			case '\\':
				i++
			case '\'':
				state = plain
			}
		case double:
			switch {
			case c == '\\':
				i++
			case c == '"':
				state = plain
			case c == '`', c == '$' && i+1 < len(cmd) && cmd[i+1] == '(':
				return false
			}
		}
	}
	return state == plain
}

// FuzzWildcardAllowsOnlyOneCommand: whatever a wildcard rule allows now
// that the old text check refused has all its shell syntax quoted, so it
// runs no second command, substitutes nothing and writes no file.
func FuzzWildcardAllowsOnlyOneCommand(f *testing.F) {
	for _, s := range []string{
		`python3 -c "import a; print(1)"`, `grep "a|b" f`, `awk '{print $1}' f`, `echo 'x > y'`, `sed -n '1,5p;q' f`,
		`echo "$(rm x)"`, "echo \"`id`\"", `echo x > f`, `ls; rm x`, `cat <(ls)`, `echo $'a;b'`, `echo "a\"; rm x"`,
		`echo \; rm`, `ls # x; y`, `make >/dev/null 2>&1`, `echo ${X:-$(id)}`, `export A=1`, `a=1 b`, "ls\nrm",
	} {
		f.Add(s, "*")
		f.Add(s, strings.Fields(s + " x")[0]+":*")
	}
	f.Fuzz(func(t *testing.T, cmd, rule string) {
		p := compileCommand(rule)
		if !p.wildcard() {
			return
		}
		c := parseCommandSubject(cmd)
		if !p.allows(c) {
			return
		}
		if oldChains(cmd) && !quotedOnly(cmd) {
			t.Fatalf("%q allows %q, whose shell syntax is not all quoted", rule, cmd)
		}
		if !p.restricts(c) {
			t.Fatalf("%q allows %q but as a deny rule would not match it", rule, cmd)
		}
	})
}
