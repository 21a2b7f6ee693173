package mcpserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/riot-tools/riot/core"
)

// Server is one riot host served over MCP. Every MCP session, on stdio or
// HTTP, shares the host: its permission chain, its session and its budgets.
type Server struct {
	host *core.Host
	mcp  *mcp.Server

	// tools are the host's tools in tools[] order; a wrapped server's
	// added tools are appended, never reordering the rest.
	toolsMu sync.Mutex
	tools   []*mcp.Tool
	listed  map[string]bool
	// structured are the tools that declare an output schema: their UI
	// payload is their structuredContent.
	structured map[string]bool
	// interval is [mcp] progress_interval.
	interval time.Duration

	progress progressRouter
	posts    posts
	// parked are the calls waiting for the client's answer to a wrapped
	// MCP server's question.
	parked parkedCalls
	// asks are riot's own permission questions out with clients.
	asks askStates

	// spills maps the id of each call whose output was spilled to its file.
	spillMu sync.Mutex
	spills  map[string]string

	// send is the SDK's sending handler, through which a call announces
	// the tools it added before its own result.
	send mcp.MethodHandler

	// stopCalls cancels every call in flight when the server shuts down.
	callsCtx  context.Context
	stopCalls context.CancelFunc
	// shutdown is why the HTTP server is shutting down (shutdown.go).
	shutdown shutdownState
}

// New builds the host through build, with riot's MCP prompter and progress
// hook in its options, and an MCP server for its tools. Close closes both.
// Within an MCP server of a riot it builds nothing and fails: see
// RefuseSelf.
func New(ctx context.Context, version string, build func(context.Context, core.Options) (*core.Host, error)) (*Server, error) {
	if err := RefuseSelf(ctx, os.Getenv, nil, nil); err != nil {
		return nil, err
	}
	s := &Server{progress: progressRouter{sinks: map[string]*callProgress{}}, spills: map[string]string{}, listed: map[string]bool{}, structured: map[string]bool{}}
	s.callsCtx, s.stopCalls = context.WithCancel(context.Background())
	h, err := build(ctx, core.Options{Prompter: prompter{}, OnProgress: s.progress.event, OnToolsChanged: s.syncTools})
	if err != nil {
		s.stopCalls()
		return nil, err
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "riot", Version: version}, &mcp.ServerOptions{
		// No logging: riot logs to its log file, not the client.
		// listChanged: a wrapped MCP server may add tools, which riot
		// appends and announces.
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}, Resources: &mcp.ResourceCapabilities{}},
	})
	s.toolsMu.Lock()
	s.host, s.mcp = h, server
	s.toolsMu.Unlock()
	if s.interval = h.MCPProgressInterval(); s.interval <= 0 {
		s.interval = defaultProgressInterval
	}
	s.syncTools()
	s.addResults()
	s.mcp.AddReceivingMiddleware(s.inOrder, s.noPrompts, s.missingServer)
	s.mcp.AddSendingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		s.send = next
		return next
	})
	return s, nil
}

// Close cancels every call in flight and closes the host, which kills the
// calls' processes and stops every plugin.
func (s *Server) Close() error {
	s.stopCalls()
	return s.host.Close()
}

