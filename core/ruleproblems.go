package core

import "errors"

// RuleProblems are the permission rules and hooks' ifs that do not fit
// the parameters of a tool they name (permission.Policy.CheckTool,
// permission.Condition.CheckTool), one error per rule, each a
// *config.Error naming where it was written. Such a permission rule
// refuses every call of its tool, and such an if runs its hook on every
// call; this reports them before one is made.
// MCP servers' tools are checked as far as they are listed now.
func (h *Host) RuleProblems() []error {
	var out []error
	seen := map[string]bool{}
	for _, t := range h.toolList() {
		// The schema is read only for a tool some rule names; one that
		// does not say its parameters is not checked, nor are its calls.
		errs := h.hookConditionProblems(t.spec.Name, t.params)
		if err := h.policy.CheckTool(t.spec.Name, t.params); err != nil {
			errs = append(errs, err)
		}
		for _, err := range errs {
			if !seen[err.Error()] {
				seen[err.Error()] = true
				out = append(out, err)
			}
		}
	}
	return out
}

// warnRuleProblems logs each of RuleProblems once, when the host starts:
// on stderr for the CLI (riot tools, run, call, mcp) and in the log file.
func (h *Host) warnRuleProblems() {
	for _, err := range h.RuleProblems() {
		if errors.As(err, new(hookIfProblem)) {
			h.log.Warn("a hook's if does not fit its tool, so the hook runs on each call of the tool, its allow counting for nothing, until it is fixed: " + err.Error())
			continue
		}
		h.log.Warn("a permission rule does not fit its tool, so each call of the tool is refused until it is fixed: " + err.Error())
	}
}
