// Package remote runs turns in a riot session served elsewhere: `riot mcp
// --listen` in a pod, say, reached over MCP's Streamable HTTP with a bearer
// token. Its Client is a core.Runner, as the local core.Host is, so that a
// harness switches between them by configuration.
//
// riot mcp runs each tools/call as a turn of one call, so the Client runs
// the turn itself as the host would: runs of calls the session lists as
// concurrency-safe together, every other call alone and in order, and a
// failed call of a cascading tool cancels the calls after it. A session
// that stops answering never hangs a turn: every call it leaves unfinished
// is Failed, naming the cause.
package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/riot-tools/riot/core"
	"github.com/riot-tools/riot/core/mcpsource"
)

// DefaultTimeout is how long a call may go without word from the session
// (a byte of its response: riot mcp's progress heartbeat, every
// [mcp] progress_interval, or its result) before it fails.
const DefaultTimeout = 60 * time.Second

// defaultMaxParallel is the host's limits.max_parallel default.
const defaultMaxParallel = 10

// The _meta keys riot mcp lists and answers with.
const (
	metaStatus          = "riot/status"
	metaDescribe        = "riot/describe"
	metaUI              = "riot/ui"
	metaConcurrencySafe = "riot/concurrencySafe"
	metaCascades        = "riot/cascades"
	metaStopsTurn       = "riot/stopsTurn"
)

// ErrUnauthorized is what Dial returns, wrapped, when the session refuses
// the token.
var ErrUnauthorized = errors.New("the session refused the token")

// Options configure a Client.
type Options struct {
	// Token is the session's bearer token; required.
	Token string
	// Elicitor answers the session's permission questions, as a terminal
	// prompter does (permission.TTYPrompter). Without one the client takes
	// no questions, and the session denies what it would ask, as a local
	// run without a terminal does.
	Elicitor mcpsource.Elicitor
	// Timeout is how long a call may go without word from the session;
	// zero is DefaultTimeout.
	Timeout time.Duration
	// MaxParallel bounds a run of concurrency-safe calls run together;
	// zero is the host's default, 10.
	MaxParallel int
	// TurnBudgetChars bounds what a turn's results hold together, as
	// limits.turn_budget_chars does a local turn's; zero is its default.
	TurnBudgetChars int
	// OnProgress, if set, is told of each call's start, progress and end.
	OnProgress func(core.Progress)
	// HTTPClient, if set, carries the requests; its Transport is wrapped
	// with the token and the liveness watch.
	HTTPClient *http.Client
	// Version is the client's version in the MCP handshake.
	Version string
}

// Client is a remote session. It is safe for concurrent use: turns run at
// once do not share calls.
type Client struct {
	url  string
	opts Options
	mcp  *mcp.Client
	http *http.Client

	mu      sync.Mutex
	session *mcp.ClientSession
	tools   []core.ToolInfo
	props   map[string]toolProps
	// refused is set when the session answered 401.
	refused atomic.Bool
	closed  bool
}

var _ core.Runner = (*Client)(nil)

// toolProps are what the session lists of a tool for scheduling.
type toolProps struct {
	concurrencySafe bool
}

// Dial connects to the session at endpoint and lists its tools.
func Dial(ctx context.Context, endpoint string, opts Options) (*Client, error) {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("remote session URL %q is not an http(s) URL such as http://127.0.0.1:8765/", endpoint)
	}
	if opts.Token == "" {
		return nil, errors.New("a remote session needs its bearer token")
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.MaxParallel <= 0 {
		opts.MaxParallel = defaultMaxParallel
	}
	c := &Client{url: endpoint, opts: opts}
	base := http.DefaultTransport
	hc := &http.Client{}
	if opts.HTTPClient != nil {
		*hc = *opts.HTTPClient
		if hc.Transport != nil {
			base = hc.Transport
		}
	} else {
		base = &http.Transport{
			Proxy:               http.ProxyFromEnvironment,
			DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 15 * time.Second}).DialContext,
			TLSHandshakeTimeout: 10 * time.Second,
			MaxIdleConnsPerHost: 2 * opts.MaxParallel,
			ForceAttemptHTTP2:   true,
		}
	}
	hc.Transport = &transport{base: base, token: opts.Token, refused: &c.refused}
	c.http = hc
	copts := &mcp.ClientOptions{
		ToolListChangedHandler: func(ctx context.Context, _ *mcp.ToolListChangedRequest) {
			go c.refreshTools(context.WithoutCancel(ctx))
		},
		ProgressNotificationHandler: c.progress,
	}
	if opts.Elicitor != nil {
		copts.ElicitationHandler = c.elicit
	}
	version := opts.Version
	if version == "" {
		version = "dev"
	}
	c.mcp = mcp.NewClient(&mcp.Implementation{Name: "riot-remote", Version: version}, copts)
	if err := c.connect(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// connect opens an MCP session and lists the tools.
func (c *Client) connect(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	s, err := c.mcp.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: c.url, HTTPClient: c.http, MaxRetries: -1}, nil)
	if err != nil {
		return c.dialError(err)
	}
	tools, props, err := listTools(ctx, s)
	if err != nil {
		_ = s.Close()
		return c.dialError(err)
	}
	c.mu.Lock()
	c.session, c.tools, c.props = s, tools, props
	c.mu.Unlock()
	return nil
}

