// Package mcpsource owns MCP servers as tool sources: it speaks MCP to one
// server (a stdio process or a Streamable HTTP endpoint) and serves its
// tools through riot's tool contract (shared.ToolPlugin), so that the core
// applies its order, validation, permission chain, hooks and budgets to
// them as to any plugin. It supervises the server as the core supervises
// plugins: lazy start, a crash or hang is a Failed result naming the server
// and what happened, the next call restarts it, and three crashes within a
// minute disable it for the session.
package mcpsource

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/internal/jsonschema"
	"github.com/riot-tools/riot/shared"
)

// Options configures a Source.
type Options struct {
	Server config.MCPServer
	// Roots are the workspace roots, answered to roots/list.
	Roots []string
	// Cache keeps tool lists between runs; nil caches nothing.
	Cache *Cache
	// StartupTimeout bounds start and initialize unless the server sets
	// its own.
	StartupTimeout time.Duration
	// ToolTimeout bounds one call unless the server sets its own.
	ToolTimeout time.Duration
	Now         func() time.Time
	Log         hclog.Logger
	// Elicitor answers the server's elicitation/create; nil declines.
	Elicitor Elicitor
	// MaxMessageBytes bounds one message from the server (a stdio line,
	// an HTTP response body, a server-sent event); 0 is
	// DefaultMaxMessageBytes. A server that sends more is stopped.
	MaxMessageBytes int
	// OnToolsChanged, if set, is told when the server has added tools
	// after its Manifest; Tools then lists them at the end.
	OnToolsChanged func()
}

// Elicitor asks the user what a server's elicitation/create requests. It
// returns the MCP action (accept, decline or cancel) and, for accept, the
// content.
type Elicitor interface {
	Elicit(ctx context.Context, from, message string, schema json.RawMessage) (string, map[string]any, error)
}

// Prefix is the start of every MCP tool's name.
const Prefix = "mcp__"

// ToolName is riot's name of a server's tool.
func ToolName(server, tool string) string { return Prefix + server + "__" + tool }

// crashWindow and maxCrashes: three crashes within a minute disable a
// server for the session, as for plugins.
const (
	crashWindow = time.Minute
	maxCrashes  = 3
)

// Source is one MCP server. It is safe for concurrent use.
type Source struct {
	opts Options
	name string

	mu       sync.Mutex
	conn     *conn
	starting chan struct{}
	startErr error
	crashes  []time.Time
	disabled string
	closed   bool
	// tools are the served tools by riot name; order is fixed by Manifest.
	tools map[string]*mcp.Tool
	order []string
	// specs are the served tools' specs in order, made once when each is
	// added: a listing encodes no schema again.
	specs []shared.ToolSpec
	// cached is set when the Manifest came from the cache: the server's
	// next start lists its tools again to refresh it (refresh).
	cached bool
	// relists are the tool lists under way after list_changed; a call
	// waits for them, so that what a call added is there after it.
	relists []chan struct{}
	// calls are the calls in flight, for the elicitations they cause.
	calls []*callState
	// refused are the tools left out for names the model APIs reject, by
	// the server's name, with why.
	refused      map[string]string
	refusedOrder []string
	// after starts the idle timers; time.AfterFunc but in tests.
	after afterFunc
	// taskOnly are the server's tools, by its names, whose last listing
	// requires the tasks extension (scanTools).
	taskOnly map[string]bool
	// outputs are the served tools' output schemas by riot name, as
	// listed and compiled.
	outputs map[string]output
}

// output is a tool's declared output schema.
type output struct {
	raw    json.RawMessage
	schema *jsonschema.Schema
}

// conn is one generation of the server.
type conn struct {
	sess *mcp.ClientSession
	cmd  *exec.Cmd
	// exited is closed when the process has exited, how says how.
	exited chan struct{}
	how    string
	// bad is set when the server wrote a line that is not JSON-RPC.
	bad      chan struct{}
	badOnce  sync.Once
	badLine  string
	stderr   *tail
	killOnce sync.Once
	// over is set when the server sent a message over the size bound.
	over *oversize
	// refused is the HTTP error status a remote server answered.
	refused *refusal
}

