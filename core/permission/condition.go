package permission

import (
	"fmt"
	"strings"

	"github.com/riot-tools/riot/config"
)

// Condition is a hook's `if`: a rule in the permission rules' syntax that
// a call must match for the hook to run, compiled like a rule of this
// policy (its roots and home).
type Condition struct {
	c *compiled
}

// Condition compiles a hook's if. A malformed one is a *config.Error
// naming where it was written.
func (p *Policy) Condition(r config.Rule) (*Condition, error) {
	if _, err := ParseRule(r.Text); err != nil {
		return nil, &config.Error{Source: r.Source, Msg: fmt.Sprintf("the hook's if %q is not a permission rule (%v); write one as in the permissions, such as Bash(git push:*) or Edit(./src/**)", r.Text, err)}
	}
	c, err := p.compile(r)
	if err != nil {
		return nil, err
	}
	c.cond = true
	return &Condition{c: c}, nil
}

// Prepared is a call with its subjects resolved and its input decoded
// once, to be judged by the conditions of several hooks.
type Prepared struct {
	req      Request
	subjects []subject
	in       callInput
}

// Prepare resolves req's subjects for Match.
func (p *Policy) Prepare(req Request) *Prepared {
	return &Prepared{req: req, subjects: p.prepare(req.Subjects), in: decodeInput(req.Input)}
}

// Match judges the call by a condition both ways a rule can: matches as a
// deny rule would (any subject, a command's words or its text, a path by
// either form), so that a hook guarding something runs whenever the call
// may touch it; covers as an allow rule would (every subject), the only
// case in which the hook speaks for the whole call. A parameter condition
// naming a parameter the tool does not take cannot be judged: it matches
// and does not cover.
func (call *Prepared) Match(cond *Condition) (matches, covers bool) {
	c, req := cond.c, call.req
	if req.Params != nil && c.Spec != "" && namesTool(c.Tool, req.Tool) {
		if err := c.checkParams(req.Tool, req.Params, strings.HasPrefix(req.Tool, "mcp__")); err != nil {
			return true, false
		}
	}
	rules := []*compiled{c}
	if r, _ := firstMatch(rules, req.Tool, call.subjects, call.in); r == nil {
		return false, false
	}
	for _, r := range allowedBy(rules, req.Tool, call.subjects, call.in) {
		if r == nil {
			return true, false
		}
	}
	return true, true
}

// CheckTool is Policy.CheckTool for a condition: an error when it names
// tool with a parameter tool does not take, so that it cannot be judged
// on its calls.
func (cond *Condition) CheckTool(tool string, params func() []string) error {
	c := cond.c
	if c.Spec == "" || !namesTool(c.Tool, tool) {
		return nil
	}
	names := params()
	if names == nil {
		return nil // the schema does not say: not checked
	}
	return c.checkParams(tool, names, strings.HasPrefix(tool, "mcp__"))
}
