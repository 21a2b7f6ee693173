package permission

import (
	"path/filepath"
	"slices"

	"github.com/riot-tools/riot/config"
)

// suggest sets the narrowest rules that would allow the call at step 5:
// one per subject no allow rule covers. Suggest is set only when one rule
// does, so that it can always be granted as it is. Each is checked against its
// subject, so a suggestion never fails to allow what it names; when some
// subject cannot be covered by a rule, there is no suggestion at all.
func (c *chain) suggest() {
	var out []string
	add := func(rule string, s subject) bool {
		comp, err := c.p.compile(config.Rule{Text: rule})
		if err != nil || !comp.matches(c.req.Tool, s, false) {
			return false
		}
		if !slices.Contains(out, rule) {
			out = append(out, rule)
		}
		return true
	}
	if len(c.subjects) == 0 {
		out = []string{c.req.Tool}
	}
	for i, s := range c.subjects {
		if c.allowed[i] != nil {
			continue
		}
		ok := false
		switch s.Kind {
		case CommandSubject:
			ok = add(c.req.Tool+"("+commandSpec(s.Value)+")", s)
		case PathSubject:
			tool := "Edit"
			if s.Access == Read {
				tool = "Read"
			}
			ok = add(tool+"("+c.p.pathSpecFor(s.physical)+")", s)
		case UnknownSubject: // no allow rule matches one, so none is suggested
		}
		if !ok {
			return
		}
	}
	c.d.Suggestions = out
	if len(out) == 1 {
		c.d.Suggest = out[0]
	}
}

// commandSpec is the specifier a suggestion uses for a command: its
// prefix with :*, or the exact command when it chains or redirects, which
// no prefix rule allows.
func commandSpec(cmd string) string {
	if chains(cmd) {
		return normalizeCommand(cmd)
	}
	return commandPrefix(cmd) + ":*"
}

// pathSpecFor is the specifier naming exactly one path: ./rel in the
// working directory, //abs elsewhere.
func (p *Policy) pathSpecFor(path string) string {
	for _, root := range p.rootForms {
		if within(path, root) {
			rel, _ := filepath.Rel(root, path)
			if rel == "." {
				return "."
			}
			return "./" + escapeGlob(rel)
		}
	}
	return "/" + escapeGlob(path)
}
