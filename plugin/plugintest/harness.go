package plugintest

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/riot-tools/riot/plugin"
	"github.com/riot-tools/riot/plugin/sandbox"
	"github.com/riot-tools/riot/shared"
)

// Option changes what Serve gives the tools.
type Option func(*plugin.Runtime)

// WithClock gives the tools c instead of the system clock.
func WithClock(c plugin.Clock) Option { return func(rt *plugin.Runtime) { rt.Clock = c } }

// WithProc gives the tools process access, such as RealProc(t).
func WithProc(p plugin.Proc) Option { return func(rt *plugin.Runtime) { rt.Proc = p } }

// WithNet gives the tools network access.
func WithNet(n plugin.Net) Option { return func(rt *plugin.Runtime) { rt.Net = n } }

// ReadOnly serves the tools as plugin.ServeReadOnly does, less Landlock,
// which would confine the test process: the manifest says the plugin
// starts no processes, and every start is refused with
// *plugin.NoProcessError, whatever WithProc gave.
func ReadOnly() Option { return func(rt *plugin.Runtime) { rt.StartsNoProcesses = true } }

// Client calls tools served by Serve. Set its session fields before a call
// as the host would.
type Client struct {
	t    testing.TB
	stub shared.ToolPlugin

	// Cwd is the workspace directory; it defaults to t.TempDir().
	Cwd string
	// Roots are the workspace roots; they default to [Cwd].
	Roots []string
	// ResultsDirs are the session's results directories; none by default.
	ResultsDirs []string
	// DenyRead are the Read(...) deny rules as absolute doublestar globs,
	// as the host sends them; none by default.
	DenyRead []string
	// AllowedReads are the read paths the host's chain allowed, resolved,
	// sent with each Call as the host sends them: a tool that checks what
	// it opened (Env.OpenRead) reads outside Roots only these. None by
	// default, as if every outside read had been refused.
	AllowedReads []string
	// AllowedWrites are the write paths the host's chain allowed,
	// resolved, sent with each Call as the host sends them. None by
	// default.
	AllowedWrites []string
	// State is the session state; Call applies each outcome's updates to it,
	// as the host does.
	State map[string]string
	// Shared is the other plugins' session state, by plugin name, which the
	// tools read with Env.StateOf. Call leaves it alone: a plugin updates
	// only its own state.
	Shared map[string]map[string]string
	// Mode is the permission mode, "default" unless set.
	Mode string
	// SessionID defaults to "plugintest".
	SessionID string
	// Timeout bounds each call; the default is one minute.
	Timeout time.Duration
	// Sandbox is the sandbox profile the host sends; nil sends none.
	Sandbox *sandbox.Profile
	// OnEvent, when set, sees each event of a Call as it arrives, while
	// the tool may still run: a test of streaming waits on it.
	OnEvent func(shared.CallEvent)

	calls int
}

// Serve serves handlers over real go-plugin gRPC inside the test process.
// By default the tools get the system clock and no process or network
// access. Everything stops when the test ends.
func Serve(t testing.TB, handlers []plugin.Handler, opts ...Option) *Client {
	t.Helper()
	rt := plugin.Runtime{
		Clock: plugin.SystemClock{},
		Proc:  NullProc{},
		Net:   NullNet{},
		Log:   hclog.New(&hclog.LoggerOptions{Name: "plugintest", Output: newTestWriter(t), Level: hclog.Debug}),
	}
	for _, o := range opts {
		o(&rt)
	}
	srv, err := plugin.NewServer(rt, handlers...)
	if err != nil {
		t.Fatalf("plugintest: %v", err)
	}
	stub := serveInProcess(t, srv)
	cwd := t.TempDir()
	return &Client{t: t, stub: stub, Cwd: cwd, State: map[string]string{}, SessionID: "plugintest"}
}

// For is c reporting to t: a fuzz target, which may not use the F that
// served the tools, calls through c.For(t). The copy shares the
// connection and the State and Shared maps.
func (c *Client) For(t testing.TB) *Client {
	cp := *c
	cp.t = t
	return &cp
}

// Manifest returns the tools served, in order.
func (c *Client) Manifest() []shared.ToolSpec {
	c.t.Helper()
	m, err := c.stub.Manifest(context.Background())
	if err != nil {
		c.t.Fatalf("plugintest: Manifest: %v", err)
	}
	return m.Tools
}

