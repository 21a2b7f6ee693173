package permission

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// NetworkQuestion is what a sandboxed command's connection puts to the
// user when no [sandbox.network] rule covers its host: riot's proxy holds
// the connection until the answer.
type NetworkQuestion struct {
	// Host and Port are what the command connects to, the host as rules
	// match it (lowercase, punycode).
	Host string `json:"host"`
	Port int    `json:"port"`
	// Rule is the allowed_domains entry an "always" answer writes.
	Rule string `json:"rule"`
	// Tool and Describe are the call whose command connects.
	Tool     string `json:"tool"`
	Describe string `json:"describe,omitempty"`
}

// Target is host:port, as the question names it.
func (q NetworkQuestion) Target() string {
	if strings.Contains(q.Host, ":") {
		return "[" + q.Host + "]:" + strconv.Itoa(q.Port)
	}
	return q.Host + ":" + strconv.Itoa(q.Port)
}

// NetworkPrompter is a Prompter that can also ask about a host. Its
// answers are AnswerAllowSession, AnswerAllowAlways (the caller persists
// Rule) and AnswerDeny; any other answer denies. One that cannot ask
// returns AnswerDeny with ErrCannotAsk.
type NetworkPrompter interface {
	PromptNetwork(ctx context.Context, q NetworkQuestion) (Answer, error)
}

// NetworkAnswer reads an answer to a NetworkQuestion, failing closed: only
// the session and always answers allow.
func NetworkAnswer(a Answer) Answer {
	switch a {
	case AnswerAllowSession, AnswerAllowAlways:
		return a
	case AnswerDeny, AnswerAllowOnce:
		return AnswerDeny
	default:
		return AnswerDeny
	}
}

// NetworkMessage is the question in one line, for prompters that show a
// message and a choice (MCP elicitation).
func NetworkMessage(q NetworkQuestion) string {
	what := q.Tool
	if q.Describe != "" {
		what = fmt.Sprintf("%s (%s)", q.Tool, q.Describe)
	}
	return fmt.Sprintf("riot: a command of %s wants to connect to %s, which no [sandbox.network] rule allows. Allow it for this session, always (adds %s to allowed_domains under [sandbox.network] in .riot/config.local.toml), or deny?",
		what, q.Target(), strconv.Quote(q.Rule))
}

func (noTTY) PromptNetwork(context.Context, NetworkQuestion) (Answer, error) {
	return AnswerDeny, ErrCannotAsk
}

// PromptNetwork asks about a host on the terminal: allow for this session,
// always allow, or deny (the default). An empty line, end of input, or a
// cancelled context denies.
func (t *TTYPrompter) PromptNetwork(ctx context.Context, q NetworkQuestion) (Answer, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.start()
	if !t.drain() {
		return AnswerDeny, nil
	}
	return t.ask(ctx, networkPromptText(q), "Type s, a or n, then Enter.\n", func(line string) (Answer, bool) {
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "s", "session":
			return AnswerAllowSession, true
		case "a", "always":
			return AnswerAllowAlways, true
		case "", "n", "no", "d", "deny":
			return AnswerDeny, true
		}
		return AnswerDeny, false
	})
}

func networkPromptText(q NetworkQuestion) string {
	var b strings.Builder
	what := q.Tool
	if q.Describe != "" {
		what += ": " + q.Describe
	}
	fmt.Fprintf(&b, "\nriot: a command of %s\n  wants to connect to %s, which no [sandbox.network] rule allows.\n", printable(what), printable(q.Target()))
	fmt.Fprintf(&b, "  [s] allow %s for this session\n", printable(q.Target()))
	fmt.Fprintf(&b, "  [a] always allow: add %s to allowed_domains under [sandbox.network] in .riot/config.local.toml\n", printable(strconv.Quote(q.Rule)))
	b.WriteString("  [n] deny (the default)\n")
	return b.String()
}
