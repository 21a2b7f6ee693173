package sessionhost

import (
	"context"
	"encoding/json"
	"io"

	"github.com/riot-tools/riot/core"
	"github.com/riot-tools/riot/core/permission"
	"github.com/riot-tools/riot/core/sessionhost/attach"
)

// ErrNoHost means no host serves the socket: the client runs the turn
// itself, as without one.
var ErrNoHost = attach.ErrNoHost

// ErrHostDied means the host went away after it took the turn: its calls
// may have run in part.
var ErrHostDied = attach.ErrHostDied

// RefusedError is a host's refusal to run a turn; the client runs it
// itself.
type RefusedError = attach.RefusedError

// shortAddr is an address for the socket at path that fits sockaddr_un
// (attach.ShortAddr).
func shortAddr(path string) (string, func(), error) { return attach.ShortAddr(path) }

// Handlers are what a client does with what the host sends during a turn.
type Handlers struct {
	// Prompter answers the host's permission prompts, and its questions
	// about hosts when it is a permission.NetworkPrompter; nil denies.
	Prompter permission.Prompter
	// Progress, if set, gets each call's progress; unset, the host sends
	// none.
	Progress func(core.Progress)
	// Warn, if set, gets what went wrong with the client's own frames
	// during the turn.
	Warn func(string)
	// Notice, if set, gets the host's warning about the config it ran the
	// turn with, which the client would have printed running it itself.
	Notice func(string)
}

// Reply is a host's answer to a turn: its results, or, when the hello
// asked the host to render them (Hello.Render), the text to print.
type Reply = attach.Reply

// Turn sends a turn to the host on socket and returns its results.
// Cancelling ctx cancels the turn in the host, whose results then say
// Cancelled.
func Turn(ctx context.Context, socket string, hello Hello, uses []core.ToolUse, hs Handlers) ([]core.ToolResult, error) {
	hello.Render = ""
	r, err := TurnReply(ctx, socket, hello, uses, hs)
	return r.Results, err
}

// TurnReply is Turn that returns the host's reply whole: with
// hello.Render set, the results as the host rendered them, or the results
// themselves when it could not. It is attach.Turn with the host's prompts
// read as permission requests and put to hs.Prompter.
func TurnReply(ctx context.Context, socket string, hello Hello, uses []core.ToolUse, hs Handlers) (Reply, error) {
	return attach.Turn(ctx, socket, hello, uses, attach.Handlers{
		Prompt:   prompter(hs.Prompter),
		Progress: hs.Progress,
		Warn:     hs.Warn,
		Notice:   hs.Notice,
	})
}

// prompter answers a host's prompt frame with p, or denies without one.
func prompter(p permission.Prompter) func(context.Context, json.RawMessage) (int, error) {
	return func(ctx context.Context, raw json.RawMessage) (int, error) {
		var f promptFrame
		if err := json.Unmarshal(raw, &f); err != nil {
			return 0, err
		}
		a := permission.AnswerDeny
		switch np, ok := p.(permission.NetworkPrompter); {
		case f.Network != nil && ok:
			if got, err := np.PromptNetwork(ctx, *f.Network); err == nil {
				a = permission.NetworkAnswer(got)
			}
		case f.Network != nil:
		case p != nil:
			if got, err := p.Prompt(ctx, f.Request, f.Decision); err == nil {
				a = got
			}
		}
		return int(a), nil
	}
}

// Stop asks the host on socket to exit and waits until it has closed its
// plugins. A host that refuses this client (one in a sandbox) says why, in
// a *RefusedError, and goes on serving.
func Stop(socket string) error {
	c, err := attach.Dial(socket)
	if err != nil {
		return err
	}
	defer func() { _ = c.Close() }()
	if err := json.NewEncoder(c).Encode(attach.ClientFrame{Stop: true}); err != nil {
		return ErrNoHost
	}
	// The host says it stopped once its plugins are closed, then exits,
	// which closes the connection; one that exits without a word has
	// stopped all the same.
	dec := json.NewDecoder(c)
	for {
		var f struct {
			Refused string `json:"refused"`
		}
		if err := dec.Decode(&f); err != nil {
			_, _ = io.Copy(io.Discard, c)
			return nil
		}
		if f.Refused != "" {
			return &RefusedError{Reason: f.Refused}
		}
	}
}
