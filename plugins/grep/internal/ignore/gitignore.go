package ignore

import (
	"bytes"
	"io"
	"os"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/riot-tools/riot/plugins/grep/internal/fsys"
)

// Match is what a set of ignore rules says about a path.
type Match uint8

const (
	// None: no rule matched; the next, weaker source decides.
	None Match = iota
	// Ignore: the path is skipped.
	Ignore
	// Whitelist: a negated rule ("!pattern") matched; the path is kept.
	Whitelist
)

// Rule is one line of an ignore file, or one --glob.
type Rule struct {
	glob *Glob
	// negate is a "!" rule: a match whitelists.
	negate bool
	// dirOnly is a rule with a trailing slash: it matches directories only.
	dirOnly bool
	// base is a rule without a slash: it matches the base name at any
	// depth below the file.
	base bool
}

// ParseRule parses one gitignore line. ok is false for blank lines,
// comments and lines that are not valid globs, which git and ripgrep skip.
func ParseRule(line string) (r Rule, ok bool, err error) {
	line = trimTrailingSpaces(strings.TrimSuffix(line, "\r"))
	if line == "" || line[0] == '#' {
		return Rule{}, false, nil
	}
	switch {
	case strings.HasPrefix(line, `\!`), strings.HasPrefix(line, `\#`):
		line = line[1:]
	case line[0] == '!':
		r.negate = true
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		r.dirOnly = true
		line = strings.TrimRight(line, "/")
	}
	anchored := false
	if strings.HasPrefix(line, "/") {
		anchored = true
		line = strings.TrimLeft(line, "/")
	}
	if line == "" {
		return Rule{}, false, nil
	}
	r.base = !anchored && !strings.Contains(line, "/")
	g, err := CompileGlob(line)
	if err != nil {
		return Rule{}, false, err
	}
	r.glob = g
	return r, true, nil
}

// trimTrailingSpaces removes trailing spaces unless they are escaped with
// a backslash, as git does.
func trimTrailingSpaces(s string) string {
	end := len(s)
	for end > 0 && s[end-1] == ' ' {
		if end >= 2 && s[end-2] == '\\' {
			break
		}
		end--
	}
	return s[:end]
}

// matches reports whether the rule matches rel, a path relative to the
// rule's directory, whose base name is base.
func (r *Rule) matches(rel, base string, isDir bool) bool {
	if r.dirOnly && !isDir {
		return false
	}
	if r.base {
		return r.glob.Match(base)
	}
	return r.glob.Match(rel)
}

// Rules are the rules of one ignore file, in file order: the last rule
// that matches a path decides.
type Rules struct {
	rules []Rule
}

// ParseRules parses ignore-file content. Invalid lines are skipped, as
// ripgrep skips them, and so is a leading UTF-8 byte order mark, as git
// skips it.
func ParseRules(data []byte) *Rules {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	rs := &Rules{}
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		rule, ok, err := ParseRule(string(line))
		if ok && err == nil {
			rs.rules = append(rs.rules, rule)
		}
	}
	return rs
}

// ReadRules reads an ignore file. A file that is missing or unreadable
// gives nil, as if it were empty; so does a file with no rules.
func ReadRules(path string) *Rules { return readRulesIn(path, "") }

// readRulesIn is ReadRules of dir/name (of dir when name is ""). Most
// directories have no ignore files: trying to open one allocates nothing.
func readRulesIn(dir, name string) *Rules {
	fd, err := fsys.OpenIn(dir, name, unix.O_RDONLY|unix.O_CLOEXEC)
	if err != nil {
		return nil
	}
	// The file exists, which is rare: reading it may allocate.
	f := os.NewFile(uintptr(fd), name)
	data, err := io.ReadAll(f)
	_ = f.Close()
	if err != nil {
		return nil
	}
	rs := ParseRules(data)
	if len(rs.rules) == 0 {
		return nil
	}
	return rs
}

// Match says what the rules make of rel, a slash-separated path relative
// to the rules' directory.
func (rs *Rules) Match(rel string, isDir bool) Match {
	if rs == nil {
		return None
	}
	base := rel[strings.LastIndexByte(rel, '/')+1:]
	for i := len(rs.rules) - 1; i >= 0; i-- {
		r := &rs.rules[i]
		if r.matches(rel, base, isDir) {
			if r.negate {
				return Whitelist
			}
			return Ignore
		}
	}
	return None
}
