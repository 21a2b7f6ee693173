package permission

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/internal/paths"
)

// Decide runs the chain for one prepared call. Its steps run in order and
// the first that decides wins:
//
//  1. deny rules, and the tool's own Deny: Deny, in every mode;
//  2. ask rules: Ask;
//  3. the tool's CheckPermissions: Ask, or Allow (which skips step 4);
//  4. safety checks, except in bypassPermissions: the workspace fence,
//     read-only roots, protected paths, unknown subjects: Ask;
//  5. allow rules: Allow if every subject is matched;
//  6. the mode.
//
// In dontAsk, every Ask becomes Deny.
func (p *Policy) Decide(ctx context.Context, req Request) Decision {
	c := &chain{p: p, req: req, subjects: p.prepare(req.Subjects)}
	if len(req.Input) > 0 {
		c.in = decodeInput(req.Input)
	}
	c.d.Mode = p.mode
	// One entry a step at most: one allocation instead of four as it grows.
	c.d.Trace = make([]TraceStep, 0, int(StepMode))
	_ = c.ruleCheck() || c.denyStep() || c.askStep() || c.toolStep() || c.safetyStep() || c.allowStep() || c.modeStep(ctx)
	for _, s := range c.subjects {
		if s.Kind == PathSubject && s.Access == Read && s.physical != "" {
			c.d.Reads = append(c.d.Reads, s.physical)
		}
		if s.Kind == PathSubject && s.Access == Write && s.physical != "" {
			c.d.Writes = append(c.d.Writes, s.physical)
		}
	}
	return c.d
}

type chain struct {
	p        *Policy
	req      Request
	subjects []subject
	allowed  []*compiled // step 5's match per subject
	in       callInput   // the call's top-level parameters
	d        Decision
}

// ruleCheck refuses the call when a rule naming its tool does not fit the
// tool's parameters (CheckTool): that rule cannot do what its author
// meant, whether it denies or allows, so nothing is decided without it.
// Unknown parameters (Request.Params nil) are not checked.
func (c *chain) ruleCheck() bool {
	err := c.p.CheckTool(c.req.Tool, func() []string { return c.req.Params })
	if err == nil {
		return false
	}
	return c.decide(StepDenyRule, Deny, nil, "a rule that does not fit the tool", "the rules naming "+c.req.Tool+" against its parameters",
		fmt.Sprintf("This call was not run: riot's configuration has an error, %v. Tell the user to fix the rule; do not try to reach the same result with another tool.", err))
}

// decide records the deciding step. An Ask becomes Deny in dontAsk.
func (c *chain) decide(step Step, b Behavior, rule *compiled, check, checked, reason string) bool {
	if step == StepMode && b != Allow && c.p.mode != config.ModePlan {
		c.suggest()
	}
	if b == Ask && c.p.mode == config.ModeDontAsk {
		b = Deny
		reason += " The permission mode is dontAsk, so what would be asked is denied."
	}
	c.d.Behavior, c.d.Step, c.d.Check, c.d.Reason = b, step, check, reason
	if rule != nil {
		src := rule.src // a copy, so that a caller cannot change the policy through it
		c.d.Rule = &src
	}
	c.d.Trace = append(c.d.Trace, TraceStep{Step: step, Checked: checked, Matched: true, Rule: c.d.Rule, Result: b.String()})
	return true
}

// pass records a step that did not decide.
func (c *chain) pass(step Step, checked, result string) bool {
	c.d.Trace = append(c.d.Trace, TraceStep{Step: step, Checked: checked, Result: result})
	return false
}

func (c *chain) denyStep() bool {
	checked := fmt.Sprintf("%s and the tool's own check", plural(len(c.p.deny), "deny rule"))
	if c.req.ToolBehavior == ToolDeny {
		reason := c.req.ToolReason
		if reason == "" {
			reason = fmt.Sprintf("The %s tool refused this call.", c.req.Tool)
		}
		return c.decide(StepDenyRule, Deny, nil, "the tool's own check", checked, reason)
	}
	if c.req.Hook != nil {
		checked += ", and the PreToolUse hooks"
	}
	r, i := firstMatch(c.p.deny, c.req.Tool, c.subjects, c.in)
	if r != nil {
		return c.decide(StepDenyRule, Deny, r, "", checked,
			fmt.Sprintf("Permission to use %s%s%s has been denied by the rule `%s`.", c.req.Tool, c.on(i), c.with(r, i), r))
	}
	if h := c.req.Hook; h != nil && h.Behavior == Deny {
		reason := fmt.Sprintf("The PreToolUse hook %s blocked this call", h.Hook)
		if h.Reason != "" {
			reason += ": " + strings.TrimSuffix(strings.TrimSpace(h.Reason), ".")
		} else {
			reason += " without saying why"
		}
		reason += ". Do not try to get around it with another tool or a rewritten call; if the call is needed, tell the user what the hook blocked."
		return c.decide(StepDenyRule, Deny, nil, "the PreToolUse hook "+h.Hook, checked, reason)
	}
	return c.pass(StepDenyRule, checked, "pass")
}

