package config

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"
)

// Hooks are the [hooks] table: the hook tables of every event riot runs,
// each in layer order, then those imported from Claude Code's settings.
type Hooks struct {
	// ImportClaude reads the hooks of ~/.claude/settings.json and of the
	// workspace's .claude/settings.json (claudehooks.go).
	ImportClaude bool `toml:"import_claude" trust:"loosen"`
	// The events, as Claude Code names them (HookEvents).
	PreToolUse         []Hook `toml:"PreToolUse" trust:"loosen"`
	PermissionRequest  []Hook `toml:"PermissionRequest" trust:"loosen"`
	PostToolUse        []Hook `toml:"PostToolUse" trust:"loosen"`
	PostToolUseFailure []Hook `toml:"PostToolUseFailure" trust:"loosen"`
	Notification       []Hook `toml:"Notification" trust:"loosen"`
	SessionStart       []Hook `toml:"SessionStart" trust:"loosen"`
	SessionEnd         []Hook `toml:"SessionEnd" trust:"loosen"`
}

// HookEvents are the events riot runs hooks for, in Claude Code's names.
func HookEvents() []string {
	return []string{"PreToolUse", "PermissionRequest", "PostToolUse", "PostToolUseFailure", "Notification", "SessionStart", "SessionEnd"}
}

// Event is the hook tables of an event of HookEvents; nil for another.
func (h *Hooks) Event(name string) *[]Hook {
	switch name {
	case "PreToolUse":
		return &h.PreToolUse
	case "PermissionRequest":
		return &h.PermissionRequest
	case "PostToolUse":
		return &h.PostToolUse
	case "PostToolUseFailure":
		return &h.PostToolUseFailure
	case "Notification":
		return &h.Notification
	case "SessionStart":
		return &h.SessionStart
	case "SessionEnd":
		return &h.SessionEnd
	}
	return nil
}

// Hook is one hook table: a handler run on each event whose subject its
// matcher matches (the tool's name; for Notification the notification's
// type, for SessionStart its source, for SessionEnd its reason). The
// handler is a command run with `sh -c`, a program run with its args and
// no shell, or, with type = "http", a URL the event is POSTed to.
type Hook struct {
	// Matcher is a name, names joined by |, a regular expression matched
	// against the whole subject, or "*" (or empty) for every one.
	Matcher string `toml:"matcher"`
	// Type is "command" (the default) or "http".
	Type    string   `toml:"type,omitempty"`
	Command string   `toml:"command"`
	Args    []string `toml:"args,omitempty"`
	URL     string   `toml:"url,omitempty"`
	// Headers are sent with an HTTP hook's POST; $NAME and ${NAME} expand
	// only for the variables AllowedEnvVars lists.
	Headers        map[string]string `toml:"headers,omitempty" secret:"true"`
	AllowedEnvVars []string          `toml:"allowed_env_vars,omitempty"`
	// Timeout bounds one run; the default is 60 s.
	Timeout time.Duration `toml:"timeout" check:"positive"`
	// FailClosed makes a hook that fails (exits with a status other than 0
	// or 2, answers an HTTP status other than 2xx, or times out) block
	// instead of letting the event go on.
	FailClosed bool `toml:"fail_closed"`
	// If, on tool events, is a permission rule (Bash(git push:*)) a call
	// must match for the hook to run; the core compiles it with the
	// rules, since what a rule matches depends on the workspace.
	If string `toml:"if,omitempty"`
	// Async runs the hook in the background: the event does not wait for
	// it and its decision counts for nothing; its systemMessage reaches
	// the user and its additionalContext the model, at the next turn.
	Async bool `toml:"async"`
	// Once runs the hook on the first matching event of the host only.
	Once   bool `toml:"once"`
	Source Source

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
	what := "[[" + strings.Join(key, ".") + "]] table"
	if strings.TrimSpace(h.If) != "" && !ToolEvent(key[len(key)-1]) {
		return &Error{Source: src, Msg: fmt.Sprintf("a %s sets if, which applies to the tool events only (PreToolUse, PermissionRequest, PostToolUse, PostToolUseFailure); use matcher on this event", what)}
	}
	return h.check(what, src)
}

// ToolEvent reports whether an event is about one tool call: only those
// read a hook's if.
func ToolEvent(event string) bool {
	switch event {
	case "PreToolUse", "PermissionRequest", "PostToolUse", "PostToolUseFailure":
		return true
	}
	return false
}

// check checks a hook read from a config table or imported, which what
// names, and compiles its matcher.
func (h *Hook) check(what string, src Source) error {
	bad := func(format string, args ...any) error {
		return &Error{Source: src, Msg: fmt.Sprintf("a %s ", what) + fmt.Sprintf(format, args...)}
	}
	command := strings.TrimSpace(h.Command) != ""
	switch h.Type {
	case "", "command":
		switch {
		case command && len(h.Args) > 0:
			return bad("sets both command and args; keep command for a shell line, or args to run a program without a shell")
		case !command && len(h.Args) == 0:
			return bad("needs a command, such as command = \"./scripts/check.sh\", or args = [\"./scripts/check.sh\", \"--strict\"]")
		case len(h.Args) > 0 && strings.TrimSpace(h.Args[0]) == "":
			return bad("has args whose first element, the program, is empty")
		case h.URL != "" || len(h.Headers) > 0:
			return bad("sets url or headers without type = \"http\"")
		}
	case "http":
		switch {
		case command || len(h.Args) > 0:
			return bad("of type \"http\" posts to its url and runs nothing; remove command and args")
		case h.URL == "":
			return bad("of type \"http\" needs a url, such as url = \"http://127.0.0.1:8080/hook\"")
		}
		if u, err := url.Parse(h.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
			return bad("has url %q, which is not an http:// or https:// URL", h.URL)
		}
	default:
		return bad("has type %q, which riot does not run; use \"command\" or \"http\"", h.Type)
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
