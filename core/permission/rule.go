package permission

import (
	"fmt"
	"path"
	"strings"
	"unicode"

	"github.com/bmatcuk/doublestar/v4"
)

// Rule is a parsed permission rule: Tool, or Tool(Spec).
type Rule struct {
	Tool string
	// Spec is the specifier between the parentheses, trimmed; "" for a
	// bare rule, which matches every call of the tool.
	Spec string
}

// String is the rule in canonical form; ParseRule(r.String()) == r.
func (r Rule) String() string {
	if r.Spec == "" {
		return r.Tool
	}
	return r.Tool + "(" + r.Spec + ")"
}

// pathTools are the tools whose specifier is always a path glob, so a
// specifier that is not a valid glob is an error for them. For other tools
// the specifier is a command pattern that is also tried as a glob against
// path subjects when it is one.
var pathTools = map[string]bool{
	"Read": true, "Edit": true, "Write": true, "MultiEdit": true,
	"NotebookEdit": true, "Grep": true, "Glob": true, "LS": true,
}

// readRuleTools' path rules match the read subjects of every tool, and
// writeRuleTools' the write subjects, so Read(./.env) also covers Bash
// `cat .env`. Every other rule matches only calls of its own tool.
var (
	readRuleTools  = map[string]bool{"Read": true}
	writeRuleTools = map[string]bool{"Edit": true, "Write": true}
)

// ParseRule parses a rule in Claude Code syntax. The error says what is
// wrong; New wraps it in a *config.Error naming the rule's source.
func ParseRule(text string) (Rule, error) {
	bad := func(why string) error {
		return fmt.Errorf("permission rule %q is malformed: %s", text, why)
	}
	s := strings.TrimSpace(text)
	if s == "" {
		return Rule{}, bad("it is empty; write Tool or Tool(specifier), such as Bash(git log:*)")
	}
	if strings.ContainsFunc(s, unicode.IsControl) {
		return Rule{}, bad("it contains a control character; a rule is one line of printable text")
	}
	open := strings.IndexByte(s, '(')
	if open < 0 {
		if strings.Contains(s, ")") {
			return Rule{}, bad("a closing parenthesis has no opening one")
		}
		if err := checkToolName(s); err != "" {
			return Rule{}, bad(err)
		}
		return Rule{Tool: s}, nil
	}
	tool := strings.TrimSpace(s[:open])
	if tool == "" {
		return Rule{}, bad("the tool name before ( is missing, as in Bash(ls:*)")
	}
	if err := checkToolName(tool); err != "" {
		return Rule{}, bad(err)
	}
	if !strings.HasSuffix(s, ")") {
		if !strings.Contains(s[open:], ")") {
			return Rule{}, bad("missing the closing parenthesis")
		}
		return Rule{}, bad(fmt.Sprintf("unexpected text %q after the closing parenthesis", s[strings.LastIndexByte(s, ')')+1:]))
	}
	spec := strings.TrimSpace(s[open+1 : len(s)-1])
	if spec == "" {
		return Rule{}, bad(fmt.Sprintf("the specifier in parentheses is empty; write %s alone to match every call, or put a pattern in the parentheses", tool))
	}
	r := Rule{Tool: tool, Spec: spec}
	if _, err := compileParam(r); err != "" {
		return Rule{}, bad(err)
	}
	if pathTools[tool] {
		if _, err := r.pathSpec(); err != "" {
			return Rule{}, bad(err)
		}
	}
	return r, nil
}

func checkToolName(name string) string {
	for _, c := range name {
		if !isToolChar(c) {
			return fmt.Sprintf("the tool name %q may contain only letters, digits, _, - and . (no spaces or wildcards)", name)
		}
	}
	return ""
}

func isToolChar(c rune) bool {
	return c == '_' || c == '-' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// pathSpec classifies the specifier as a path glob: its anchor and its
// pattern below the anchor. The error is for the user.
func (r Rule) pathSpec() (ps pathSpec, err string) {
	s := r.Spec
	switch {
	case strings.HasPrefix(s, "//"):
		ps = pathSpec{anchor: anchorAbs, pattern: s[1:]}
	case s == "~" || strings.HasPrefix(s, "~/"):
		ps = pathSpec{anchor: anchorHome, pattern: strings.TrimPrefix(strings.TrimPrefix(s, "~"), "/")}
	case strings.HasPrefix(s, "~"):
		return ps, fmt.Sprintf("%q: only ~/ (your home directory) is supported, not ~user", s)
	case strings.HasPrefix(s, "/"):
		if pathTools[r.Tool] {
			return ps, fmt.Sprintf("the path %q is ambiguous: write //%s for the absolute path %s, or .%s for a path in the workspace", s, s[1:], s, s)
		}
		ps = pathSpec{anchor: anchorAbs, pattern: s}
	case s == "." || s == ".." || strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../"):
		ps = pathSpec{anchor: anchorRoot, pattern: s}
	case strings.HasPrefix(s, "**/"):
		// gitignore: a leading **/ matches in all directories.
		ps = pathSpec{anchor: anchorAnywhere, pattern: s}
	case !strings.Contains(strings.TrimSuffix(s, "/"), "/"):
		// gitignore: a pattern with no slash matches a name at any depth.
		ps = pathSpec{anchor: anchorAnywhere, pattern: "**/" + strings.TrimSuffix(s, "/")}
	default:
		ps = pathSpec{anchor: anchorRoot, pattern: s}
	}
	ps.pattern = strings.TrimSuffix(ps.pattern, "/")
	if !doublestar.ValidatePattern(ps.pattern) {
		return ps, fmt.Sprintf("the path pattern %q is not a valid glob: check that [ ] and { } are paired and that a \\ escapes a character", s)
	}
	return ps, ""
}

type anchor int

const (
	anchorAbs      anchor = iota // //abs
	anchorHome                   // ~/x
	anchorRoot                   // ./x, or x/y: the workspace root
	anchorAnywhere               // x or **/x: any directory
)

type pathSpec struct {
	anchor  anchor
	pattern string // below the anchor; absolute for anchorAbs
}

// globs returns the absolute patterns of the spec, one per form of the
// anchor directory (as given, and with its symlinks resolved).
func (ps pathSpec) globs(roots, homes []string) []string {
	var bases []string
	switch ps.anchor {
	case anchorAbs:
		return []string{cleanGlob(ps.pattern)}
	case anchorAnywhere:
		return []string{"/" + ps.pattern}
	case anchorHome:
		bases = homes
	default:
		bases = roots
	}
	out := make([]string, 0, len(bases))
	for _, b := range bases {
		out = append(out, cleanGlob(escapeGlob(b)+"/"+ps.pattern))
	}
	return out
}

// cleanGlob cleans an absolute pattern lexically; `a/../b` in a rule
// means b.
func cleanGlob(p string) string { return path.Clean(p) }

// escapeGlob escapes the glob metacharacters of a literal path.
func escapeGlob(s string) string {
	var b strings.Builder
	for _, c := range s {
		if strings.ContainsRune(`*?[]{}\`, c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}