// Prepared is what Prepare reports about one call.
type Prepared struct {
	Rejected        string
	Describe        string
	ReadOnly        bool
	ConcurrencySafe bool
	ClassifierInput string
	Permission      plugin.Behavior
	Reason          string
	Subjects        []plugin.Subject
}

// Prepare prepares a call of tool with input, which is raw JSON as a
// string, []byte or json.RawMessage, or any value to marshal.
func (c *Client) Prepare(tool string, input any) Prepared {
	c.t.Helper()
	id := c.nextID()
	resp, err := c.stub.Prepare(context.Background(), shared.PrepareRequest{
		Tool: tool, CallID: id, Input: c.raw(input), Context: c.context(time.Time{}),
	})
	if err != nil {
		c.t.Fatalf("plugintest: Prepare: %v", err)
	}
	return prepared(resp)
}

// prepared reads an answer in the SDK's terms. A subject kind the SDK has
// no name for stays zero, and an access other than a read is a write, as
// the host reads them.
func prepared(resp shared.PrepareAnswer) Prepared {
	p := Prepared{
		Rejected:        resp.Rejected,
		Describe:        resp.Describe,
		ReadOnly:        resp.ReadOnly,
		ConcurrencySafe: resp.ConcurrencySafe,
		ClassifierInput: resp.ClassifierInput,
		Permission:      behaviorOf(resp.Permission),
		Reason:          resp.PermissionReason,
	}
	for _, s := range resp.Subjects {
		sub := plugin.Subject{Value: s.Value, Access: plugin.Write}
		switch s.Kind {
		case shared.SubjectCommand:
			sub.Kind = plugin.CommandSubject
		case shared.SubjectPath:
			sub.Kind = plugin.PathSubject
		default:
			// Left zero: a kind the SDK has no name for.
		}
		if s.Access == shared.AccessRead {
			sub.Access = plugin.Read
		}
		p.Subjects = append(p.Subjects, sub)
	}
	return p
}

func behaviorOf(p shared.Permission) plugin.Behavior {
	switch p {
	case shared.PermissionPassthrough:
		return plugin.Passthrough
	case shared.PermissionAllow:
		return plugin.Allow
	case shared.PermissionDeny:
		return plugin.Deny
	default:
		return plugin.Ask
	}
}

// Block is one block of a call's model content.
type Block struct {
	Image     bool
	MediaType string
	Data      []byte
}

// Result is a finished call as the host assembles it from the stream.
type Result struct {
	Ok bool
	// Text is the text content, every text block joined.
	Text string
	// Blocks are the content blocks in order.
	Blocks []Block
	// Message is the Failed message, or the Ok note.
	Message  string
	UI       json.RawMessage
	State    map[string]string
	Progress []string
	// Chunks is the number of content chunks the stream carried.
	Chunks int
}

// Call calls tool with input (see Prepare) and assembles its stream.
func (c *Client) Call(tool string, input any) Result {
	c.t.Helper()
	return c.CallContext(context.Background(), tool, input)
}

// CallContext is Call with a context, to test cancellation.
func (c *Client) CallContext(ctx context.Context, tool string, input any) Result {
	c.t.Helper()
	_, res := c.call(ctx, tool, input, false, nil)
	return res
}

// CallUnprepared calls tool as a host does when the manifest declares the
// tool's Prepare the default one (ToolSpec.DefaultPrepare): without a
// Prepare first. It returns the Prepare answer the stream began with, and
// the result; it fails the test if the stream did not begin so.
func (c *Client) CallUnprepared(tool string, input any) (Prepared, Result) {
	c.t.Helper()
	p, res := c.call(context.Background(), tool, input, true, nil)
	if p == nil {
		c.t.Fatalf("plugintest: the unprepared Call of %s did not begin with Prepare's answer", tool)
	}
	return *p, res
}

// CallExpecting calls tool as a host does that guesses its Prepare answer
// (ToolSpec.HonoursExpect): without a Prepare first, with expect, the
// answer guessed. It returns the answer the stream began with, and the
// result, which, when the answer accepts the input but is not expect but
// for its description, is a failed one with nothing in it: the tool did
// not run.
func (c *Client) CallExpecting(tool string, input any, expect *shared.PrepareAnswer) (Prepared, Result) {
	c.t.Helper()
	p, res := c.call(context.Background(), tool, input, true, expect)
	if p == nil {
		c.t.Fatalf("plugintest: the Call of %s with an expected answer did not begin with Prepare's answer", tool)
	}
	return *p, res
}

