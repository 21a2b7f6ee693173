package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/bmatcuk/doublestar/v4"

	"github.com/riot-tools/riot/config/trust"
	"github.com/riot-tools/riot/internal/atomicfile"
)

// localIgnoreEntry is the line AppendAllowRule adds to .gitignore.
const localIgnoreEntry = ".riot/config.local.toml"

// AppendAllowRule appends rule to [permissions] allow in the workspace's
// untracked layer, <workspace>/.riot/config.local.toml, as the "always
// allow" answer to a permission prompt does. It creates .riot/ and the file
// if needed, adds the file to <workspace>/.gitignore unless a line there
// already ignores it, and returns the file's path. A rule already in the
// list is not added again.
//
// The file is edited as text, so comments and layout stay; the edit is
// checked by decoding the result, and if the text edit cannot be made or
// does not decode to the old values plus the rule, the file is re-encoded
// from its values instead (comments are then lost). A file that does not
// load is left alone, with its error.
func AppendAllowRule(workspace, rule string) (string, error) {
	return appendLocal(workspace, permissionsAllow, rule)
}

// appendLocal appends entry to list in the workspace's local layer, as
// AppendAllowRule says.
func appendLocal(workspace string, list localList, entry string) (string, error) {
	path := LocalFile(workspace)
	if strings.TrimSpace(entry) == "" {
		return path, fmt.Errorf("the %s is empty", list.what)
	}
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return path, err
	}
	text, err := appendEntry(string(old), list, entry, Source{Layer: "local", File: path})
	if err != nil {
		return path, err
	}
	if text != string(old) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return path, err
		}
		if err := atomicfile.Write(path, []byte(text), 0o644); err != nil {
			return path, err
		}
	}
	return path, ensureIgnored(workspace)
}

// AppendAllowRulesAsUser is AppendAllowRule for the user's own "always
// allow" answer on a terminal: it adds the rules and records the file's new
// content as the user's in the trust record st, in one step under the
// record's lock (trust.Store.Amend), so that the file applies in full from
// the next run on, trusted workspace or not, and a change by anyone else
// does not. When the file holds text the record does not vouch for, it
// writes nothing and returns trust.ErrNotVouched: vouching for the rest of
// the file would apply what the user never saw.
func AppendAllowRulesAsUser(st trust.Store, workspace string, rules []string, now time.Time) error {
	return appendAsUser(st, workspace, permissionsAllow, rules, now)
}

// AppendAllowedDomain appends entry to [sandbox.network] allowed_domains
// in the workspace's untracked layer, as the "always" answer to riot's
// question about a host does; otherwise as AppendAllowRule.
func AppendAllowedDomain(workspace, entry string) (string, error) {
	return appendLocal(workspace, networkAllowed, entry)
}

// AppendAllowedDomainsAsUser is AppendAllowRulesAsUser for the user's
// "always" answer about a host on a terminal: allowed_domains entries.
func AppendAllowedDomainsAsUser(st trust.Store, workspace string, entries []string, now time.Time) error {
	return appendAsUser(st, workspace, networkAllowed, entries, now)
}

// appendAsUser appends entries to list in the workspace's local layer and
// records its new content as the user's, as AppendAllowRulesAsUser says.
func appendAsUser(st trust.Store, workspace string, list localList, entries []string, now time.Time) error {
	path := LocalFile(workspace)
	_, err := st.Amend(workspace, trust.LocalName, func(old []byte) ([]byte, error) {
		text := string(old)
		for _, entry := range entries {
			if strings.TrimSpace(entry) == "" {
				return nil, fmt.Errorf("the %s is empty", list.what)
			}
			var err error
			if text, err = appendEntry(text, list, entry, Source{Layer: "local", File: path}); err != nil {
				return nil, err
			}
		}
		return []byte(text), nil
	}, now)
	if err != nil {
		return err
	}
	return ensureIgnored(workspace)
}

// localList is a list the local layer's writers append to: the key in
// its table, and what its entries are, for messages.
type localList struct {
	table []string
	key   string
	what  string
}

var (
	// permissionsAllow is [permissions] allow.
	permissionsAllow = localList{table: []string{"permissions"}, key: "allow", what: "rule"}
	// networkAllowed is [sandbox.network] allowed_domains.
	networkAllowed = localList{table: []string{"sandbox", "network"}, key: "allowed_domains", what: "allowed_domains entry"}
)

// header is the list's table header, as written: [sandbox.network].
func (l localList) header() string { return "[" + strings.Join(l.table, ".") + "]" }

// appendEntry returns src with entry appended to list.
func appendEntry(src string, list localList, entry string, at Source) (string, error) {
	before, err := parseLayer([]byte(src), at)
	if err != nil {
		return "", err
	}
	// The values as decoded, with the entry added, are what the new text
	// must decode to.
	want := before.values
	table := want
	for _, name := range list.table {
		sub, _ := table[name].(map[string]any) // parseLayer checked the types
		if sub == nil {
			sub = map[string]any{}
			table[name] = sub
		}
		table = sub
	}
	items, _ := table[list.key].([]any)
	if slices.Contains(items, any(entry)) {
		return src, nil
	}
	table[list.key] = append(slices.Clip(items), entry)

	if text, ok := editList(src, list, entry, len(items)); ok && decodesTo(text, want) {
		return text, nil
	}
	var b strings.Builder
	b.WriteString("# riot's local permission grants: machine-managed, not committed.\n")
	if err := toml.NewEncoder(&b).Encode(want); err != nil {
		return "", fmt.Errorf("cannot re-encode %s: %w", at.File, err)
	}
	if !decodesTo(b.String(), want) {
		return "", fmt.Errorf("cannot add the entry to %s without changing its other values; add %s to %s %s by hand", at.File, tomlString(entry), list.header(), list.key)
	}
	return b.String(), nil
}

