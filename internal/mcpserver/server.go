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

	// stopCalls cancels every call in flight when the server shuts down.
	callsCtx  context.Context
	stopCalls context.CancelFunc
}

// New builds the host through build, with riot's MCP prompter and progress
// hook in its options, and an MCP server for its tools. Close closes both.
// Within an MCP server of a riot it builds nothing and fails: see
// RefuseSelf.
func New(ctx context.Context, version string, build func(context.Context, core.Options) (*core.Host, error)) (*Server, error) {
	if err := RefuseSelf(ctx, os.Getenv, nil, nil); err != nil {
		return nil, err
	}
	s := &Server{progress: progressRouter{sinks: map[string]*callProgress{}}, spills: map[string]string{}, listed: map[string]bool{}}
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
	s.syncTools()
	s.addResults()
	s.mcp.AddReceivingMiddleware(s.inOrder)
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
		s.tools = append(s.tools, tool)
		s.mcp.AddTool(tool, s.callTool)
	}
}

// listedTools are the tools served, in order.
func (s *Server) listedTools() []*mcp.Tool {
	s.toolsMu.Lock()
	defer s.toolsMu.Unlock()
	return slices.Clone(s.tools)
}

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
		list.Tools, list.NextCursor = s.listedTools(), ""
		return list, nil
	}
}

// mcpTool is a tool's MCP listing, with its declared annotations. Each hint
// the tool does not declare takes the conservative value.
func mcpTool(t core.ToolInfo) *mcp.Tool {
	a := t.Annotations
	destructive := !a.ReadOnly && !a.NonDestructive
	openWorld := !a.Local
	return &mcp.Tool{
		Name: t.Name, Title: a.Title, Description: t.Description, InputSchema: t.InputSchema,
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