// ServeStdio serves one MCP session on r and w until the client closes r
// or ctx ends. When ctx ends, every call in flight is cancelled first, so
// shutting down waits for no call.
func (s *Server) ServeStdio(ctx context.Context, r io.Reader, w io.Writer) error {
	stop := context.AfterFunc(ctx, s.stopCalls)
	defer stop()
	s.host.StartSession(ctx)
	err := s.mcp.Run(ctx, &stdioTransport{r: r, w: w})
	if ctx.Err() != nil || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// syncTools serves the host's tools not yet served, appended in the
// host's order; the SDK then tells the clients their list changed. It is
// core.Options.OnToolsChanged, which may come before the host is built.
func (s *Server) syncTools() {
	s.toolsMu.Lock()
	defer s.toolsMu.Unlock()
	if s.host == nil || s.mcp == nil {
		return
	}
	for _, t := range s.host.Tools() {
		if s.listed[t.Name] {
			continue
		}
		tool := mcpTool(t)
		s.listed[t.Name] = true
		s.structured[t.Name] = tool.OutputSchema != nil
		s.tools = append(s.tools, tool)
		s.mcp.AddTool(tool, s.callTool)
	}
}

// listedTools are the tools served, in order, as the revision has them:
// output schemas came with 2025-06-18.
func (s *Server) listedTools(revision string) []*mcp.Tool {
	s.toolsMu.Lock()
	defer s.toolsMu.Unlock()
	tools := slices.Clone(s.tools)
	if !hasStructured(revision) {
		for i, t := range tools {
			if t.OutputSchema != nil {
				bare := *t
				bare.OutputSchema = nil
				tools[i] = &bare
			}
		}
	}
	return tools
}

// toolCount is how many tools are served; it only grows.
func (s *Server) toolCount() int {
	s.toolsMu.Lock()
	defer s.toolsMu.Unlock()
	return len(s.tools)
}

// announceAdded tells the calling session that the tool list changed, on
// the call's own stream, when its call added tools (a wrapped server's
// tool that adds tools). The SDK announces a change only after a delay,
// so its notification would follow the call's result, and a client that
// lists tools on the result would miss the new ones. Only a session the
// SDK notifies unasked (before 2026-07-28) is told here; a newer one
// subscribes, and hears of it there.
func (s *Server) announceAdded(ctx context.Context, ss *mcp.ServerSession, before int) {
	if ss == nil || s.toolCount() == before {
		return
	}
	if v := protocolOf(ss); v != "" && v >= "2026-07-28" {
		return
	}
	_, _ = s.send(ctx, "notifications/tools/list_changed", &mcp.ServerRequest[*mcp.ToolListChangedParams]{Session: ss, Params: &mcp.ToolListChangedParams{}})
}

// isStructured reports whether a tool's results carry structuredContent.
func (s *Server) isStructured(name string) bool {
	s.toolsMu.Lock()
	defer s.toolsMu.Unlock()
	return s.structured[name]
}

// hasStructured reports whether a revision has output schemas and
// structured content; "" is the newest.
func hasStructured(revision string) bool { return revision == "" || revision >= "2025-06-18" }

// inOrder answers tools/list with the host's tools[] order: the SDK lists
// tools sorted by name, and the order is part of the prompt-cache prefix.
// The SDK still builds the result, so that every field the negotiated
// revision requires (resultType, cacheScope) is set as for any other list;
// riot only puts every tool on the one page, in order, with no cursor.
func (s *Server) inOrder(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "tools/list" {
			return next(ctx, method, req)
		}
		s.syncTools()
		if lr, ok := req.(*mcp.ListToolsRequest); ok && lr.Params != nil {
			// A cursor riot never handed out would page the SDK's list.
			lr.Params.Cursor = ""
		}
		res, err := next(ctx, method, req)
		if err != nil {
			return nil, err
		}
		list, ok := res.(*mcp.ListToolsResult)
		if !ok {
			return nil, fmt.Errorf("tools/list: the SDK answered %T", res)
		}
		ss, _ := req.GetSession().(*mcp.ServerSession)
		list.Tools, list.NextCursor = s.listedTools(protocolOf(ss)), ""
		return list, nil
	}
}

// noPrompts refuses the prompt methods as unknown, since riot declares
// no prompts: the SDK would answer them with an empty list, serving what
// it does not declare.
func (s *Server) noPrompts(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "prompts/list" || method == "prompts/get" {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: fmt.Sprintf("method not found: %q (riot serves no prompts)", method)}
		}
		return next(ctx, method, req)
	}
}

// missingServer refuses a call of a tool of an MCP server that never
// started as the SDK refuses an unknown tool (invalid params), but naming
// the server and why it did not start.
func (s *Server) missingServer(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "tools/call" {
			return next(ctx, method, req)
		}
		if call, ok := req.(*mcp.CallToolRequest); ok && call.Params != nil && !s.isListed(call.Params.Name) {
			if msg := s.host.MissingMCPTool(call.Params.Name); msg != "" {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg}
			}
		}
		return next(ctx, method, req)
	}
}

// isListed reports whether a tool is served.
func (s *Server) isListed(name string) bool {
	s.toolsMu.Lock()
	defer s.toolsMu.Unlock()
	return s.listed[name]
}

// mcpTool is a tool's MCP listing, with its declared annotations. Each hint
// the tool does not declare takes the conservative value.
func mcpTool(t core.ToolInfo) *mcp.Tool {
	a := t.Annotations
	destructive := !a.ReadOnly && !a.NonDestructive
	openWorld := !a.Local
	var out any
	if len(t.OutputSchema) > 0 {
		out = t.OutputSchema
	}
	return &mcp.Tool{
		Name: t.Name, Title: a.Title, Description: t.Description, InputSchema: t.InputSchema, OutputSchema: out,
		// For package remote's scheduling: read-only calls may run together; a cascading failure ends the turn.
		Meta: mcp.Meta{"riot/concurrencySafe": a.ReadOnly, "riot/cascades": t.Cascades},
		Annotations: &mcp.ToolAnnotations{
			Title:           a.Title,
			ReadOnlyHint:    a.ReadOnly,
			DestructiveHint: &destructive,
			IdempotentHint:  a.Idempotent,
			OpenWorldHint:   &openWorld,
		},
	}
}

func newCallID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return "mcp_" + hex.EncodeToString(b)
}

// progressRouter sends the host's progress events to the MCP request each
// call belongs to.
type progressRouter struct {
	mu    sync.Mutex
	sinks map[string]*callProgress
}

func (r *progressRouter) add(callID string, p *callProgress) {
	r.mu.Lock()
	r.sinks[callID] = p
	r.mu.Unlock()
}

func (r *progressRouter) remove(callID string) {
	r.mu.Lock()
	delete(r.sinks, callID)
	r.mu.Unlock()
}

// event is core.Options.OnProgress.
func (r *progressRouter) event(p core.Progress) {
	r.mu.Lock()
	sink := r.sinks[p.CallID]
	r.mu.Unlock()
	if sink != nil {
		sink.event(p)
	}
}