// New returns a Source that starts nothing until it is needed.
func New(opts Options) *Source {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Log == nil {
		opts.Log = hclog.NewNullLogger()
	}
	if opts.Server.StartupTimeout > 0 {
		opts.StartupTimeout = opts.Server.StartupTimeout
	}
	if opts.StartupTimeout <= 0 {
		opts.StartupTimeout = 30 * time.Second
	}
	if opts.Server.ToolTimeout > 0 {
		opts.ToolTimeout = opts.Server.ToolTimeout
	}
	if opts.ToolTimeout <= 0 {
		opts.ToolTimeout = 10 * time.Minute
	}
	if opts.MaxMessageBytes <= 0 {
		opts.MaxMessageBytes = DefaultMaxMessageBytes
	}
	return &Source{opts: opts, name: opts.Server.Name, tools: map[string]*mcp.Tool{}, after: realAfterFunc}
}

// Name is the server's name.
func (s *Source) Name() string { return s.opts.Server.Name }

// CallTimeout is the longest a call may take, for the host's own deadline,
// which must not fire before the server's.
func (s *Source) CallTimeout() time.Duration {
	return s.opts.ToolTimeout + s.opts.StartupTimeout + 5*time.Second
}

// Manifest lists the server's served tools: from the cache while the
// server's config has not changed, by starting it otherwise.
func (s *Source) Manifest(ctx context.Context) (shared.Manifest, error) {
	// Not even from the cache: tools that can never start are no tools.
	if err := s.nested(); err != nil {
		return shared.Manifest{}, err
	}
	var tools []*mcp.Tool
	if s.opts.Cache != nil {
		tools = s.opts.Cache.get(s.opts.Server)
	}
	s.mu.Lock()
	s.cached = tools != nil
	s.mu.Unlock()
	if tools == nil {
		c, err := s.connect(ctx)
		if err != nil {
			return shared.Manifest{}, err
		}
		if tools, err = s.list(ctx, c); err != nil {
			return shared.Manifest{}, err
		}
		if s.opts.Cache != nil {
			s.opts.Cache.put(s.opts.Server, tools)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var m shared.Manifest
	for _, t := range tools {
		if s.addLocked(t) {
			m.Tools = append(m.Tools, s.specs[len(s.specs)-1])
		}
	}
	return m, nil
}

// addLocked registers a tool not yet known, and reports whether it did.
func (s *Source) addLocked(t *mcp.Tool) bool {
	if t == nil || !s.opts.Server.Serves(t.Name) {
		return false
	}
	why := badToolName(s.name, t.Name)
	if why == "" && taskOnly(t) {
		why = fmt.Sprintf("The %s MCP server's tool %s is left out: it runs only as a task (execution.taskSupport \"required\"), and riot does not speak MCP's tasks extension, so no call of it could succeed.", s.name, t.Name)
	}
	if why != "" {
		if _, seen := s.refused[t.Name]; !seen {
			if s.refused == nil {
				s.refused = map[string]string{}
			}
			s.refused[t.Name] = why
			s.refusedOrder = append(s.refusedOrder, t.Name)
			s.opts.Log.Warn(why)
		}
		return false
	}
	name := ToolName(s.name, t.Name)
	if _, dup := s.tools[name]; dup {
		return false
	}
	s.tools[name] = t
	s.order = append(s.order, name)
	if raw, sch := outputSchema(t); sch != nil {
		if s.outputs == nil {
			s.outputs = map[string]output{}
		}
		s.outputs[name] = output{raw: raw, schema: sch}
	}
	s.specs = append(s.specs, s.spec(t))
	return true
}

func (s *Source) spec(t *mcp.Tool) shared.ToolSpec {
	// A schema from the cache is already the JSON encoding gives.
	schema, ok := t.InputSchema.(json.RawMessage)
	if !ok {
		var err error
		if schema, err = json.Marshal(t.InputSchema); err != nil || t.InputSchema == nil {
			schema = []byte(`{"type":"object"}`)
		}
	}
	ro := slices.Contains(s.opts.Server.ReadOnlyTools, t.Name)
	prompt := t.Description
	if prompt == "" {
		prompt = fmt.Sprintf("The %s tool of the %s MCP server.", t.Name, s.name)
	}
	// A server's annotations are untrusted: only the user's read_only_tools
	// make a tool read-only, in the permission chain and in what riot shows.
	ann := &shared.Annotations{Title: t.Title, ReadOnly: ro}
	if t.Annotations != nil && ann.Title == "" {
		ann.Title = t.Annotations.Title
	}
	name := ToolName(s.name, t.Name)
	return shared.ToolSpec{Name: name, Prompt: prompt, InputSchema: schema, ReadOnlyWithoutSubjects: ro, Annotations: ann, OutputSchema: s.outputs[name].raw}
}

// Prepare produces the prepared view the core judges: an MCP server has no
// Prepare, so riot says what it knows. The call has no subjects, so rules
// name the tool (mcp__NAME__TOOL) or the server (mcp__NAME); it is
// read-only only if the user's read_only_tools lists it.
func (s *Source) Prepare(_ context.Context, req shared.PrepareRequest) (shared.PrepareAnswer, error) {
	s.mu.Lock()
	t := s.tools[req.Tool]
	s.mu.Unlock()
	if t == nil {
		return shared.PrepareAnswer{Rejected: fmt.Sprintf("The %s MCP server does not serve %s. Call one of the tools listed instead.", s.name, req.Tool)}, nil
	}
	ro := slices.Contains(s.opts.Server.ReadOnlyTools, t.Name)
	return shared.PrepareAnswer{
		Describe:   fmt.Sprintf("%s (MCP server %s)", t.Name, s.name),
		ReadOnly:   ro,
		Permission: shared.PermissionPassthrough,
	}, nil
}

// Prestart starts the server without waiting, so that the servers a turn
// needs start in parallel.
func (s *Source) Prestart() {
	go func() { _, _ = s.connect(context.Background()) }()
}

// Tools are the served tools' specs in order, including any added by
// notifications/tools/list_changed after the Manifest.
func (s *Source) Tools() []shared.ToolSpec {
	return s.ToolsFrom(0)
}

// ToolsFrom is Tools from the n-th on: what was added since a caller that
// has seen n of them last looked.
func (s *Source) ToolsFrom(n int) []shared.ToolSpec {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n >= len(s.specs) {
		return nil
	}
	return slices.Clone(s.specs[n:])
}

// State is the server's state for `riot plugins`.
func (s *Source) State() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.disabled != "":
		return "disabled"
	case s.conn != nil:
		return "running"
	case s.startErr != nil:
		return "failed to start"
	default:
		return "not started"
	}
}

