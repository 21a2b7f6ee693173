package sessionhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/riot-tools/riot/core"
	"github.com/riot-tools/riot/core/permission"
)

// Relay is what a host built for a server reports to: the prompts and the
// progress of the turn it is running, which go to that turn's client.
type Relay struct {
	mu  sync.Mutex
	cur *turn
}

// Server serves one session's host on its socket.
type Server struct {
	Paths Paths
	// Self is this host: its build, session, workspace and config inputs.
	// A client whose hello differs in any of them is refused.
	Self Hello
	// Idle is how long the server waits for a turn before it exits.
	Idle time.Duration
	// Build builds the host, reporting to relay, and returns the config
	// fingerprint it was built from.
	Build func(ctx context.Context, relay *Relay) (*core.Host, string, error)
	// Current is the fingerprint Build would return now: the config files
	// reread, the plugin binaries looked at again. A *RestartError says
	// the host cannot serve the changed config, and why: the host refuses
	// the turn and exits.
	Current func() (string, error)
	// Warning, if set, is a line for the client of each turn, from the
	// config the host runs it with.
	Warning func() string
	// Render, if set, renders a turn's results in the format a client's
	// hello names (Hello.Render). An error sends the results instead.
	Render func(format string, results []core.ToolResult) ([]byte, error)
	// Logf logs one line of the server's life.
	Logf func(format string, args ...any)
	// Ready, if set, is called once the socket accepts turns.
	Ready func()

	relay   Relay
	host    *core.Host
	cfg     string
	turns   chan *turn
	stops   chan *conn
	started time.Time
	// exit says the host cannot serve any further turn.
	exit bool

	// maxFrame and helloTimeout are the limits of a client's frames and
	// of the wait for its first; zero means the defaults.
	maxFrame     int
	helloTimeout time.Duration
	// checkPeer checks a client's process before anything it sends is
	// read; nil is kernelPeer. Tests of what follows a prompt set it.
	checkPeer func(net.Conn) (peer, error)
}

// helloTimeout bounds the wait for a client's first frame, so that one
// that connects and says nothing whole holds no goroutine for long.
const helloTimeout = 10 * time.Second

// RestartError is Current's error when the host must be restarted to
// serve the config as it is now; Reason is for the client.
type RestartError struct{ Reason string }

func (e *RestartError) Error() string { return e.Reason }

// turn is one client's turn, queued or running.
type turn struct {
	*conn
	hello Hello
	// terminal says the host may prompt this turn's client: the client
	// asked for prompts and its process is on a terminal (peer.terminal).
	terminal bool
	uses     []core.ToolUse
	ctx      context.Context
	cancel   context.CancelFunc
	answers  chan permission.Answer
	askMu    sync.Mutex
	done     chan struct{}
	// begun says a progress frame went to a client that asked for none.
	begun atomic.Bool
}

// conn is one client connection; its writes are serialised.
type conn struct {
	c   net.Conn
	mu  sync.Mutex
	enc *json.Encoder
}

func (c *conn) send(f hostFrame) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.enc.Encode(f)
}

// ErrRunning is Serve's error when a host already serves the session.
var ErrRunning = errors.New("a session host already serves this session and workspace")

// Serve listens and runs turns until ctx ends, a client asks it to stop,
// or no turn comes for Idle. It leaves no socket or description behind.
func (s *Server) Serve(ctx context.Context) error {
	if err := EnsureDir(filepath.Dir(s.Paths.Socket)); err != nil {
		return err
	}
	addr, done, err := shortAddr(s.Paths.Socket)
	if err != nil {
		return err
	}
	if c, err := net.Dial("unix", addr); err == nil {
		_ = c.Close()
		done()
		return ErrRunning
	}
	_ = os.Remove(s.Paths.Socket) // a crashed host's
	ln, err := net.Listen("unix", addr)
	done()
	if err != nil {
		return fmt.Errorf("listen on %s: %w", s.Paths.Socket, err)
	}
	defer func() {
		_ = ln.Close()
		_ = os.Remove(s.Paths.Socket)
		_ = os.Remove(s.Paths.Meta)
	}()
	if err := os.Chmod(s.Paths.Socket, 0o600); err != nil {
		return fmt.Errorf("chmod %s: %w", s.Paths.Socket, err)
	}
	s.started = time.Now()
	if s.host, s.cfg, err = s.Build(ctx, &s.relay); err != nil {
		return err
	}
	s.host.StartSession(ctx)
	defer func() {
		if s.host != nil {
			_ = s.host.Close()
		}
	}()
	meta := Meta{Pid: os.Getpid(), Session: s.Self.Session, Workspace: s.Self.Workspace, Build: s.Self.Build,
		Socket: s.Paths.Socket, Started: s.started.UTC().Format(time.RFC3339)}
	if err := writeMeta(s.Paths.Meta, meta); err != nil {
		return fmt.Errorf("write %s: %w", s.Paths.Meta, err)
	}
	s.turns = make(chan *turn)
	s.stops = make(chan *conn)
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	go s.accept(sctx, ln)
	if s.Ready != nil {
		s.Ready()
	}
	idle := time.NewTimer(s.Idle)
	defer idle.Stop()
	for {
		select {
		case t := <-s.turns:
			idle.Stop()
			s.run(t)
			close(t.done)
			if s.exit {
				return nil
			}
			idle.Reset(s.Idle)
		case c := <-s.stops:
			s.logf("stopping: asked by a client")
			_ = s.host.Close()
			s.host = nil
			_ = c.send(hostFrame{Stopped: true})
			return nil
		case <-idle.C:
			s.logf("exiting: no turn for %s", s.Idle)
			return nil
		case <-ctx.Done():
			s.logf("exiting: %v", context.Cause(ctx))
			return nil
		}
	}
}