func (c *chain) askStep() bool {
	checked := plural(len(c.p.ask), "ask rule")
	r, i := firstMatch(c.p.ask, c.req.Tool, c.subjects, c.in)
	if r != nil {
		return c.decide(StepAskRule, Ask, r, "", checked,
			fmt.Sprintf("The rule `%s` requires the user's approval to use %s%s%s.", r, c.req.Tool, c.on(i), c.with(r, i)))
	}
	if h := c.req.Hook; h != nil && h.Behavior == Ask {
		reason := fmt.Sprintf("The PreToolUse hook %s requires the user's approval for this call", h.Hook)
		if h.Reason != "" {
			reason += ": " + strings.TrimSuffix(strings.TrimSpace(h.Reason), ".")
		}
		return c.decide(StepAskRule, Ask, nil, "the PreToolUse hook "+h.Hook, checked+" and the PreToolUse hooks", reason+".")
	}
	return c.pass(StepAskRule, checked, "pass")
}

func (c *chain) toolStep() bool {
	const checked = "the tool's CheckPermissions"
	reason := c.req.ToolReason
	switch c.req.ToolBehavior {
	case ToolPassthrough:
		return c.pass(StepTool, checked+": passthrough", "pass")
	case ToolAllow:
		if reason == "" {
			reason = fmt.Sprintf("The %s tool allowed this call itself.", c.req.Tool)
		}
		c.decide(StepTool, Allow, nil, "the tool's own check", checked+": allow (the safety checks are skipped)", reason)
		c.pass(StepSafety, "skipped: the tool allowed the call itself", "skipped")
		return true
	case ToolAsk:
		if reason == "" {
			reason = fmt.Sprintf("The %s tool requires the user's approval for this call.", c.req.Tool)
		}
		return c.decide(StepTool, Ask, nil, "the tool's own check", checked+": ask", reason)
	default:
		return c.decide(StepTool, Ask, nil, "the tool's own check", checked+": an unknown answer",
			fmt.Sprintf("The %s tool gave a permission answer riot does not know, so this call needs the user's approval.", c.req.Tool))
	}
}

