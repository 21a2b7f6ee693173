package sessionhost

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"sync"

	"github.com/riot-tools/riot/core"
	"github.com/riot-tools/riot/core/permission"
)

// ErrNoHost means no host serves the socket: the client runs the turn
// itself, as without one.
var ErrNoHost = errors.New("no session host is running")

// ErrHostDied means the host went away after it took the turn: its calls
// may have run in part.
var ErrHostDied = errors.New("the session host exited before the turn finished")

// RefusedError is a host's refusal to run a turn; the client runs it
// itself.
type RefusedError struct{ Reason string }

func (e *RefusedError) Error() string { return e.Reason }

// maxHostFrame bounds one line from the host: a turn's results, each
// bounded by the result budgets, fit many times over.
const maxHostFrame = 4 * maxFrame

// dial connects to a safe socket, or says why not.
func dial(path string) (net.Conn, error) {
	if err := CheckSocket(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, ErrNoHost
		}
		return nil, err
	}
	addr, done, err := shortAddr(path)
	if err != nil {
		return nil, ErrNoHost
	}
	// DialUnix, not Dial: nothing to resolve, and a client pays for each
	// step of its one connection.
	c, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: addr, Net: "unix"})
	done()
	if err != nil {
		return nil, ErrNoHost // a crashed host's socket
	}
	return c, nil
}

// Handlers are what a client does with what the host sends during a turn.
type Handlers struct {
	// Prompter answers the host's permission prompts; nil denies.
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
type Reply struct {
	Results []core.ToolResult
	Output  []byte
}

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
// themselves when it could not.
func TurnReply(ctx context.Context, socket string, hello Hello, uses []core.ToolUse, hs Handlers) (Reply, error) {
	c, err := dial(socket)
	if err != nil {
		return Reply{}, err
	}
	defer func() { _ = c.Close() }()
	hello.Progress = hs.Progress != nil
	var mu sync.Mutex
	enc := json.NewEncoder(c)
	send := func(f clientFrame) error {
		mu.Lock()
		defer mu.Unlock()
		return enc.Encode(f)
	}
	if err := send(clientFrame{Hello: &hello, Uses: uses}); err != nil {
		return Reply{}, ErrNoHost
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-ctx.Done():
			_ = send(clientFrame{Cancel: true})
		case <-done:
		}
	}()
	warn := func(line string) {
		if hs.Warn != nil {
			hs.Warn(line)
		}
	}
	sc := bufio.NewScanner(c)
	// Small at first: the scanner grows it for longer results, and a
	// client is a fresh process, to which each page is a fault.
	sc.Buffer(make([]byte, 0, 4<<10), maxHostFrame)
	// started says the host has begun the turn (it prompted or reported
	// progress): from then on the turn is not run again here.
	started := false
	notFrame := fmt.Errorf("%w: it sent a line that is not a frame", ErrHostDied)
	for sc.Scan() {
		var f hostLine
		if err := json.Unmarshal(sc.Bytes(), &f); err != nil {
			return Reply{}, notFrame
		}
		switch {
		case f.Local:
			return Reply{}, ErrNoHost
		case f.Refused != "":
			return Reply{}, &RefusedError{Reason: f.Refused}
		case f.Error != "" && !started:
			return Reply{}, &RefusedError{Reason: "the session host could not read this client's request: " + f.Error}
		case f.Error != "":
			warn("the session host could not read this client's frame: " + f.Error)
		case present(f.Prompt):
			started = true
			var p promptFrame
			if err := json.Unmarshal(f.Prompt, &p); err != nil {
				return Reply{}, notFrame
			}
			a := permission.AnswerDeny
			if hs.Prompter != nil {
				if got, err := hs.Prompter.Prompt(ctx, p.Request, p.Decision); err == nil {
					a = got
				}
			}
			_ = send(clientFrame{Answer: &a})
		case present(f.Progress):
			started = true
			var p core.Progress
			if err := json.Unmarshal(f.Progress, &p); err != nil {
				return Reply{}, notFrame
			}
			if hs.Progress != nil {
				hs.Progress(p)
			}
		case f.Done:
			var r Reply
			if present(f.Results) {
				if err := json.Unmarshal(f.Results, &r.Results); err != nil {
					return Reply{}, notFrame
				}
			}
			if f.Output != "" {
				r.Output = []byte(f.Output)
			}
			if f.Warning != "" && hs.Notice != nil {
				hs.Notice(f.Warning)
			}
			return r, nil
		}
	}
	return Reply{}, ErrHostDied
}

// Stop asks the host on socket to exit and waits until it has closed its
// plugins.
func Stop(socket string) error {
	c, err := dial(socket)
	if err != nil {
		return err
	}
	defer func() { _ = c.Close() }()
	if err := json.NewEncoder(c).Encode(clientFrame{Stop: true}); err != nil {
		return ErrNoHost
	}
	// The host says it stopped once its plugins are closed, then exits,
	// which closes the connection; one that exits without a word has
	// stopped all the same.
	_, _ = io.Copy(io.Discard, c)
	return nil
}
