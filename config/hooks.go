package config

import (
	"fmt"
	"regexp"
	"strings"
	"time"
)

// HookEvents are the hook events riot runs, as Claude Code names them.
var HookEvents = []string{"PreToolUse", "PostToolUse"}

// Hooks are the [[hooks.PreToolUse]] and [[hooks.PostToolUse]] tables of
// every layer, in layer order.
type Hooks struct {
	PreToolUse  []Hook
	PostToolUse []Hook
}

// Hook is one hook table: a command run with `sh -c` before or after each
// call whose tool name its matcher matches.
type Hook struct {
	// Matcher is a tool name, names joined by |, a regular expression
	// matched against the whole tool name, or "*" (or empty) for every
	// tool.
	Matcher string
	Command string
	// Timeout bounds one run; the default is 60 s.
	Timeout time.Duration
	// FailClosed makes a hook that fails (exits with a status other than 0
	// or 2, or times out) block the call instead of letting it go on.
	FailClosed bool
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

type hooksLayer struct {
	PreToolUse  []hookLayer `toml:"PreToolUse"`
	PostToolUse []hookLayer `toml:"PostToolUse"`
}

type hookLayer struct {
	Matcher    *string   `toml:"matcher"`
	Command    *string   `toml:"command"`
	Timeout    *duration `toml:"timeout"`
	FailClosed *bool     `toml:"fail_closed"`
}

var hookKeys = []string{"matcher", "command", "timeout", "fail_closed"}

// applyHooks appends one layer's hooks: hooks of every layer run.
func (c *Config) applyHooks(l *parsedLayer) error {
	if l.Hooks == nil {
		return nil
	}
	for _, ev := range []struct {
		name string
		in   []hookLayer
		out  *[]Hook
	}{{"PreToolUse", l.Hooks.PreToolUse, &c.Hooks.PreToolUse}, {"PostToolUse", l.Hooks.PostToolUse, &c.Hooks.PostToolUse}} {
		for i, hl := range ev.in {
			src := l.src
			src.Line = l.loc.arrayTable([]string{"hooks", ev.name}, i)
			h, err := hookFrom(ev.name, hl, src)
			if err != nil {
				return err
			}
			*ev.out = append(*ev.out, h)
		}
	}
	return nil
}

func hookFrom(event string, hl hookLayer, src Source) (Hook, error) {
	h := Hook{Timeout: DefaultHookTimeout, Source: src}
	if hl.Command == nil || strings.TrimSpace(*hl.Command) == "" {
		return h, &Error{Source: src, Msg: fmt.Sprintf("a [[hooks.%s]] table needs a command, such as command = \"./scripts/check.sh\"", event)}
	}
	h.Command = *hl.Command
	if hl.Matcher != nil {
		h.Matcher = strings.TrimSpace(*hl.Matcher)
		if h.Matcher != "" && h.Matcher != "*" {
			re, err := compileMatcher(h.Matcher)
			if err != nil {
				return h, &Error{Source: src, Msg: fmt.Sprintf("matcher %q is not a valid regular expression; write a tool name, names joined by |, or \"*\"", h.Matcher)}
			}
			h.re = re
		}
	}
	if hl.Timeout != nil {
		if hl.Timeout.Duration == 0 {
			return h, &Error{Source: src, Msg: "a hook's timeout must be more than zero"}
		}
		h.Timeout = hl.Timeout.Duration
	}
	if hl.FailClosed != nil {
		h.FailClosed = *hl.FailClosed
	}
	return h, nil
}