func (c *chain) safetyStep() bool {
	if c.p.mode == config.ModeBypassPermissions {
		return c.pass(StepSafety, "skipped: bypassPermissions mode", "skipped")
	}
	checked := fmt.Sprintf("the workspace fence and protected paths for %s", plural(len(c.subjects), "subject"))
	ask := func(check, reason string) bool {
		return c.decide(StepSafety, Ask, nil, check, checked, reason)
	}
	var system []string // reads of system files outside the roots (systemRead)
	for _, s := range c.subjects {
		switch s.Kind {
		case PathSubject:
			if s.Value == "" {
				return ask("a path known only when the call runs",
					fmt.Sprintf("This %s call touches a path that is known only when it runs (such as the operand of `cat $F`, or a relative path after `cd`), so riot cannot check it against the workspace and the rules; it needs the user's approval. Use literal paths to avoid asking.", c.req.Tool))
			}
			if errors.Is(s.err, paths.ErrProcess) {
				return ask("a process's own view: "+s.lexical,
					fmt.Sprintf("%s goes through /proc/self, /proc/thread-self or /proc/<pid>, whose files and links depend on the process that opens them (its working directory, its root, its open files), so riot cannot tell what it names and treats it as outside the workspace roots; using it needs the user's approval. Use the real path instead.", s.lexical))
			}
			if s.err != nil {
				return ask("cannot resolve: "+s.lexical,
					fmt.Sprintf("The path %q cannot be resolved (%v), so using it needs the user's approval.", s.Value, s.err))
			}
			inRO := withinAny(s.physical, c.p.readOnly)
			outside := !inRO && !withinAny(s.physical, c.p.roots)
			if outside && c.req.ReadOnly && c.p.systemRead(s) {
				system = append(system, s.physical)
				continue
			}
			if outside {
				return ask("outside the workspace: "+s.physical,
					fmt.Sprintf("%s is outside the workspace roots (%s), so using it needs the user's approval.", c.showPath(s), c.p.rootList()))
			}
			if inRO && s.Access == Write {
				return ask("read-only root: "+s.physical,
					fmt.Sprintf("%s is in a directory riot lets tools read but not change, so writing it needs the user's approval.", c.showPath(s)))
			}
			if c.req.ReadOnly {
				continue
			}
			if c.p.protectedBy(s.lexical) != "" || c.p.protectedBy(s.physical) != "" {
				return ask("protected path: "+s.physical,
					fmt.Sprintf("%s is a protected path, so a call that may change it needs the user's approval.", c.showPath(s)))
			}
		case CommandSubject:
			if c.req.ReadOnly {
				continue
			}
			if by := c.p.commandMentionsProtected(s.Value); by != "" {
				return ask("protected path in command: "+by,
					fmt.Sprintf("The command `%s` names the protected path %s, so running it needs the user's approval.", normalizeCommand(s.Value), by))
			}
		default:
			return ask("unknown subject kind",
				fmt.Sprintf("The %s tool declared a permission subject riot cannot check (%q), so this call needs the user's approval.", c.req.Tool, s.Value))
		}
	}
	if len(system) > 0 {
		checked += "; read-only reads of system files every user may read: " + strings.Join(system, ", ")
	}
	return c.pass(StepSafety, checked, "pass")
}

func (c *chain) allowStep() bool {
	rules := c.p.allowRules()
	c.allowed = allowedBy(rules, c.req.Tool, c.subjects, c.in)
	var covered, missing []string
	for i, r := range c.allowed {
		what := "the call"
		if len(c.subjects) > 0 {
			what = c.show(i)
		}
		if r == nil {
			missing = append(missing, what)
		} else {
			covered = append(covered, fmt.Sprintf("%s by `%s`", what, r))
		}
	}
	checked := plural(len(rules), "allow rule")
	if len(covered) > 0 {
		checked += "; covered: " + strings.Join(covered, ", ")
	}
	if len(missing) > 0 {
		return c.pass(StepAllowRule, checked+"; not covered: "+strings.Join(missing, ", "), "pass")
	}
	return c.decide(StepAllowRule, Allow, c.allowed[0], "", checked,
		fmt.Sprintf("Allowed by the rule `%s`%s.", c.allowed[0], c.with(c.allowed[0], -1)))
}

func (c *chain) modeStep(ctx context.Context) bool {
	mode := c.p.mode
	checked := "mode " + string(mode)
	if c.req.ReadOnly {
		return c.decide(StepMode, Allow, nil, "", checked+": the call is read-only",
			fmt.Sprintf("Read-only calls are allowed in %s mode.", mode))
	}
	checked += ": the call is not read-only"
	if h := c.req.Hook; h != nil && h.Behavior == Allow && mode != config.ModePlan {
		reason := fmt.Sprintf("Allowed by the PreToolUse hook %s", h.Hook)
		if h.Reason != "" {
			reason += ": " + strings.TrimSuffix(strings.TrimSpace(h.Reason), ".")
		}
		return c.decide(StepMode, Allow, nil, "the PreToolUse hook "+h.Hook, checked+"; the PreToolUse hook "+h.Hook+" allowed it", reason+".")
	}
	notAllowed := fmt.Sprintf("%s%s is not read-only and no allow rule covers it, so it needs the user's approval.", c.req.Tool, c.on(-2))
	// Every mode is a case, so that the exhaustive linter finds this switch
	// when a mode is added; no default would hide a new one.
	switch mode {
	case config.ModeBypassPermissions:
		return c.decide(StepMode, Allow, nil, "", checked, "Allowed in bypassPermissions mode.")
	case config.ModePlan:
		return c.decide(StepMode, Deny, nil, "", checked, planReason)
	case config.ModeAcceptEdits:
		if c.fileEdits() {
			return c.decide(StepMode, Allow, nil, "", checked+" but only edits files in the workspace",
				"File edits inside the workspace are allowed in acceptEdits mode.")
		}
		return c.decide(StepMode, Ask, nil, "", checked+" and is more than a file edit", notAllowed)
	case config.ModeAuto:
		return c.classify(ctx, checked)
	case config.ModeDefault, config.ModeDontAsk: // decide makes dontAsk's Ask a Deny
		return c.decide(StepMode, Ask, nil, "", checked, notAllowed)
	}
	// New refuses a mode it does not know; should one get here, fail closed.
	return c.decide(StepMode, Deny, nil, "unknown mode", checked+"; riot does not know this mode",
		fmt.Sprintf("The permission mode %q is unknown, so this call was not run. Tell the user to set a mode riot knows.", mode))
}

