package sessionhost

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/riot-tools/riot/core"
)

// pipeHost is a Server without a core.Host: its loop answers each turn
// with no results, and a stop with Stopped, so that handle, the code that
// reads a client's frames, can be driven over a socket pair.
type pipeHost struct {
	srv    *Server
	cancel context.CancelFunc
	ctx    context.Context
	// started gets each turn the loop took; cancelled each held turn
	// whose context then ended.
	started, cancelled chan struct{}
}

func newPipeHost(tb testing.TB, hold bool) *pipeHost {
	ctx, cancel := context.WithCancel(context.Background())
	p := &pipeHost{ctx: ctx, cancel: cancel, started: make(chan struct{}, 16), cancelled: make(chan struct{}, 16), srv: &Server{
		Self: self("/ws"),
		// No test waits for the hello timeout but those about it, so a
		// line over the limit must be refused without waiting for more.
		maxFrame: 1 << 10, helloTimeout: time.Hour,
		turns: make(chan *turn), stops: make(chan *conn),
	}}
	go func() {
		for {
			select {
			case t := <-p.srv.turns:
				p.started <- struct{}{}
				if hold { // a turn that runs until its client cancels it
					<-t.ctx.Done()
					p.cancelled <- struct{}{}
				}
				_ = t.send(hostFrame{Done: true})
				close(t.done)
			case c := <-p.srv.stops:
				_ = c.send(hostFrame{Stopped: true})
				cancel()
				return
			case <-ctx.Done():
				return
			}
		}
	}()
	tb.Cleanup(cancel)
	return p
}

// exchange writes data as a client would, then (when closeWrite is set)
// ends its side, and returns every frame the host sent until it closed the
// connection. A host that neither answers nor closes fails the test.
func (p *pipeHost) exchange(tb testing.TB, data []byte, closeWrite bool) []hostFrame {
	tb.Helper()
	return p.exchangeStaged(tb, data, nil, closeWrite)
}

// exchangeStaged is exchange that writes rest only once the host took the
// turn of the hello in data: a cancel sent with its hello may otherwise be
// read before the turn is taken, which then never runs.
func (p *pipeHost) exchangeStaged(tb testing.TB, data, rest []byte, closeWrite bool) []hostFrame {
	tb.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		tb.Fatal(err)
	}
	conns := make([]net.Conn, 2)
	for i, fd := range fds {
		f := os.NewFile(uintptr(fd), "pair")
		conns[i], err = net.FileConn(f)
		_ = f.Close()
		if err != nil {
			tb.Fatal(err)
		}
	}
	client, server := conns[0].(*net.UnixConn), conns[1]
	defer client.Close()
	handled := make(chan struct{})
	go func() {
		defer close(handled)
		p.srv.handle(p.ctx, server)
	}()
	go func() {
		_, _ = client.Write(data)
		if rest != nil {
			<-p.started
			_, _ = client.Write(rest)
		}
		if closeWrite {
			_ = client.CloseWrite()
		}
	}()
	_ = client.SetReadDeadline(time.Now().Add(20 * time.Second))
	var frames []hostFrame
	sc := bufio.NewScanner(client)
	for sc.Scan() {
		var f hostFrame
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&f); err != nil {
			tb.Fatalf("the host sent a line that is not a frame: %q", sc.Bytes())
		}
		frames = append(frames, f)
	}
	// A host that closes with the client's bytes unread resets the
	// connection: closed all the same, once its frames were read.
	if err := sc.Err(); err != nil && !errors.Is(err, syscall.ECONNRESET) {
		tb.Fatalf("the host neither answered nor closed: %v (frames so far %+v)", err, frames)
	}
	select {
	case <-handled:
	case <-time.After(20 * time.Second):
		tb.Fatal("the host's connection handler did not return")
	}
	return frames
}

func helloLine(h Hello, uses ...core.ToolUse) string {
	data, err := json.Marshal(clientFrame{Hello: &h, Uses: uses})
	if err != nil {
		panic(err)
	}
	return string(data) + "\n"
}

