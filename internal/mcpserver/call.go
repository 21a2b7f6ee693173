package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/riot-tools/riot/core"
)

// defaultProgressInterval is [mcp] progress_interval when the config has
// none: how long a call with a progress token runs before riot reports it,
// and how often after, whatever its tool says, so that a client that
// resets its timeout on progress (the TypeScript SDK's is 60 s) never cuts
// a call that is still running.
const defaultProgressInterval = 10 * time.Second

// callTool runs one MCP tool call as a turn of one call.
func (s *Server) callTool(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	// Shutdown cancels the call as the client would: the SDK's own request
	// contexts outlive the connection's.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(s.callsCtx, cancel)
	defer stop()
	if req.Extra != nil && req.Extra.Header != nil {
		if post := s.posts.done(req.Extra.Header); post != nil {
			stopPost := context.AfterFunc(post, cancel)
			defer stopPost()
		}
	}

	defer s.announceAdded(ctx, req.Session, s.toolCount())
	state := req.Params.RequestState
	if state != "" && !isAskState(state) {
		return s.resume(ctx, req, state)
	}
	args := req.Params.Arguments
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	id := newCallID()
	if token := req.Params.GetProgressToken(); token != nil && req.Session != nil {
		p := &callProgress{session: req.Session, token: token, ctx: ctx, start: time.Now(), interval: s.interval}
		s.progress.add(id, p)
		p.run()
		defer func() { s.progress.remove(id); p.stop() }()
	}
	ask := &mcpAsk{session: req.Session, questions: make(chan *question)}
	// An answer counts only with the state riot issued for its question,
	// for this session and this very call, once; any other inputResponses
	// are no answer, and the user is asked.
	if state != "" {
		if q, ok := s.asks.take(state, bindCall(req), time.Now()); ok {
			if res, _ := req.Params.InputResponses[permissionInput].(*mcp.ElicitResult); res != nil {
				ask.answer, ask.answered = res, q
			}
		}
	}
	// The turn may outlive this request while a wrapped server's question
	// is out: its context keeps the request's values, and await or the
	// server's shutdown ends it.
	tctx, tcancel := context.WithCancel(context.WithValue(context.WithoutCancel(ctx), askKey{}, ask))
	stopShutdown := context.AfterFunc(s.callsCtx, tcancel)
	run := &turnRun{ask: ask, cancel: tcancel, done: make(chan core.ToolResult, 1)}
	go func() {
		defer stopShutdown()
		defer tcancel()
		run.done <- s.host.RunTurn(tctx, []core.ToolUse{{ID: id, Name: req.Params.Name, Input: args}})[0]
	}()
	return s.await(ctx, req, run)
}

// result turns a host result into MCP's: the model content as content
// blocks, a spilled output's full text as a resource link, and the UI
// payload in _meta. Only a tool that declares an output schema (a wrapped
// server's) has its UI payload as structuredContent, which a client may
// give the model in place of the content; riot's own tools declare none.
// A client on a revision before resource links (2025-06-18) is told the
// resource's URI in a text block instead.
func (s *Server) result(r core.ToolResult, revision string) *mcp.CallToolResult {
	r = s.shutdownNote(r)
	res := &mcp.CallToolResult{IsError: r.IsError(), Content: []mcp.Content{}}
	// A tool with an output schema (a wrapped server's) has its structured
	// content as its UI payload: it is the result's structuredContent,
	// which its ok results must carry.
	structured := hasStructured(revision) && s.isStructured(r.Name)
	if structured && !res.IsError && (len(r.UI) == 0 || !json.Valid(r.UI)) {
		res.IsError = true
		r.Content = append(r.Content, core.Block{Type: "text", Text: "[riot: this result lost the structured content its tool's output schema promises. Call the tool again.]"})
	}
	for _, b := range r.Content {
		if b.Type == "image" {
			res.Content = append(res.Content, &mcp.ImageContent{Data: b.Data, MIMEType: b.MediaType})
		} else {
			res.Content = append(res.Content, &mcp.TextContent{Text: b.Text})
		}
	}
	if r.Spill != nil {
		switch link := s.resultLink(r); {
		case link == nil:
		case revision != "" && revision < "2025-06-18":
			res.Content = append(res.Content, &mcp.TextContent{Text: fmt.Sprintf("[riot: %s Read it with resources/read, URI %s.]", link.Description, link.URI)})
		default:
			res.Content = append(res.Content, link)
		}
	}
	meta := mcp.Meta{"riot/status": string(r.Status)}
	if r.Describe != "" {
		meta["riot/describe"] = r.Describe
	}
	if r.StopsTurn != nil {
		// What the host gives the calls after this one: a client that runs
		// a turn call by call (riot run --remote) stops the same way.
		meta["riot/stopsTurn"] = r.StopsTurn
	}
	switch {
	case len(r.UI) == 0 || !json.Valid(r.UI):
	case structured:
		res.StructuredContent = r.UI
	default:
		meta["riot/ui"] = r.UI
	}
	res.Meta = meta
	return res
}