func (c *Client) call(ctx context.Context, tool string, input any, unprepared bool, expect *shared.PrepareAnswer) (*Prepared, Result) {
	c.t.Helper()
	var prep *Prepared
	events := 0
	timeout := c.Timeout
	if timeout == 0 {
		timeout = time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	deadline, _ := ctx.Deadline()
	var res Result
	cc := c.context(deadline)
	cc.AllowedReads = c.AllowedReads
	cc.AllowedWrites = c.AllowedWrites
	err := c.stub.Call(ctx, shared.CallRequest{
		Tool: tool, CallID: c.nextID(), Input: c.raw(input), Context: cc, Unprepared: unprepared, Expect: expect,
	}, func(ev shared.CallEvent) error {
		if c.OnEvent != nil {
			c.OnEvent(ev)
		}
		events++
		switch {
		case ev.Prepared != nil:
			if events != 1 || !unprepared {
				c.t.Errorf("plugintest: Prepare's answer as event %d of a Call (unprepared %v); only the first of an unprepared one may be", events, unprepared)
			}
			p := prepared(*ev.Prepared)
			prep = &p
		case ev.Progress != nil:
			res.Progress = append(res.Progress, ev.Progress.Message)
		case ev.Chunk != nil:
			res.Chunks++
			ch := ev.Chunk
			for int(ch.Block) >= len(res.Blocks) {
				res.Blocks = append(res.Blocks, Block{})
			}
			b := &res.Blocks[ch.Block]
			b.Image = ch.Kind == shared.BlockImage
			b.MediaType = ch.MediaType
			b.Data = append(b.Data, ch.Data...)
		case ev.Final != nil:
			res.Ok = ev.Final.Status == shared.StatusOK
			res.Message = ev.Final.Message
			res.UI = ev.Final.UIPayload
			res.State = ev.Final.StateUpdates
		}
		return nil
	})
	// A cancelled context ends the stream with gRPC's Canceled status,
	// which does not wrap context.Canceled.
	if err != nil && !errors.Is(err, context.Canceled) && status.Code(err) != codes.Canceled {
		c.t.Fatalf("plugintest: Call: %v", err)
	}
	var text strings.Builder
	for _, b := range res.Blocks {
		if !b.Image {
			text.Write(b.Data)
		}
	}
	res.Text = text.String()
	for k, v := range res.State {
		if v == "" {
			delete(c.State, k)
		} else {
			c.State[k] = v
		}
	}
	return prep, res
}

func (c *Client) nextID() string {
	c.calls++
	return "toolu_test_" + strconv.Itoa(c.calls)
}

func (c *Client) context(deadline time.Time) shared.CallContext {
	roots := c.Roots
	if roots == nil {
		roots = []string{c.Cwd}
	}
	mode := c.Mode
	if mode == "" {
		mode = "default"
	}
	return shared.CallContext{
		SessionID: c.SessionID, Cwd: c.Cwd, WorkspaceRoots: roots,
		PermissionMode: mode, State: c.State, SharedState: c.Shared, Sandbox: c.Sandbox,
		ResultsDirs: c.ResultsDirs, DenyRead: c.DenyRead, Deadline: deadline,
	}
}

func (c *Client) raw(input any) []byte {
	switch v := input.(type) {
	case string:
		return []byte(v)
	case []byte:
		return v
	case json.RawMessage:
		return v
	}
	b, err := json.Marshal(input)
	if err != nil {
		c.t.Fatalf("plugintest: input does not marshal: %v", err)
	}
	return b
}

// testWriter sends the tools' log to the test log.
// testWriter logs to the test while it runs; a line written after the
// test ended (a server goroutine stopping) is dropped, since t.Log would
// panic.
type testWriter struct {
	t    testing.TB
	mu   *sync.Mutex
	done *bool
}

func newTestWriter(t testing.TB) testWriter {
	w := testWriter{t: t, mu: new(sync.Mutex), done: new(bool)}
	t.Cleanup(func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		*w.done = true
	})
	return w
}

func (w testWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !*w.done {
		w.t.Log(strings.TrimRight(string(p), "\n"))
	}
	return len(p), nil
}