// Each kind of line a host cannot read ends in one error frame saying
// what was wrong, and the connection ends; nothing is run.
func TestFrameErrors(t *testing.T) {
	good := helloLine(self("/ws"), core.ToolUse{ID: "a", Name: "Read", Input: json.RawMessage(`{}`)})
	for _, tc := range []struct {
		name, data string
		open       bool // the client keeps its side open
		want       string
	}{
		{"partial line", `{"stop":tr`, false, "the connection ended in the middle of a frame; end each frame with a newline"},
		{"whole object, no newline", `{"stop":true}`, false, "the connection ended in the middle of a frame"},
		{"partial line, client waits", `{"hello":{`, true, "no whole first frame came within 50ms; send the hello, ended by a newline, as soon as you connect"},
		{"nothing, client waits", ``, true, "no whole first frame came within 50ms"},
		{"huge line", `{"hello":{"build":"` + strings.Repeat("x", 2000) + `"}}` + "\n", false, "a frame is longer than the host's limit of 1024 bytes; send smaller inputs"},
		{"huge line, no newline", strings.Repeat("x", 1025), true, "a frame is longer than the host's limit of 1024 bytes"},
		{"one byte over", `{"stop":true}` + strings.Repeat(" ", 1025-13) + "\n", false, "a frame is longer than the host's limit of 1024 bytes"},
		{"invalid UTF-8", "{\"hello\":{\"build\":\"\xff\"}}\n", false, "a frame is not valid UTF-8; send JSON text"},
		{"unknown frame type", `{"launch":true}` + "\n", false, `a frame has a field the host does not know ("launch"); is the client another riot build?`},
		{"unknown hello field", `{"hello":{"build":"b","colour":1}}` + "\n", false, `a frame has a field the host does not know ("colour")`},
		{"wrong field type", `{"hello":{"build":5}}` + "\n", false, "a frame's field hello.build is a JSON number, where the host reads a string"},
		{"wrong flag type", `{"stop":"yes"}` + "\n", false, "a frame's field stop is a JSON string, where the host reads true or false"},
		{"wrong calls type", `{"hello":{},"uses":{}}` + "\n", false, "a frame's field uses is a JSON object, where the host reads an array"},
		{"not an object", `[1,2]` + "\n", false, "a frame is a JSON array, not an object; send one JSON object per line"},
		{"a string", `"stop"` + "\n", false, "a frame is a JSON string, not an object"},
		{"not JSON", "stop please\n", false, "a frame is not JSON (at byte 1); send one JSON object per line"},
		{"empty line", "\n", false, "a frame is empty or cut short; send one whole JSON object per line"},
		{"null", "null\n", false, "a frame must be exactly one of a hello with its calls, an answer, a cancel or a stop; this one has 0"},
		{"no kind", `{"cancel":false}` + "\n", false, "this one has 0"},
		{"two kinds", `{"cancel":true,"stop":true}` + "\n", false, "this one has 2"},
		{"calls without hello", `{"uses":[]}` + "\n", false, "a frame has calls but no hello; send them with the hello"},
		{"two values", `{"stop":true} {"stop":true}` + "\n", false, "a frame holds more than one JSON value; send one object per line"},
		{"answer out of range", `{"answer":7}` + "\n", false, "an answer frame holds 7, which is no answer; send 0 (deny) to 3 (always allow)"},
		{"negative answer", `{"answer":-1}` + "\n", false, "an answer frame holds -1, which is no answer"},
		{"answer first", `{"answer":1}` + "\n", false, "the first frame must be a hello with the turn's calls, or a stop"},
		{"cancel first", `{"cancel":true}` + "\n", false, "the first frame must be a hello with the turn's calls, or a stop"},
		{"bad second frame", good + "{\"answer\":\"yes\"}\n", true, "a frame's field answer is a JSON string, where the host reads a number; the turn is cancelled"},
		{"hello again", good + good, true, "after the hello a client sends only answers and a cancel; the turn is cancelled"},
		{"stop mid-turn", good + `{"stop":true}` + "\n", true, "after the hello a client sends only answers and a cancel; the turn is cancelled"},
		{"partial second frame", good + `{"cancel":tr`, false, "the connection ended in the middle of a frame; end each frame with a newline; the turn is cancelled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPipeHost(t, true)
			if strings.Contains(tc.want, "within 50ms") {
				p.srv.helloTimeout = 50 * time.Millisecond
			}
			frames := p.exchange(t, []byte(tc.data), !tc.open)
			var errs []string
			for _, f := range frames {
				if f.Error != "" {
					errs = append(errs, f.Error)
				}
			}
			if len(errs) != 1 || !strings.Contains(errs[0], tc.want) {
				t.Fatalf("want one error frame saying %q, got %+v", tc.want, frames)
			}
			if strings.HasPrefix(tc.data, good) {
				// The host closes the connection only after the turn it
				// took has ended, so both signals are in by now. A bad
				// frame read before the loop took the turn means the turn
				// never runs: nothing to cancel, and no results.
				select {
				case <-p.started:
					select {
					case <-p.cancelled:
					default:
						t.Fatal("a bad frame during a turn should cancel the turn")
					}
					if last := frames[len(frames)-1]; !last.Done {
						t.Fatalf("the cancelled turn should still end with its results: %+v", frames)
					}
				default:
					if len(frames) != 1 {
						t.Fatalf("a turn that never started gets the error and nothing else: %+v", frames)
					}
				}
			} else if len(frames) != 1 {
				t.Fatalf("a bad first frame gets its error and nothing else: %+v", frames)
			}
		})
	}
}