// resultLink links a spilled output's full text, which resources/read
// serves to this session's clients.
func (s *Server) resultLink(r core.ToolResult) *mcp.ResourceLink {
	uri := s.keepSpill(r.ToolUseID, r.Spill.Path)
	if uri == "" {
		return nil
	}
	size := r.Spill.Bytes
	return &mcp.ResourceLink{
		URI:         uri,
		Name:        filepath.Base(r.Spill.Path),
		Title:       "Full output of " + r.Name,
		Description: fmt.Sprintf("The whole output of this %s call (%d characters, %d lines), of which the text above is a preview.", r.Name, r.Spill.Chars, r.Spill.Lines),
		MIMEType:    "text/plain",
		Size:        &size,
	}
}

// callProgress sends notifications/progress for one call: each progress
// message of its tool, and a heartbeat while it runs.
type callProgress struct {
	session  *mcp.ServerSession
	token    any
	ctx      context.Context
	start    time.Time
	interval time.Duration

	mu       sync.Mutex
	n        float64
	describe string
	message  string
	stopped  bool
	ticker   *time.Ticker
	done     chan struct{}
	wg       sync.WaitGroup
}

func (p *callProgress) run() {
	p.ticker = time.NewTicker(p.interval)
	p.done = make(chan struct{})
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			select {
			case <-p.done:
				return
			case <-p.ticker.C:
				p.send("")
			}
		}
	}()
}

// stop ends the heartbeat and waits for it, so no progress follows the
// result.
func (p *callProgress) stop() {
	p.mu.Lock()
	p.stopped = true
	p.mu.Unlock()
	p.ticker.Stop()
	close(p.done)
	p.wg.Wait()
}

func (p *callProgress) event(e core.Progress) {
	switch e.Phase {
	case "start":
		p.mu.Lock()
		p.describe = e.Describe
		p.mu.Unlock()
	case "progress":
		p.send(e.Message)
	}
}

// send reports progress: msg if the tool said something new, else what
// the call is and how long it has run, with the tool's last message.
func (p *callProgress) send(msg string) {
	p.mu.Lock()
	if p.stopped {
		p.mu.Unlock()
		return
	}
	if msg != "" {
		p.message = msg
	}
	p.n++
	text := p.describe
	if text == "" {
		text = "Running"
	}
	text = fmt.Sprintf("%s (%ds)", text, int(time.Since(p.start).Seconds()))
	if p.message != "" {
		text += ": " + p.message
	}
	params := &mcp.ProgressNotificationParams{ProgressToken: p.token, Progress: p.n, Message: text}
	// Sent under the lock, so notifications go out in order.
	_ = p.session.NotifyProgress(p.ctx, params)
	p.mu.Unlock()
}

// protocolOf is the revision a session negotiated; "" when unknown, which
// is taken as the newest.
func protocolOf(ss *mcp.ServerSession) string {
	if ss == nil {
		return ""
	}
	if init := ss.InitializeParams(); init != nil {
		return init.ProtocolVersion
	}
	return ""
}