func (s *Server) logf(format string, args ...any) {
	if s.Logf != nil {
		s.Logf(format, args...)
	}
}

func (s *Server) accept(ctx context.Context, ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go s.handle(ctx, c)
	}
}

// handle serves one connection: a stop, or a hello with its turn and then
// the client's answers and cancel. A frame the host cannot read is
// answered with an error frame saying why, and ends the connection.
func (s *Server) handle(ctx context.Context, nc net.Conn) {
	defer func() { _ = nc.Close() }()
	c := &conn{c: nc, enc: json.NewEncoder(nc)}
	limit, wait := s.maxFrame, s.helloTimeout
	if limit <= 0 {
		limit = maxFrame
	}
	if wait <= 0 {
		wait = helloTimeout
	}
	_ = nc.SetReadDeadline(time.Now().Add(wait))
	check := s.checkPeer
	if check == nil {
		check = kernelPeer
	}
	p, err := check(nc)
	if err != nil {
		s.refusePeer(c, err, limit)
		return
	}
	fr := newFrameReader(nc, limit)
	first, err := fr.next()
	if err != nil {
		if why := readError(err, wait); why != "" {
			_ = c.send(hostFrame{Error: why})
		}
		return
	}
	_ = nc.SetReadDeadline(time.Time{})
	if first.Stop {
		select {
		case s.stops <- c:
			<-ctx.Done() // the server answers, then ends
		case <-ctx.Done():
		}
		return
	}
	if first.Hello == nil {
		_ = c.send(hostFrame{Error: "the first frame must be a hello with the turn's calls, or a stop"})
		return
	}
	if why := s.mismatch(*first.Hello); why != "" {
		_ = c.send(hostFrame{Refused: why})
		return
	}
	tctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The hello's Terminal may only narrow what the host saw itself.
	t := &turn{conn: c, hello: *first.Hello, terminal: first.Hello.Terminal && p.terminal, uses: first.Uses, ctx: tctx, cancel: cancel,
		answers: make(chan permission.Answer, 1), done: make(chan struct{})}
	// A client that hangs up or says cancel cancels its turn, queued or
	// running.
	go func() {
		defer cancel()
		for {
			f, err := fr.next()
			if err != nil {
				if why := readError(err, 0); why != "" {
					_ = c.send(hostFrame{Error: why + "; the turn is cancelled"})
				}
				return
			}
			switch {
			case f.Cancel:
				return
			case f.Answer != nil:
				select {
				case t.answers <- *f.Answer:
				default:
				}
			default:
				_ = c.send(hostFrame{Error: "after the hello a client sends only answers and a cancel; the turn is cancelled"})
				return
			}
		}
	}()
	select {
	case s.turns <- t:
		<-t.done
	case <-tctx.Done():
	}
}

// refusePeer tells a client whose process the host does not serve why,
// and logs it. What the client sent is then read unseen until it hangs up
// (within the hello's limits), so that its hello's write does not fail
// before it reads the refusal.
func (s *Server) refusePeer(c *conn, err error, limit int) {
	why := err.Error()
	var pe *PeerError
	if !errors.As(err, &pe) {
		why = unknownPeer
	}
	s.logf("refused a client: %s", why)
	_ = c.send(hostFrame{Refused: why})
	_, _ = io.Copy(io.Discard, io.LimitReader(c.c, int64(limit)+1))
}

// readError is the error frame's text for a failed read, or "" when the
// client just hung up.
func readError(err error, wait time.Duration) string {
	var fe *FrameError
	var ne net.Error
	switch {
	case errors.As(err, &fe):
		return fe.Msg
	case errors.As(err, &ne) && ne.Timeout() && wait > 0:
		return fmt.Sprintf("no whole first frame came within %s; send the hello, ended by a newline, as soon as you connect", wait)
	}
	return ""
}

// mismatch says why a client's hello cannot be served here, or "".
// (Ifs, not a switch: mutation testing reaches the conditions of ifs.)
func (s *Server) mismatch(h Hello) string {
	if h.Build != s.Self.Build {
		return fmt.Sprintf("the session host runs another riot build (%s, this riot is %s); restart it with `riot serve --stop --session %s`", s.Self.Build, h.Build, s.Self.Session)
	}
	if h.Session != s.Self.Session || h.Workspace != s.Self.Workspace {
		return "the session host serves another session or workspace"
	}
	if h.Inputs != s.Self.Inputs {
		return fmt.Sprintf("the session host runs with other flags or environment than this invocation; restart it with yours: `riot serve --stop --session %s`", s.Self.Session)
	}
	return ""
}