// Good frames pass: a stop is answered, a hello runs its turn, an answer
// and a cancel are read during it; a client that hangs up between frames
// gets no error.
func TestGoodFrames(t *testing.T) {
	p := newPipeHost(t, false)
	// The write side stays open: a client that hangs up cancels its turn,
	// perhaps before the host took it. The host closes once it answered.
	frames := p.exchange(t, []byte(helloLine(self("/ws"))), false)
	if len(frames) != 1 || !frames[0].Done {
		t.Fatalf("a hello runs its turn: %+v", frames)
	}
	if frames := p.exchange(t, nil, true); len(frames) != 0 {
		t.Fatalf("a client that says nothing and hangs up gets nothing: %+v", frames)
	}
	other := self("/ws")
	other.Build = "b2"
	if frames := p.exchange(t, []byte(helloLine(other)), true); len(frames) != 1 || !strings.Contains(frames[0].Refused, "another riot build") {
		t.Fatalf("another build is refused: %+v", frames)
	}
	held := newPipeHost(t, true)
	frames = held.exchangeStaged(t, []byte(helloLine(self("/ws"))), []byte(`{"answer":2}`+"\n"+`{"cancel":true}`+"\n"+`{"stop":true}`+"\n"), true)
	if len(frames) != 1 || !frames[0].Done {
		t.Fatalf("answers and a cancel are read, and nothing after the cancel: %+v", frames)
	}
	frames = newPipeHost(t, false).exchange(t, []byte(`{"stop":true}`+"\n"), true)
	if len(frames) != 1 || !frames[0].Stopped {
		t.Fatalf("a stop is answered: %+v", frames)
	}
	// A hello many times the read buffer is read whole, in pieces.
	long := newPipeHost(t, false)
	long.srv.maxFrame = 16 * frameBuffer
	big := use("a", "Read", map[string]string{"file_path": strings.Repeat("x", 10*frameBuffer)})
	if frames := long.exchange(t, []byte(helloLine(self("/ws"), big)), false); len(frames) != 1 || !frames[0].Done {
		t.Fatalf("a hello longer than the read buffer runs its turn: %+v", frames)
	}
	// A line of exactly the limit, newline aside, is a frame.
	full := `{"stop":true}` + strings.Repeat(" ", 1024-13) + "\n"
	frames = newPipeHost(t, false).exchange(t, []byte(full), true)
	if len(frames) != 1 || !frames[0].Stopped {
		t.Fatalf("a frame of the limit's length is read: %+v", frames)
	}
	if f, err := decodeFrame([]byte(`{"hello":{"build":"b","session":"S","workspace":"/w","inputs":"i","terminal":true,"known_only":true},"uses":[{"ID":"a","Name":"Read","Input":{"x":1}}]}`)); err != nil ||
		f.Hello.Build != "b" || !f.Hello.KnownOnly || len(f.Uses) != 1 || string(f.Uses[0].Input) != `{"x":1}` {
		t.Fatalf("a full hello decodes: %+v %v", f, err)
	}
	for _, line := range []string{`{"answer":0}`, `{"answer":3}`} {
		if _, err := decodeFrame([]byte(line)); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
	}
}