// fileEdits reports whether the call only touches files by path: every
// subject a path (step 4 has put them inside the roots, and writes outside
// the read-only ones) and at least one a write.
func (c *chain) fileEdits() bool {
	writes := false
	for _, s := range c.subjects {
		if s.Kind != PathSubject {
			return false
		}
		writes = writes || s.Access == Write
	}
	return writes
}

func (c *chain) classify(ctx context.Context, checked string) bool {
	const ask = " so it needs the user's approval."
	switch {
	case c.p.classifier == nil:
		return c.decide(StepMode, Ask, nil, "no classifier", checked+"; no classifier is configured",
			"Auto mode has no classifier configured,"+ask)
	case c.req.ClassifierInput == "":
		return c.decide(StepMode, Ask, nil, "no classifier input", checked+"; the tool gives the classifier nothing to judge",
			fmt.Sprintf("The %s tool gives auto mode's classifier nothing to judge,", c.req.Tool)+ask)
	}
	b, err := c.p.classifier.Classify(ctx, c.req.Tool, c.req.ClassifierInput)
	switch {
	case err != nil:
		return c.decide(StepMode, Ask, nil, "classifier failed: "+err.Error(), checked+"; the classifier failed: "+err.Error(),
			"Auto mode's classifier could not judge this call,"+ask)
	case b == Allow:
		return c.decide(StepMode, Allow, nil, "classifier: allow", checked+"; the classifier allowed it",
			"Auto mode's classifier judged this call safe.")
	default:
		return c.decide(StepMode, Ask, nil, "classifier: ask", checked+"; the classifier asked",
			"Auto mode's classifier did not judge this call safe,"+ask)
	}
}

const planReason = "You are in plan mode: you may read and explore, but not make changes, so this call was not run. " +
	"Do not try to make the change another way. When you have investigated enough, present your plan to the user " +
	"(what you would change, and how) and wait for the user to approve it and leave plan mode."

// on describes the call's subject i for a reason: " on `touch x`"; -1 is
// the call as a whole; -2 picks the first subject no allow rule covers.
func (c *chain) on(i int) string {
	if i == -2 {
		i = -1
		for j, r := range c.allowed {
			if r == nil && len(c.subjects) > 0 {
				i = j
				break
			}
		}
	}
	if i < 0 {
		if c.req.Describe != "" {
			return fmt.Sprintf(" (%s)", c.req.Describe)
		}
		return ""
	}
	return " on " + c.show(i)
}

// with names the parameter a parameter rule matched the whole call (i -1)
// by, such as ` with repo "riot-tools/riot"`, or "".
func (c *chain) with(r *compiled, i int) string {
	if r == nil || r.param == nil || i != -1 {
		return ""
	}
	v, ok := r.param.matches(c.in, true)
	if !ok {
		return ""
	}
	return fmt.Sprintf(" with %s %q", r.param.name, v)
}

func (c *chain) show(i int) string {
	s := c.subjects[i]
	if s.Kind == PathSubject {
		return c.showPath(s)
	}
	return "`" + normalizeCommand(s.Value) + "`"
}

func (c *chain) showPath(s subject) string {
	lexical, physical := c.p.shown(s.lexical), c.p.shown(s.physical)
	if physical != "" && physical != lexical {
		return fmt.Sprintf("%s (which resolves to %s)", lexical, physical)
	}
	return lexical
}

func (p *Policy) rootList() string {
	var out []string
	for _, r := range p.roots {
		out = append(out, p.shown(r.lexical))
	}
	return strings.Join(out, ", ")
}

// shown is path as Config.ShowPath names it to the model.
func (p *Policy) shown(path string) string {
	if p.showPath == nil || path == "" {
		return path
	}
	return p.showPath(path)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}
