package permission

import (
	"strings"

	"github.com/riot-tools/riot/internal/paths"
)

// subject is a Subject with its path resolved, once per decision.
type subject struct {
	Subject
	lexical  string  // PathSubject: absolute, clean; "" if the value is empty
	physical string  // PathSubject: resolved; "" if it could not be
	err      error   // why the path could not be resolved
	cmd      command // CommandSubject: its text and words
	// alias is physical as the model names it (Config.ShowPath), when
	// that differs: a file of the session's /tmp by its /tmp name. Rules
	// match it as they match physical, so Edit(//tmp/x) covers the
	// session's /tmp/x; it names the same file, resolved.
	alias string
}

func (p *Policy) prepare(subjects []Subject) []subject {
	out := make([]subject, len(subjects))
	for i, s := range subjects {
		out[i].Subject = s
		if s.Kind == CommandSubject {
			out[i].cmd = parseCommandSubject(s.Value)
		}
		if s.Kind != PathSubject {
			continue
		}
		r, err := p.resolveSubject(s.Value)
		out[i].lexical, out[i].physical, out[i].err = r.lexical, r.physical, err
		if a := p.shown(r.physical); a != r.physical {
			out[i].alias = a
		}
		if s.Value != "" && err != nil {
			out[i].lexical = lexicalForm(p.fs, p.absolute(s.Value))
		}
	}
	return out
}

// named is a path subject's resolved path as a rule names it: its alias,
// if it has one.
func (s subject) named() string {
	if s.alias != "" {
		return s.alias
	}
	return s.physical
}

// matches reports whether the rule matches one subject of a call of tool.
// A restrictive (deny or ask) rule matches more readily than an allow
// rule, so that every doubt falls on the side of not allowing:
//   - a Read rule restricts every path subject of any tool (a file the
//     model must not read, it must not write either), but allows only read
//     subjects; Edit and Write rules match write subjects of any tool;
//   - a path rule restricts a path if either its written or its resolved
//     form matches, but allows only by the resolved form, which is what the
//     call really touches;
//   - a wildcard command rule allows only a plain command, matched on its
//     words; it does not allow a command that chains, substitutes or
//     redirects (see plainWords), and a restrictive one matches its words
//     or its text;
//   - a subject of unknown kind is matched only by a bare restrictive rule.
func (c *compiled) matches(tool string, s subject, restrictive bool) bool {
	cross := s.Kind == PathSubject &&
		(readRuleTools[c.Tool] && (s.Access == Read || restrictive) ||
			writeRuleTools[c.Tool] && s.Access == Write)
	if !namesTool(c.Tool, tool) && !cross {
		return false
	}
	switch s.Kind {
	case CommandSubject:
		if c.Spec == "" {
			return true
		}
		if restrictive {
			return c.cmd.restricts(s.cmd)
		}
		return c.cmd.allows(s.cmd)
	case PathSubject:
		if c.Spec == "" {
			return true
		}
		phys := s.physical != "" && globsMatch(c.globs, s.physical) || s.alias != "" && globsMatch(c.globs, s.alias)
		if restrictive {
			return phys || s.lexical != "" && globsMatch(c.globs, s.lexical)
		}
		return phys
	default:
		return restrictive && c.Spec == ""
	}
}

// globsMatch reports whether a glob matches the path or a directory above
// it: as in gitignore, a pattern that names a directory covers what it
// holds.
func globsMatch(globs []string, path string) bool { return paths.Match(globs, path) }

// firstMatch returns the first rule that matches any subject of the call
// (a bare rule of the tool matches a call with no subjects, a parameter
// rule a call that sets its parameter to a matching value), and that
// subject's index (-1 for the whole call), or nil.
func firstMatch(rules []*compiled, tool string, subjects []subject, in callInput) (*compiled, int) {
	for _, r := range rules {
		if len(subjects) == 0 && r.Spec == "" && namesTool(r.Tool, tool) {
			return r, -1
		}
		if r.param != nil && namesTool(r.Tool, tool) {
			if _, ok := r.param.matches(in, true); ok {
				return r, -1
			}
		}
		for i, s := range subjects {
			if r.matches(tool, s, true) {
				return r, i
			}
		}
	}
	return nil, 0
}

// allowedBy returns, for each subject, the first allow rule that matches
// it, or nil. A call with no subjects is covered only by a bare rule of
// its tool or a parameter rule its input matches, returned as the only
// element. A parameter rule never covers a subject: a Bash command or a
// path needs a rule of its own, so Bash(run_in_background:true) cannot
// allow whatever runs in the background.
func allowedBy(rules []*compiled, tool string, subjects []subject, in callInput) []*compiled {
	if len(subjects) == 0 {
		for _, r := range rules {
			if !namesTool(r.Tool, tool) {
				continue
			}
			if r.Spec == "" {
				return []*compiled{r}
			}
			if r.param != nil {
				if _, ok := r.param.matches(in, false); ok {
					return []*compiled{r}
				}
			}
		}
		return []*compiled{nil}
	}
	out := make([]*compiled, len(subjects))
	for i, s := range subjects {
		for _, r := range rules {
			if r.matches(tool, s, false) {
				out[i] = r
				break
			}
		}
	}
	return out
}

// namesTool reports whether a rule's tool names tool: the same name, or
// an MCP server's prefix mcp__NAME, which names all of that server's
// tools mcp__NAME__TOOL (as in Claude Code).
func namesTool(ruleTool, tool string) bool {
	if ruleTool == tool {
		return true
	}
	server, ok := strings.CutPrefix(ruleTool, "mcp__")
	return ok && server != "" && !strings.Contains(server, "__") && strings.HasPrefix(tool, ruleTool+"__")
}