// Problem is why the server is not usable, if it is not, and which of its
// tools are left out and why.
func (s *Source) Problem() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	switch {
	case s.disabled != "":
		out = append(out, s.disabled)
	case s.startErr != nil:
		out = append(out, s.startErr.Error())
	}
	for _, t := range s.refusedOrder {
		out = append(out, s.refused[t])
	}
	return strings.Join(out, " ")
}

// disable disables the server for the session with a problem that no
// restart fixes, and returns it as the error.
func (s *Source) disable(msg string) error {
	s.mu.Lock()
	s.disabled = msg
	s.mu.Unlock()
	s.opts.Log.Warn(msg)
	return &Error{Msg: msg}
}

// nested disables a stdio server of a riot that runs within an MCP server
// of a riot: such a riot starts no server process, so that riot never
// starts itself again, however a server reaches it.
func (s *Source) nested() error {
	if s.opts.Server.URL != "" {
		return nil
	}
	if by, ok := StartedByRiot(os.Getenv); ok {
		return s.disable(nestedProblem(s.opts.Server, by))
	}
	return nil
}

// Close stops the server; calls after it fail.
func (s *Source) Close() error {
	s.mu.Lock()
	s.closed = true
	c := s.conn
	s.conn = nil
	s.mu.Unlock()
	if c != nil {
		c.stop()
	}
	return nil
}

// stop ends the generation: the session, then the process group.
func (c *conn) stop() {
	c.killOnce.Do(func() {
		if c.cmd != nil {
			killGroup(c.cmd)
			<-c.exited
		}
		_ = c.sess.Close()
	})
}

// Error is a failure for the model and the user alike.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