func (c *Client) dialError(err error) error {
	if c.refused.Load() {
		return fmt.Errorf("the remote session at %s refused the token (HTTP 401): give the token it serves under: %w", c.url, ErrUnauthorized)
	}
	return fmt.Errorf("cannot reach the remote session at %s: %w", c.url, err)
}

// refreshTools lists the tools again after the session said they changed;
// riot appends tools, never reordering the rest.
func (c *Client) refreshTools(ctx context.Context) {
	c.mu.Lock()
	s := c.session
	c.mu.Unlock()
	if s == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
	defer cancel()
	tools, props, err := listTools(ctx, s)
	if err != nil {
		return
	}
	c.mu.Lock()
	if c.session == s {
		c.tools, c.props = tools, props
	}
	c.mu.Unlock()
}

func listTools(ctx context.Context, s *mcp.ClientSession) ([]core.ToolInfo, map[string]toolProps, error) {
	var tools []core.ToolInfo
	props := map[string]toolProps{}
	for t, err := range s.Tools(ctx, nil) {
		if err != nil {
			return nil, nil, err
		}
		tools = append(tools, toolInfo(t))
		props[t.Name] = toolProps{concurrencySafe: metaBool(t.Meta, metaConcurrencySafe)}
	}
	return tools, props, nil
}

// toolInfo is an MCP listing as the host lists its tools.
func toolInfo(t *mcp.Tool) core.ToolInfo {
	info := core.ToolInfo{Name: t.Name, Description: t.Description, InputSchema: rawJSON(t.InputSchema), OutputSchema: rawJSON(t.OutputSchema)}
	if a := t.Annotations; a != nil {
		info.Annotations = core.Annotations{
			Title: a.Title, ReadOnly: a.ReadOnlyHint, Idempotent: a.IdempotentHint,
			NonDestructive: a.DestructiveHint != nil && !*a.DestructiveHint,
			Local:          a.OpenWorldHint != nil && !*a.OpenWorldHint,
		}
	}
	if info.Annotations.Title == "" {
		info.Annotations.Title = t.Title
	}
	info.Cascades = metaBool(t.Meta, metaCascades)
	return info
}

func rawJSON(v any) json.RawMessage {
	switch v := v.(type) {
	case nil:
		return nil
	case json.RawMessage:
		return v
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}

// metaBool is a boolean _meta entry; absent or another type reads false,
// the conservative reading of both keys.
func metaBool(m mcp.Meta, key string) bool {
	b, _ := m[key].(bool)
	return b
}

// Tools lists the session's tools in its tools[] order.
func (c *Client) Tools() []core.ToolInfo {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]core.ToolInfo(nil), c.tools...)
}

// URL is the session's endpoint.
func (c *Client) URL() string { return c.url }

// Close ends this client's MCP session; the remote session goes on.
func (c *Client) Close() error {
	c.mu.Lock()
	s := c.session
	c.session, c.closed = nil, true
	c.mu.Unlock()
	if s == nil {
		return nil
	}
	return s.Close()
}

// FullOutput fetches the whole output of a result whose model content was
// spilled (r.Spill.Path is then the session's resource URI for it).
func (c *Client) FullOutput(ctx context.Context, r core.ToolResult) (string, error) {
	if r.Spill == nil {
		return r.Text(), nil
	}
	s, err := c.live(ctx)
	if err != nil {
		return "", err
	}
	res, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: r.Spill.Path})
	if err != nil {
		return "", fmt.Errorf("read %s from the remote session at %s: %w", r.Spill.Path, c.url, err)
	}
	var b strings.Builder
	for _, rc := range res.Contents {
		if rc.Text != "" {
			b.WriteString(rc.Text)
		} else {
			b.Write(rc.Blob)
		}
	}
	return b.String(), nil
}

// live is the MCP session, connected again if a lost one was dropped.
func (c *Client) live(ctx context.Context) (*mcp.ClientSession, error) {
	c.mu.Lock()
	s, closed := c.session, c.closed
	c.mu.Unlock()
	switch {
	case closed:
		return nil, errors.New("the remote client is closed")
	case s != nil:
		return s, nil
	}
	if err := c.connect(ctx); err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.session, nil
}

// drop forgets a session that stopped answering, so that the next turn
// connects again (to a replacement pod, say).
func (c *Client) drop(s *mcp.ClientSession) {
	c.mu.Lock()
	if c.session == s {
		c.session = nil
	}
	c.mu.Unlock()
	go func() { _ = s.Close() }()
}

// elicit answers the session's question with the Elicitor.
func (c *Client) elicit(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	// The user's time to answer is no silence of the session's.
	if w := watchOf(ctx); w != nil {
		w.pause()
		defer w.resume()
	}
	schema := rawJSON(req.Params.RequestedSchema)
	action, content, err := c.opts.Elicitor.Elicit(ctx, "the remote session at "+c.url, req.Params.Message, schema)
	if err != nil || action == "" {
		action, content = "decline", nil
	}
	return &mcp.ElicitResult{Action: action, Content: content}, nil
}

// progress passes a call's progress on, by its token.
func (c *Client) progress(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	if c.opts.OnProgress == nil || req.Params == nil {
		return
	}
	if id, ok := req.Params.ProgressToken.(string); ok {
		if use, ok := strings.CutPrefix(id, progressPrefix); ok {
			c.opts.OnProgress(core.Progress{CallID: use, Phase: "progress", Message: req.Params.Message})
		}
	}
}

// progressPrefix starts the progress token of each call: the prefix and
// the tool_use id.
const progressPrefix = "riot-remote:"