func decodeMap(src string) (map[string]any, error) {
	m := map[string]any{}
	_, err := toml.Decode(src, &m)
	return m, err
}

func decodesTo(text string, want map[string]any) bool {
	got, err := decodeMap(text)
	return err == nil && reflect.DeepEqual(got, want)
}

// anyHeader finds a table header. Compiled on first use, not at start:
// riot links every package, so each package's init runs before any
// command.
var anyHeader = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^[ \t]*\[`) })

// editList adds entry to the list's array by a text edit; n is how many
// entries the array holds. It reports false when the layout is not one it
// edits (the caller re-encodes).
func editList(src string, list localList, entry string, n int) (string, bool) {
	q := tomlString(entry)
	parts := make([]string, len(list.table))
	for i, name := range list.table {
		parts[i] = regexp.QuoteMeta(name)
	}
	header := regexp.MustCompile(`(?m)^[ \t]*\[[ \t]*` + strings.Join(parts, `[ \t]*\.[ \t]*`) + `[ \t]*\][ \t]*(#.*)?$`)
	dotted := regexp.MustCompile(`(?m)^[ \t]*"?` + parts[0] + `"?[ \t]*[.=]`)
	key := regexp.MustCompile(`(?m)^[ \t]*` + regexp.QuoteMeta(list.key) + `[ \t]*=[ \t]*\[`)
	h := header.FindStringIndex(src)
	if h == nil {
		if n > 0 || dotted.MatchString(src) {
			return "", false // the table is written as dotted keys or an inline table
		}
		sep := ""
		if src != "" && !strings.HasSuffix(src, "\n") {
			sep = "\n"
		}
		if src != "" {
			sep += "\n"
		}
		return src + sep + list.header() + "\n" + list.key + " = [" + q + "]\n", true
	}
	body := h[1]
	end := len(src)
	if next := anyHeader().FindStringIndex(src[body:]); next != nil {
		end = body + next[0]
	}
	k := key.FindStringIndex(src[body:end])
	if k == nil {
		return src[:body] + "\n" + list.key + " = [" + q + "]" + src[body:], true
	}
	open := body + k[1] - 1
	closing := arrayEnd(src, open)
	if closing < 0 {
		return "", false
	}
	last := closing - 1
	for last > open && strings.ContainsRune(" \t\r\n", rune(src[last])) {
		last--
	}
	comma := ""
	if n > 0 && src[last] != ',' {
		comma = ","
	}
	ins := comma + q
	switch {
	case strings.Contains(src[last+1:closing], "\n"):
		ins = comma + "\n  " + q + ","
	case n > 0:
		ins = comma + " " + q
	}
	return src[:last+1] + ins + src[last+1:], true
}

// arrayEnd returns the index of the ] that closes the array opening at
// src[open], skipping strings and comments, or -1.
func arrayEnd(src string, open int) int {
	depth := 0
	for i := open; i < len(src); i++ {
		switch c := src[i]; {
		case c == '[':
			depth++
		case c == ']':
			depth--
			if depth == 0 {
				return i
			}
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case strings.HasPrefix(src[i:], `"""`) || strings.HasPrefix(src[i:], `'''`):
			j := strings.Index(src[i+3:], src[i:i+3])
			if j < 0 {
				return -1
			}
			i += 3 + j + 2
		case c == '"' || c == '\'':
			j := i + 1
			for j < len(src) && src[j] != c && src[j] != '\n' {
				if c == '"' && src[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(src) || src[j] != c {
				return -1
			}
			i = j
		}
	}
	return -1
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\u%04X", r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// ensureIgnored appends the local layer to <workspace>/.gitignore, creating
// it, unless a line there already ignores the file.
func ensureIgnored(workspace string) error {
	path := filepath.Join(workspace, ".gitignore")
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if gitignoreIgnoresLocal(string(data)) {
		return nil
	}
	add := localIgnoreEntry + "\n"
	if len(data) > 0 && data[len(data)-1] != '\n' {
		add = "\n" + add
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(add); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// gitignoreIgnoresLocal reports whether a .gitignore at the workspace root
// ignores .riot/config.local.toml, by gitignore's rules: the last matching
// line wins, a pattern with a slash is anchored, a trailing slash matches
// directories only, and a file in an ignored directory cannot be
// re-included.
func gitignoreIgnoresLocal(text string) bool {
	dir, file := false, false
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, " \t\r")
		if line == "" || line[0] == '#' {
			continue
		}
		neg := line[0] == '!'
		line = strings.TrimPrefix(line, "!")
		dirOnly := strings.HasSuffix(line, "/")
		line = strings.TrimSuffix(line, "/")
		anchored := strings.Contains(line, "/")
		line = strings.TrimPrefix(line, "/")
		match := func(p string) bool {
			if !anchored {
				p = filepath.Base(p)
			}
			ok, _ := doublestar.Match(line, p)
			return ok
		}
		if match(".riot") {
			dir = !neg
		}
		if !dirOnly && match(localIgnoreEntry) {
			file = !neg
		}
	}
	return dir || file
}