func (s *Source) connect(ctx context.Context) (*conn, error) {
	for {
		s.mu.Lock()
		switch {
		case s.closed:
			s.mu.Unlock()
			return nil, &Error{Msg: fmt.Sprintf("riot is shutting down, so the %s MCP server is not started. Do not retry in this session.", s.name)}
		case s.disabled != "":
			msg := s.disabled
			s.mu.Unlock()
			return nil, &Error{Msg: msg}
		case s.conn != nil:
			c := s.conn
			s.mu.Unlock()
			return c, nil
		case s.starting == nil:
			ch := make(chan struct{})
			s.starting = ch
			go func() {
				c, err := s.start()
				s.mu.Lock()
				s.starting, s.startErr = nil, err
				if err == nil {
					if s.closed {
						s.mu.Unlock()
						c.stop()
						close(ch)
						return
					}
					s.conn = c
				}
				// Tools listed from the cache are brought up to date
				// by the first start, before the call that caused it
				// returns (awaitRelists).
				refresh := err == nil && s.cached
				if refresh {
					s.cached = false
				}
				s.mu.Unlock()
				if refresh {
					s.relist()
				}
				close(ch)
			}()
		}
		ch := s.starting
		s.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		s.mu.Lock()
		err := s.startErr
		s.mu.Unlock()
		if err != nil {
			return nil, err
		}
	}
}

// start starts one generation. It is bounded by the startup timeout and
// not by one caller's context, since calls share it.
func (s *Source) start() (*conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), s.opts.StartupTimeout)
	defer cancel()
	srv := s.opts.Server
	c := &conn{exited: make(chan struct{}), bad: make(chan struct{}), stderr: &tail{}, over: &oversize{done: make(chan struct{})}, refused: &refusal{}}
	limit := s.opts.MaxMessageBytes
	// The SDK's own bounds stay as a backstop, set past riot's so that
	// riot's fires first and knows the cause.
	sdkLimit := 2*limit + 64<<10
	var transport mcp.Transport
	if srv.URL != "" {
		hc := &http.Client{Transport: &boundedTransport{next: headerTransport(srv.Headers), limit: limit, over: c.over, refused: c.refused, scan: s.scanTools}}
		transport = &mcp.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: hc, DisableStandaloneSSE: false, MaxEventSize: sdkLimit}
	} else {
		if err := s.nested(); err != nil {
			return nil, err
		}
		cmd := exec.Command(srv.Command, srv.Args...)
		cmd.Dir = srv.Cwd
		cmd.Env = os.Environ()
		for k, v := range srv.Env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		// Last, so that no configured env unsets it: a riot this server
		// is, or starts, refuses to serve or start servers in turn.
		cmd.Env = append(cmd.Env, selfEnv())
		cmd.Stderr = c.stderr
		isolate(cmd)
		stdin, err := cmd.StdinPipe()
		if err != nil {
			return nil, fmt.Errorf("stdin pipe: %w", err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			return nil, fmt.Errorf("stdout pipe: %w", err)
		}
		if err := cmd.Start(); err != nil {
			s.crash()
			return nil, &Error{Msg: fmt.Sprintf("The %s MCP server could not be started: %s. Tell the user to fix [mcp_servers.%s] command in the riot config.", s.name, startReason(err), s.name)}
		}
		c.cmd = cmd
		c.over.stop = func() { killGroup(cmd) }
		go func() {
			err := cmd.Wait()
			c.how = exitText(err)
			close(c.exited)
		}()
		transport = &mcp.IOTransport{Reader: c.checked(stdout, limit, s.scanTools), Writer: stdin, MaxLineLength: sdkLimit}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "riot", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { s.relist() },
		ElicitationHandler:     s.elicit,
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			s.progressed(req.Params)
		},
	})
	for _, r := range s.opts.Roots {
		//nolint:staticcheck // roots/list is still what servers ask; the issue requires answering it.
		client.AddRoots(&mcp.Root{URI: "file://" + r, Name: r})
	}
	sess, err := client.Connect(ctx, transport, nil)
	if err != nil {
		c.sess = nil
		if c.cmd != nil {
			killGroup(c.cmd)
			<-c.exited
		}
		if isSelf(err, c) {
			return nil, s.disable(selfProblem(srv))
		}
		s.crash()
		return nil, &Error{Msg: s.startFailure(ctx, c)}
	}
	c.sess = sess
	s.opts.Log.Debug("MCP server started", "server", s.name)
	return c, nil
}

