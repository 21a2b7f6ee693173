package permission

import (
	"path/filepath"
	"slices"
	"strings"

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
			ok = add(tool+"("+c.p.pathSpecFor(s.named())+")", s)
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

// Asked is one question the chain put to the user, as a session recorded
// it: what SuggestRules learns from.
type Asked struct {
	Tool     string
	Subjects []Subject
	// Step is the step that asked: only an ask of the mode (or the
	// classifier in it) is one an allow rule would have answered; the
	// others come before allow rules.
	Step Step
	// Allowed: the user allowed the call; otherwise it was denied.
	Allowed bool
	// Truncated: its subjects were too long to keep, so no rule can be
	// checked against them.
	Truncated bool
}

// Suggestion is an allow rule and the number of asks it would have
// answered.
type Suggestion struct {
	Rule string `json:"rule"`
	Asks int    `json:"asks"`
}

// SuggestRules proposes the narrowest allow rules that would have answered
// the allowed asks: a command prefix rule (`Bash(npm test:*)`) where two
// or more allowed commands share their leading words, else the exact
// command or path. A rule is never proposed that would allow a subject of
// a denied ask, or of an allowed one that writes outside the workspace
// roots; only commands that declared no written path are generalised to a
// prefix. Rules are ordered by the asks they cover, most first.
func (p *Policy) SuggestRules(asks []Asked) []Suggestion {
	g := &suggester{p: p, covers: map[string]map[int]bool{}}
	type cmdInfo struct {
		tool, cmd string
		writes    bool
	}
	var cmds []cmdInfo
	seen := map[[2]string]int{}
	for i, a := range asks {
		subjects := p.prepare(a.Subjects)
		outside := p.writesOutside(subjects)
		if !a.Allowed || outside || a.Truncated {
			if a.Truncated && !a.Allowed {
				g.noPrefix = append(g.noPrefix, a.Tool)
			}
			g.blocked = append(g.blocked, blockedAsk{a.Tool, subjects})
			continue
		}
		if a.Step != StepMode {
			continue
		}
		g.asks = append(g.asks, askedAt{i, a.Tool, subjects})
		writes := slices.ContainsFunc(subjects, func(s subject) bool { return s.Kind == PathSubject && s.Access == Write })
		for _, s := range subjects {
			if s.Kind != CommandSubject || g.allowedNow(a.Tool, s) {
				continue
			}
			k := [2]string{a.Tool, s.Value}
			if j, ok := seen[k]; ok {
				cmds[j].writes = cmds[j].writes || writes
				continue
			}
			seen[k] = len(cmds)
			cmds = append(cmds, cmdInfo{a.Tool, s.Value, writes})
		}
	}
	// Commands by tool, in the order first asked.
	var tools []string
	byTool := map[string][]string{}
	g.writes = map[[2]string]bool{}
	for _, c := range cmds {
		if _, ok := byTool[c.tool]; !ok {
			tools = append(tools, c.tool)
		}
		byTool[c.tool] = append(byTool[c.tool], c.cmd)
		g.writes[[2]string{c.tool, c.cmd}] = c.writes
	}
	for _, tool := range tools {
		g.cover(tool, byTool[tool])
	}
	for _, a := range g.asks {
		g.coverOthers(a)
	}
	out := make([]Suggestion, 0, len(g.order))
	for _, r := range g.order {
		out = append(out, Suggestion{Rule: r, Asks: len(g.covers[r])})
	}
	slices.SortStableFunc(out, func(a, b Suggestion) int { return b.Asks - a.Asks })
	return out
}

type askedAt struct {
	i        int
	tool     string
	subjects []subject
}

type blockedAsk struct {
	tool     string
	subjects []subject
}

type suggester struct {
	p       *Policy
	asks    []askedAt
	blocked []blockedAsk
	// noPrefix are tools with a denied ask too long to keep: only exact
	// rules are proposed for them.
	noPrefix []string
	// writes: the command declared a written path.
	writes map[[2]string]bool
	order  []string
	covers map[string]map[int]bool
}

// writesOutside: a subject writes a path outside the workspace roots (or
// one that cannot be resolved).
func (p *Policy) writesOutside(subjects []subject) bool {
	return slices.ContainsFunc(subjects, func(s subject) bool {
		return s.Kind == PathSubject && s.Access == Write && (s.physical == "" || !withinAny(s.physical, p.roots))
	})
}

// allowedNow: an allow rule of the policy already covers s.
func (g *suggester) allowedNow(tool string, s subject) bool {
	return slices.ContainsFunc(g.p.allowRules(), func(r *compiled) bool { return r.matches(tool, s, false) })
}

// valid compiles rule and reports whether it allows every command of
// cmds and nothing blocked.
func (g *suggester) valid(rule, tool string, cmds []string) (*compiled, bool) {
	c, err := g.p.compile(config.Rule{Text: rule})
	if err != nil {
		return nil, false
	}
	for _, cmd := range cmds {
		if !c.matches(tool, g.p.prepare([]Subject{{Kind: CommandSubject, Value: cmd}})[0], false) {
			return nil, false
		}
	}
	for _, b := range g.blocked {
		for _, s := range b.subjects {
			if c.matches(b.tool, s, false) {
				return nil, false
			}
		}
	}
	return c, true
}

// cover proposes rules for tool's allowed commands: one prefix rule of
// their common leading words when it is valid and none of them writes,
// else the same for each group sharing the next word, down to exact rules.
func (g *suggester) cover(tool string, cmds []string) {
	if len(cmds) == 1 {
		g.exact(tool, cmds[0])
		return
	}
	prefix := commonWords(cmds)
	generalise := len(prefix) > 0 && !slices.Contains(g.noPrefix, tool) &&
		!slices.ContainsFunc(cmds, func(c string) bool { return g.writes[[2]string{tool, c}] })
	if generalise {
		rule := tool + "(" + strings.Join(prefix, " ") + ":*)"
		if c, ok := g.valid(rule, tool, cmds); ok {
			g.add(rule, c, tool)
			return
		}
	}
	var keys []string
	groups := map[string][]string{}
	for _, c := range cmds {
		w, _ := ruleWords(c)
		key := ""
		if len(w) > len(prefix) {
			key = w[len(prefix)]
		}
		if _, ok := groups[key]; !ok {
			keys = append(keys, key)
		}
		groups[key] = append(groups[key], c)
	}
	for _, k := range keys {
		if k == "" || len(keys) == 1 {
			for _, c := range groups[k] {
				g.exact(tool, c)
			}
			continue
		}
		g.cover(tool, groups[k])
	}
}

// exact proposes the rule naming cmd alone, if it is valid.
func (g *suggester) exact(tool, cmd string) {
	rule := tool + "(" + normalizeCommand(cmd) + ")"
	if c, ok := g.valid(rule, tool, []string{cmd}); ok {
		g.add(rule, c, tool)
	}
}

// coverOthers proposes, for an allowed ask, rules for what commands do not
// cover: the tool itself for a call without subjects, the exact path for
// a path subject. Each is checked against the denied asks too.
func (g *suggester) coverOthers(a askedAt) {
	try := func(rule string) {
		c, err := g.p.compile(config.Rule{Text: rule})
		if err != nil {
			return
		}
		for _, b := range g.blocked {
			if len(b.subjects) == 0 && c.Spec == "" && namesTool(c.Tool, b.tool) {
				return
			}
			for _, s := range b.subjects {
				if c.matches(b.tool, s, false) {
					return
				}
			}
		}
		g.add(rule, c, "")
	}
	if len(a.subjects) == 0 {
		try(a.tool)
		return
	}
	for _, s := range a.subjects {
		if s.Kind != PathSubject || s.physical == "" || g.allowedNow(a.tool, s) {
			continue
		}
		tool := "Edit"
		if s.Access == Read {
			tool = "Read"
		}
		try(tool + "(" + g.p.pathSpecFor(s.named()) + ")")
	}
}

// add keeps rule, with the asks it covers.
func (g *suggester) add(rule string, c *compiled, _ string) {
	set := g.covers[rule]
	if set == nil {
		set = map[int]bool{}
		g.covers[rule] = set
		g.order = append(g.order, rule)
	}
	for _, a := range g.asks {
		if len(a.subjects) == 0 && c.Spec == "" && namesTool(c.Tool, a.tool) {
			set[a.i] = true
			continue
		}
		for _, s := range a.subjects {
			if c.matches(a.tool, s, false) {
				set[a.i] = true
				break
			}
		}
	}
}

// commonWords are the leading words all of cmds share, parsed and quoted
// as a rule writes them (ruleWords), so that a prefix never ends inside a
// quoted word (`python3 -c 'import a; print(1)'`). None when one of them
// is not a plain command: no prefix rule allows it.
func commonWords(cmds []string) []string {
	prefix, ok := ruleWords(cmds[0])
	for _, c := range cmds[1:] {
		w, plain := ruleWords(c)
		ok = ok && plain
		n := 0
		for n < len(prefix) && n < len(w) && prefix[n] == w[n] {
			n++
		}
		prefix = prefix[:n]
	}
	if !ok {
		return nil
	}
	return prefix
}