// run runs one turn, reloading the host first when its config or plugin
// binaries changed since it was built.
func (s *Server) run(t *turn) {
	if t.ctx.Err() != nil {
		return // the client left while queued
	}
	if why := s.refresh(t.ctx); why != "" {
		_ = t.send(hostFrame{Refused: why})
		return
	}
	if t.hello.KnownOnly && !s.knowsAll(t.uses) {
		_ = t.send(hostFrame{Local: true})
		return
	}
	s.relay.mu.Lock()
	s.relay.cur = t
	s.relay.mu.Unlock()
	results := s.host.RunTurn(t.ctx, t.uses)
	s.relay.mu.Lock()
	s.relay.cur = nil
	s.relay.mu.Unlock()
	warning := ""
	if s.Warning != nil {
		warning = s.Warning()
	}
	frame := hostFrame{Results: results, Warning: warning, Done: true}
	if t.hello.Render != "" && s.Render != nil {
		if out, err := s.Render(t.hello.Render, results); err != nil {
			s.logf("sending the results unrendered: %v", err)
		} else {
			frame.Results, frame.Output = nil, string(out)
		}
	}
	if err := t.send(frame); err != nil {
		s.logf("a client left before its results: %v", err)
	}
	// The state the calls changed is written behind them (grants before
	// they run); what is left is written here, off the client's wait and
	// before the next turn is taken, so a client that runs its next turn
	// itself sees it. A flush before the results would cost the turn what
	// the calls' own writes cost (BENCHMARKS.md).
	if err := s.host.FlushSession(); err != nil {
		s.logf("cannot save the session's state: %v", err)
	}
}

// knowsAll reports whether every call names a tool of the host's plugins,
// listed or hidden by a deny rule.
func (s *Server) knowsAll(uses []core.ToolUse) bool {
	known := map[string]bool{}
	for _, p := range s.host.Plugins() {
		for _, name := range p.Tools {
			known[name] = true
		}
	}
	for _, u := range uses {
		if !known[u.Name] {
			return false
		}
	}
	return true
}

// refresh rebuilds the host when the config it was built from changed;
// it returns why the turn cannot run, or "".
func (s *Server) refresh(ctx context.Context) string {
	cur, err := s.Current()
	if err == nil && cur == s.cfg && s.host != nil {
		return ""
	}
	var restart *RestartError
	if errors.As(err, &restart) {
		s.logf("exiting: cannot serve the changed config: %s", restart.Reason)
		s.exit = true
		return restart.Reason
	}
	if err != nil {
		s.logf("cannot reread the config: %v", err)
		return "the session host cannot reread its config; fix the config, then restart the host with `riot serve --stop --session " + s.Self.Session + "`"
	}
	s.logf("reloading: the config or a plugin binary changed")
	if s.host != nil {
		_ = s.host.Close()
		s.host = nil
	}
	h, fp, err := s.Build(ctx, &s.relay)
	if err != nil {
		s.logf("reload failed: %v", err)
		return "the session host could not reload its changed config; restart it with `riot serve --stop --session " + s.Self.Session + "`"
	}
	s.host, s.cfg = h, fp
	return ""
}

// Prompt asks the client of the running turn, when a person is at it;
// otherwise it cannot ask, as without a terminal.
func (r *Relay) Prompt(ctx context.Context, req permission.Request, d permission.Decision) (permission.Answer, error) {
	return r.ask(ctx, promptFrame{Request: req, Decision: d})
}

// ask sends a prompt to the running turn's client and waits for its
// answer.
func (r *Relay) ask(ctx context.Context, f promptFrame) (permission.Answer, error) {
	r.mu.Lock()
	t := r.cur
	r.mu.Unlock()
	if t == nil || !t.terminal {
		return permission.AnswerDeny, permission.ErrCannotAsk
	}
	t.askMu.Lock() // one prompt at a time on the client's terminal
	defer t.askMu.Unlock()
	if err := t.send(hostFrame{Prompt: &f}); err != nil {
		return permission.AnswerDeny, permission.ErrCannotAsk
	}
	permission.Asking(ctx)
	select {
	case a := <-t.answers:
		return a, nil
	case <-ctx.Done():
		return permission.AnswerDeny, ctx.Err()
	}
}

// PromptNetwork asks the client of the running turn about a host its
// command connects to, when a person is at it; otherwise it cannot ask.
func (r *Relay) PromptNetwork(ctx context.Context, q permission.NetworkQuestion) (permission.Answer, error) {
	return r.ask(ctx, promptFrame{Network: &q})
}

// Progress forwards a call's progress to the running turn's client: all
// of it when the client asked for progress, else only the first, which
// tells it the turn has begun and must not be run again elsewhere.
func (r *Relay) Progress(p core.Progress) {
	r.mu.Lock()
	t := r.cur
	r.mu.Unlock()
	if t == nil {
		return
	}
	if t.hello.Progress || t.begun.CompareAndSwap(false, true) {
		_ = t.send(hostFrame{Progress: &p})
	}
}