func (s *Source) startFailure(ctx context.Context, c *conn) string {
	fix := fmt.Sprintf("Tell the user the %s MCP server needs fixing (see [mcp_servers.%s]); do not retry now.", s.name, s.name)
	switch {
	case c.over.seen() != "":
		return fmt.Sprintf("The %s MCP server sent %s while starting, so %s. %s", s.name, c.over.seen(), c.over.stopped(), fix)
	case c.badLine != "":
		return fmt.Sprintf("The %s MCP server wrote output that is not MCP while starting (%q), so it was stopped. %s", s.name, c.badLine, fix)
	case ctx.Err() != nil:
		return fmt.Sprintf("The %s MCP server did not finish starting within %s and was stopped. %s", s.name, seconds(s.opts.StartupTimeout), fix)
	case c.cmd != nil:
		return fmt.Sprintf("The %s MCP server exited while starting (%s)%s. %s", s.name, c.how, c.stderr.said(), fix)
	case c.refused.text() != "":
		status := c.refused.text()
		if code := c.refused.code(); code == http.StatusUnauthorized || code == http.StatusForbidden {
			return fmt.Sprintf("The %s MCP server at %s refused riot (%s) while starting: it needs credentials riot did not send or it did not accept, such as an Authorization header in [mcp_servers.%s] headers. %s", s.name, s.opts.Server.URL, status, s.name, fix)
		}
		return fmt.Sprintf("The %s MCP server at %s answered %s while starting. %s", s.name, s.opts.Server.URL, status, fix)
	default:
		return fmt.Sprintf("The %s MCP server at %s could not be reached or did not answer MCP's initialize. %s", s.name, s.opts.Server.URL, fix)
	}
}

// crash counts a crash; the third within a minute disables the server.
func (s *Source) crash() {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.opts.Now()
	s.crashes = append(s.crashes, now)
	s.crashes = slices.DeleteFunc(s.crashes, func(t time.Time) bool { return now.Sub(t) > crashWindow })
	if len(s.crashes) >= maxCrashes && s.disabled == "" {
		s.disabled = fmt.Sprintf("The %s MCP server failed %d times within a minute and is disabled for this session. Do not call its tools again; tell the user it needs fixing.", s.name, len(s.crashes))
	}
}

// lost retires a generation that failed; the next call starts another.
func (s *Source) lost(c *conn) {
	s.mu.Lock()
	if s.conn == c {
		s.conn = nil
	}
	s.mu.Unlock()
	c.stop()
}

func (s *Source) list(ctx context.Context, c *conn) ([]*mcp.Tool, error) {
	lctx, cancel := context.WithTimeout(ctx, s.opts.StartupTimeout)
	defer cancel()
	var tools []*mcp.Tool
	for t, err := range c.sess.Tools(lctx, nil) {
		if err != nil {
			s.lost(c)
			s.crash()
			return nil, &Error{Msg: fmt.Sprintf("The %s MCP server did not list its tools%s. Tell the user it needs fixing (see [mcp_servers.%s]).", s.name, c.reason(lctx), s.name)}
		}
		tools = append(tools, t)
	}
	s.markTaskOnly(tools)
	return tools, nil
}

// relist re-lists the tools in the background: the notification handler
// must not wait on a request of the same connection.
func (s *Source) relist() {
	done := make(chan struct{})
	s.mu.Lock()
	s.relists = append(s.relists, done)
	s.mu.Unlock()
	go func() {
		defer close(done)
		s.toolsChanged(context.Background())
	}()
}

// awaitRelists waits for the re-lists started so far.
func (s *Source) awaitRelists(ctx context.Context) {
	s.mu.Lock()
	pending := s.relists
	s.relists = nil
	s.mu.Unlock()
	for _, ch := range pending {
		select {
		case <-ch:
		case <-ctx.Done():
			return
		}
	}
}

