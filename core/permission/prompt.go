package permission

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"unicode"

	"github.com/mattn/go-isatty"
	"github.com/riot-tools/riot/config"
)

// TTYPrompter asks the user on a terminal: the prompt goes to Out
// (stderr), and one line is read from In. Use it by pointer; it is safe
// for concurrent use, and concurrent prompts are asked one at a time.
//
// It offers allow once and deny, and also allow for this session and
// always allow when a rule could allow the call (Decision.Suggestions).
// An empty line, end of input, or a cancelled context denies. Lines read
// before the prompt appeared are discarded, so that type-ahead cannot
// answer it.
type TTYPrompter struct {
	In  io.Reader
	Out io.Writer

	mu    sync.Mutex
	once  sync.Once
	lines chan string
}

// ErrCannotAsk is what a Prompter returns, with AnswerDeny, when it has no
// way to ask: no terminal, or an MCP client without elicitation. Resolve
// then denies with the message naming the rule that would allow the call,
// rather than saying that the user refused.
var ErrCannotAsk = errors.New("permission: no way to ask the user")

// NoTTYPrompter is the prompter without a terminal: it always answers
// AnswerDeny, with ErrCannotAsk.
func NoTTYPrompter() Prompter { return noTTY{} }

type noTTY struct{}

func (noTTY) Prompt(context.Context, Request, Decision) (Answer, error) {
	return AnswerDeny, ErrCannotAsk
}

// StdioPrompter is a TTYPrompter on stdin and stderr when both are
// terminals, and NoTTYPrompter otherwise.
func StdioPrompter() Prompter {
	if isatty.IsTerminal(os.Stdin.Fd()) && isatty.IsTerminal(os.Stderr.Fd()) {
		return &TTYPrompter{In: os.Stdin, Out: os.Stderr}
	}
	return NoTTYPrompter()
}

// maxTries is how many unrecognised answers a prompt takes before it
// denies.
const maxTries = 3

// Prompt asks about one call. If the prompt cannot be written, the call
// is denied with that error.
func (t *TTYPrompter) Prompt(ctx context.Context, req Request, d Decision) (Answer, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.start()
	if !t.drain() {
		return AnswerDeny, nil
	}
	withRule := len(d.Suggestions) > 0
	hint := "Type y or n, then Enter.\n"
	if withRule {
		hint = "Type y, s, a or n, then Enter.\n"
	}
	return t.ask(ctx, promptText(req, d), hint, func(line string) (Answer, bool) { return parseAnswer(line, withRule) })
}

// ask writes text and reads answers until parse takes one, writing hint
// after each it does not, at most maxTries times; t.mu is held. End of
// input, a cancelled context or no valid answer denies.
func (t *TTYPrompter) ask(ctx context.Context, text, hint string, parse func(string) (Answer, bool)) (Answer, error) {
	Asking(ctx)
	for try := 0; try < maxTries; try++ {
		if _, err := io.WriteString(t.Out, text+"Answer: "); err != nil {
			return AnswerDeny, err
		}
		var line string
		select {
		case <-ctx.Done():
			t.say("\nriot: denied (cancelled).\n")
			return AnswerDeny, ctx.Err()
		case l, ok := <-t.lines:
			if !ok {
				t.say("\nriot: denied (end of input).\n")
				return AnswerDeny, nil
			}
			line = l
		}
		if a, valid := parse(line); valid {
			return a, nil
		}
		text = hint
	}
	t.say("riot: denied (no valid answer).\n")
	return AnswerDeny, nil
}

// start begins reading In, once; t.mu is held.
func (t *TTYPrompter) start() {
	t.once.Do(func() {
		t.lines = make(chan string, 16)
		go t.read()
	})
}

// drain discards the lines read before the prompt appears, so that
// type-ahead cannot answer it; false at the end of input. t.mu is held.
func (t *TTYPrompter) drain() bool {
	for {
		select {
		case _, ok := <-t.lines:
			if !ok {
				return false
			}
		default:
			return true
		}
	}
}

