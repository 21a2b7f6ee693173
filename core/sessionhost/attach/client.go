package attach

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"syscall"

	"github.com/riot-tools/riot/core/toolcall"
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

// Dial connects to the host on a safe socket, or says why not: ErrNoHost
// when none listens there, an ErrUnsafe error when the socket or its
// directory is not the user's alone.
//
// It connects with package syscall rather than net; the
// connection is a blocking descriptor, which a client's one goroutine
// reading and another writing a cancel may share.
func Dial(socket string) (*os.File, error) {
	if err := CheckSocket(socket); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, ErrNoHost
		}
		return nil, err
	}
	addr, done, err := ShortAddr(socket)
	if err != nil {
		return nil, ErrNoHost
	}
	defer done()
	fd, err := unixSocket()
	if err != nil {
		return nil, ErrNoHost
	}
	for {
		err = syscall.Connect(fd, &syscall.SockaddrUnix{Name: addr})
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		_ = syscall.Close(fd)
		return nil, ErrNoHost // a crashed host's socket
	}
	return os.NewFile(uintptr(fd), socket), nil
}

// Handlers are what a client does with what the host sends during a turn.
type Handlers struct {
	// Prompt answers a permission prompt, the host's prompt frame as it
	// came, with a permission.Answer; nil denies. An error means the frame
	// could not be read, and ends the turn as ErrHostDied.
	Prompt func(ctx context.Context, prompt json.RawMessage) (int, error)
	// Progress, if set, gets each call's progress; unset, the host sends
	// only the first (Hello.Progress).
	Progress func(toolcall.Progress)
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
	Results []toolcall.ToolResult
	Output  []byte
}

// Turn sends a turn to the host on socket and returns its reply: with
// hello.Render set, the results as the host rendered them, or the results
// themselves when it could not. Cancelling ctx cancels the turn in the
// host, whose results then say Cancelled.
//
// Its errors: ErrNoHost and *RefusedError before the host took the turn
// (the caller may run it itself), an ErrUnsafe error from Dial, and
// ErrHostDied once the host may have begun it.
func Turn(ctx context.Context, socket string, hello Hello, uses []toolcall.ToolUse, hs Handlers) (Reply, error) {
	c, err := Dial(socket)
	if err != nil {
		return Reply{}, err
	}
	defer func() { _ = c.Close() }()
	return Exchange(ctx, c, hello, uses, hs)
}

// Exchange runs a turn on a connection Dial made, as Turn does.
func Exchange(ctx context.Context, c *os.File, hello Hello, uses []toolcall.ToolUse, hs Handlers) (Reply, error) {
	hello.Progress = hs.Progress != nil
	var mu sync.Mutex
	enc := json.NewEncoder(c)
	send := func(f ClientFrame) error {
		mu.Lock()
		defer mu.Unlock()
		return enc.Encode(f)
	}
	if err := send(ClientFrame{Hello: &hello, Uses: uses}); err != nil {
		return Reply{}, ErrNoHost
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-ctx.Done():
			_ = send(ClientFrame{Cancel: true})
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
	// progress): from then on the turn is not run again elsewhere.
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
			a := 0 // deny
			if hs.Prompt != nil {
				got, err := hs.Prompt(ctx, f.Prompt)
				if err != nil {
					return Reply{}, notFrame
				}
				a = got
			}
			_ = send(ClientFrame{Answer: &a})
		case present(f.Progress):
			started = true
			var p toolcall.Progress
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