// toolsChanged appends the tools a server added; tools are never
// reordered or removed, since tools[] is fixed for the session.
func (s *Source) toolsChanged(ctx context.Context) {
	s.mu.Lock()
	c := s.conn
	s.mu.Unlock()
	if c == nil {
		return
	}
	tools, err := s.list(ctx, c)
	if err != nil {
		s.opts.Log.Warn("MCP server's new tool list is unreadable", "server", s.name, "error", err)
		return
	}
	added := false
	s.mu.Lock()
	for _, t := range tools {
		if s.addLocked(t) {
			added = true
		}
	}
	s.mu.Unlock()
	if s.opts.Cache != nil {
		s.opts.Cache.put(s.opts.Server, tools)
	}
	if added && s.opts.OnToolsChanged != nil {
		s.opts.OnToolsChanged()
	}
}

// reason says what became of a generation whose request failed.
func (c *conn) reason(ctx context.Context) string {
	if what := c.over.seen(); what != "" {
		return fmt.Sprintf(": it sent %s, so %s", what, c.over.stopped())
	}
	select {
	case <-c.bad:
		return fmt.Sprintf(": it wrote output that is not MCP (%q)", c.badLine)
	default:
	}
	if c.cmd != nil {
		select {
		case <-c.exited:
			return fmt.Sprintf(": it exited (%s)%s", c.how, c.stderr.said())
		case <-time.After(200 * time.Millisecond):
			// The connection broke first; the exit follows shortly.
			select {
			case <-c.exited:
				return fmt.Sprintf(": it exited (%s)%s", c.how, c.stderr.said())
			default:
			}
		}
	}
	if ctx.Err() != nil {
		return " in time"
	}
	return ": the connection to it broke"
}

// lineBreak is the size of the line break that ends line+frag: 2 for
// \r\n, 1 for \n, 0 for none.
func lineBreak(line, frag []byte) int {
	if !bytes.HasSuffix(frag, []byte("\n")) {
		return 0
	}
	if len(frag) >= 2 && frag[len(frag)-2] == '\r' || len(frag) == 1 && bytes.HasSuffix(line, []byte("\r")) {
		return 2
	}
	return 1
}

// checked passes the server's stdout on, noting the first line that is
// not a JSON object: a server that prints logs on stdout breaks MCP. It
// holds at most limit bytes of a line: a longer one stops the server, so
// that no server can make riot hold what it sends without end.
func (c *conn) checked(r io.ReadCloser, limit int, scan func([]byte)) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		br := bufio.NewReaderSize(r, 64<<10)
		var line []byte
		for {
			frag, err := br.ReadSlice('\n')
			partial := errors.Is(err, bufio.ErrBufferFull)
			// A line's size is without its line break; a partial line
			// may end in the \r of one.
			if n := len(line) + len(frag); partial && n > limit+1 || !partial && n-lineBreak(line, frag) > limit {
				c.over.exceeded(fmt.Sprintf("a message of more than %s (a single line without a newline)", sizeText(limit)))
				pw.CloseWithError(errTooBig)
				return
			}
			if len(line)+len(frag) > cap(line) {
				// Doubling, not append's gentler growth for large
				// slices: a line near the bound allocates about twice
				// the bound in all, not five times.
				grown := make([]byte, len(line), min(max(2*cap(line), len(line)+len(frag), 64<<10), limit+2))
				copy(grown, line)
				line = grown
			}
			line = append(line, frag...)
			if partial {
				continue
			}
			if t := bytes.TrimSpace(line); len(t) > 0 && (t[0] != '{' || !json.Valid(t)) {
				c.badOnce.Do(func() {
					c.badLine = string(t[:min(len(t), 80)])
					close(c.bad)
				})
				pw.CloseWithError(errors.New("output that is not JSON-RPC"))
				return
			}
			if len(line) > 0 {
				scan(line)
				// The pipe returns once the SDK has read it all, so the
				// buffer is free again.
				if _, werr := pw.Write(line); werr != nil {
					return
				}
			}
			if err != nil {
				pw.CloseWithError(err)
				return
			}
			line = line[:0]
			if cap(line) > 1<<20 {
				// Hold no large line's buffer for the session.
				line = nil
			}
		}
	}()
	return pr
}