// say writes a closing line; the answer is already decided, so a failed
// write changes nothing.
func (t *TTYPrompter) say(s string) { _, _ = io.WriteString(t.Out, s) }

func (t *TTYPrompter) read() {
	defer close(t.lines)
	r := bufio.NewReader(t.In)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		t.lines <- line
	}
}

// parseAnswer reads one answer; withRule says whether the session and
// always answers are offered.
func parseAnswer(line string, withRule bool) (Answer, bool) {
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes", "1", "o", "once":
		return AnswerAllowOnce, true
	case "", "n", "no", "d", "deny", "4":
		return AnswerDeny, true
	case "s", "session", "2":
		return AnswerAllowSession, withRule
	case "a", "always", "3":
		return AnswerAllowAlways, withRule
	}
	return AnswerDeny, false
}

func promptText(req Request, d Decision) string {
	var b strings.Builder
	what := req.Describe
	if what == "" {
		what = "(no description)"
	}
	fmt.Fprintf(&b, "\nriot: %s wants to: %s\n", printable(req.Tool), printable(what))
	fmt.Fprintf(&b, "  why it asks: %s\n", printable(d.Reason))
	b.WriteString("  [y] allow once\n")
	if len(d.Suggestions) > 0 {
		rule := printable(strings.Join(d.Suggestions, ", "))
		fmt.Fprintf(&b, "  [s] allow for this session: %s\n", rule)
		fmt.Fprintf(&b, "  [a] always allow: add %s to %s\n", rule, ".riot/config.local.toml")
	}
	b.WriteString("  [n] deny (the default)\n")
	return b.String()
}

// printable makes text from the model safe to print on a terminal: control
// characters (escape sequences) and bidirectional overrides are shown
// escaped instead of acting on the terminal.
func printable(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) {
			fmt.Fprintf(&b, "\\u%04x", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Resolve settles an Ask with the prompter and returns the final decision
// (any other decision is returned as it is): allow once; allow for this
// session, which grants the suggested rules; always allow, which also
// appends them to the workspace's .riot/config.local.toml; or deny. The
// error reports a rule that could not be saved; the call is allowed
// anyway, as the user said.
func (p *Policy) Resolve(ctx context.Context, pr Prompter, req Request, d Decision) (Decision, error) {
	if d.Behavior != Ask {
		return d, nil
	}
	if pr == nil {
		pr = NoTTYPrompter()
	}
	a, err := pr.Prompt(ctx, req, d)
	if err != nil {
		// Not asked, or not answered: denied, as without a terminal. The
		// error is the prompter's, not a failure to save a rule.
		d.Behavior = Deny
		return d, nil //nolint:nilerr // see above
	}
	if len(d.Suggestions) == 0 && (a == AnswerAllowSession || a == AnswerAllowAlways) {
		a = AnswerAllowOnce
	}
	switch a {
	case AnswerAllowOnce:
		d.Reason = "The user allowed this call once."
	case AnswerAllowSession:
		d.Reason = "The user allowed this for the session."
	case AnswerAllowAlways:
		d.Reason = "The user allowed this from now on."
	default:
		d.Behavior, d.ByUser, d.Reason = Deny, true, "The user denied this call."
		return d, nil
	}
	d.Behavior, d.ByUser = Allow, true
	var saveErr error
	for _, rule := range d.Suggestions {
		if a == AnswerAllowOnce {
			break
		}
		if err := p.Grant(rule); err != nil {
			return d, err
		}
		if a == AnswerAllowAlways {
			if _, err := config.AppendAllowRule(p.roots[0].lexical, rule); err != nil && saveErr == nil {
				saveErr = fmt.Errorf("cannot save the rule %s: %w", rule, err)
			}
		}
	}
	return d, saveErr
}
