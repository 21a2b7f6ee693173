package core

// RuleProblems are the permission rules that do not fit the parameters of
// a tool they name (permission.Policy.CheckTool), one error per rule,
// each a *config.Error naming where the rule was written. Such a rule
// refuses every call of its tool; this reports it before one is made.
// MCP servers' tools are checked as far as they are listed now.
func (h *Host) RuleProblems() []error {
	var out []error
	seen := map[string]bool{}
	for _, t := range h.toolList() {
		// The schema is read only for a tool some rule names; one that
		// does not say its parameters is not checked, nor are its calls.
		if err := h.policy.CheckTool(t.spec.Name, t.params); err != nil && !seen[err.Error()] {
			seen[err.Error()] = true
			out = append(out, err)
		}
	}
	return out
}

// warnRuleProblems logs each of RuleProblems once, when the host starts:
// on stderr for the CLI (riot tools, run, call, mcp) and in the log file.
func (h *Host) warnRuleProblems() {
	for _, err := range h.RuleProblems() {
		h.log.Warn("a permission rule does not fit its tool, so each call of the tool is refused until it is fixed: " + err.Error())
	}
}