// The error frame reaches a real client before it has sent its turn's
// frame in full: the host that cannot read the request refuses it.
func TestClientReadsErrorAndDeadHosts(t *testing.T) {
	for _, tc := range []struct {
		name  string
		reply string
		check func(error) bool
	}{
		{"error frame", `{"error":"a frame is not JSON"}` + "\n", func(err error) bool {
			var r *RefusedError
			return errors.As(err, &r) && r.Reason == "the session host could not read this client's request: a frame is not JSON"
		}},
		{"garbage", "not a frame\n", func(err error) bool {
			return errors.Is(err, ErrHostDied) && strings.Contains(err.Error(), "it sent a line that is not a frame")
		}},
		{"hang up", "", func(err error) bool { return errors.Is(err, ErrHostDied) }},
		// The parts decoded once the frame is known to hold them are
		// checked all the same.
		{"bad prompt", `{"prompt":{"request":5}}` + "\n", func(err error) bool {
			return errors.Is(err, ErrHostDied) && strings.Contains(err.Error(), "it sent a line that is not a frame")
		}},
		{"bad progress", `{"progress":[1]}` + "\n", func(err error) bool {
			return errors.Is(err, ErrHostDied) && strings.Contains(err.Error(), "it sent a line that is not a frame")
		}},
		{"bad results", `{"done":true,"results":{"ToolUseID":"a"}}` + "\n", func(err error) bool {
			return errors.Is(err, ErrHostDied) && strings.Contains(err.Error(), "it sent a line that is not a frame")
		}},
		{"local", `{"local":true}` + "\n", func(err error) bool { return errors.Is(err, ErrNoHost) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			socket := fakeHost(t, tc.reply)
			_, err := Turn(context.Background(), socket, self("/ws"), nil, Handlers{})
			if !tc.check(err) {
				t.Fatalf("got %v", err)
			}
		})
	}
	// Results far larger than a client's frames may be are read whole.
	big := strings.Repeat("x", 20<<20)
	socket := fakeHost(t, `{"done":true,"results":[{"ToolUseID":"a","Status":"ok","Content":[{"Type":"text","Text":"`+big+`"}]}]}`+"\n")
	rs, err := Turn(context.Background(), socket, self("/ws"), nil, Handlers{})
	if err != nil || len(rs) != 1 || len(rs[0].Content) != 1 || len(rs[0].Content[0].Text) != len(big) {
		t.Fatalf("a large result: %v", err)
	}
	// During a turn an error frame is a warning; the results still come.
	socket = fakeHost(t, `{"progress":{"CallID":"a"}}`+"\n"+`{"error":"bad answer"}`+"\n"+`{"done":true,"results":[{"ToolUseID":"a","Status":"cancelled"}]}`+"\n")
	var warned []string
	rs, err = Turn(context.Background(), socket, self("/ws"), nil, Handlers{Warn: func(s string) { warned = append(warned, s) }})
	if err != nil || len(rs) != 1 || rs[0].Status != core.StatusCancelled || len(warned) != 1 || warned[0] != "the session host could not read this client's frame: bad answer" {
		t.Fatalf("got %+v %v, warned %q", rs, err, warned)
	}
}

// fakeHost listens on a private socket, reads one line from one client,
// sends reply and hangs up.
func fakeHost(t *testing.T, reply string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "hosts")
	if err := EnsureDir(dir); err != nil {
		t.Fatal(err)
	}
	socket := filepath.Join(dir, "h.sock")
	ln, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	if err := os.Chmod(socket, 0o600); err != nil {
		t.Fatal(err)
	}
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		_, _ = bufio.NewReader(c).ReadString('\n')
		_, _ = c.Write([]byte(reply))
	}()
	return socket
}

// FuzzFrames feeds a connection arbitrary bytes: the host never crashes or
// hangs, every line it sends is a frame, a first line it cannot read is
// answered with exactly the error its decoding gives, and a hello alone is
// answered.
func FuzzFrames(f *testing.F) {
	for _, seed := range []string{
		helloLine(self("/ws")), `{"stop":true}` + "\n", `{"stop":tr`, "{\"hello\":{\"build\":\"\xff\"}}\n",
		`{"launch":1}` + "\n", `{"hello":{"build":5}}` + "\n", `[1]` + "\n", "\n", `{"answer":9}` + "\n",
		helloLine(self("/ws")) + `{"answer":"x"}` + "\n", strings.Repeat("{", 1500) + "\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// A host of its own each time: a stop ends a pipe host's loop, and
		// the loop's signals of taken turns, which no one here reads, fill.
		h := newPipeHost(t, false)
		first, rest, hasNewline := bytes.Cut(data, []byte("\n"))
		// A client that ends its side hangs up, which cancels a turn not
		// yet taken, so the side stays open when the first frame is whole:
		// the host answers it and closes, or closes after its turn.
		frames := h.exchange(t, data, !hasNewline)
		var want string
		switch {
		case len(data) == 0:
			if len(frames) != 0 {
				t.Fatalf("nothing said, nothing answered: %+v", frames)
			}
			return
		case len(first) > h.srv.maxFrame:
			want = "a frame is longer than the host's limit"
		case !hasNewline:
			want = "the connection ended in the middle of a frame"
		default:
			fr, err := decodeFrame(first)
			switch {
			case err != nil:
				want = err.Error()
			case !fr.Stop && fr.Hello == nil:
				want = "the first frame must be a hello"
			}
		}
		if want == "" {
			// What follows a hello may cancel its turn before the host
			// takes it, which leaves nothing to answer.
			if len(frames) == 0 && len(rest) == 0 {
				t.Fatalf("a good first frame gets an answer: %q", data)
			}
			return
		}
		if len(frames) != 1 || !strings.HasPrefix(frames[0].Error, want) {
			t.Fatalf("%q: want one error frame %q, got %+v", data, want, frames)
		}
	})
}
