package config

import (
	"fmt"
	"regexp"
	"strings"
	"time"
)

// Hooks are the [[hooks.PreToolUse]] and [[hooks.PostToolUse]] tables of
// every layer, in layer order.
type Hooks struct {
	PreToolUse  []Hook `toml:"PreToolUse" trust:"loosen"`
	PostToolUse []Hook `toml:"PostToolUse" trust:"loosen"`
}

// Hook is one hook table: a command run with `sh -c` before or after each
// call whose tool name its matcher matches.
type Hook struct {
	// Matcher is a tool name, names joined by |, a regular expression
	// matched against the whole tool name, or "*" (or empty) for every
	// tool.
	Matcher string `toml:"matcher"`
	Command string `toml:"command"`
	// Timeout bounds one run; the default is 60 s.
	Timeout time.Duration `toml:"timeout" check:"positive"`
	// FailClosed makes a hook that fails (exits with a status other than 0
	// or 2, or times out) block the call instead of letting it go on.
	FailClosed bool `toml:"fail_closed"`
	Source     Source

	// re is Matcher compiled at load, so that matching a call is no
	// compilation; nil for a Hook built by hand, which Matches compiles.
	re *regexp.Regexp
}

// DefaultHookTimeout is a hook's timeout unless it sets one.
const DefaultHookTimeout = 60 * time.Second

// Matches reports whether the hook applies to a call of tool. A matcher
// that does not compile matches nothing; config loading rejects one.
func (h Hook) Matches(tool string) bool {
	if h.Matcher == "" || h.Matcher == "*" {
		return true
	}
	re := h.re
	if re == nil {
		var err error
		if re, err = compileMatcher(h.Matcher); err != nil {
			return false
		}
	}
	return re.MatchString(tool)
}

// compileMatcher anchors a matcher, so that "Bash" matches Bash and not
// BashOutput, as in Claude Code.
func compileMatcher(m string) (*regexp.Regexp, error) {
	return regexp.Compile("^(?:" + m + ")$")
}

func (h *Hook) begin(_ string, src Source) { h.Timeout, h.Source = DefaultHookTimeout, src }

// finish checks a hook table of the event key names once read.
func (h *Hook) finish(key []string, src Source) error {
	if strings.TrimSpace(h.Command) == "" {
		return &Error{Source: src, Msg: fmt.Sprintf("a [[%s]] table needs a command, such as command = \"./scripts/check.sh\"", strings.Join(key, "."))}
	}
	h.Matcher = strings.TrimSpace(h.Matcher)
	if h.Matcher != "" && h.Matcher != "*" {
		re, err := compileMatcher(h.Matcher)
		if err != nil {
			return &Error{Source: src, Msg: fmt.Sprintf("matcher %q is not a valid regular expression; write a tool name, names joined by |, or \"*\"", h.Matcher)}
		}
		h.re = re
	}
	return nil
}
