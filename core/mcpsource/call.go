package mcpsource

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/riot-tools/riot/internal/jsonschema"
	"github.com/riot-tools/riot/shared"
)

// Call runs one tool call on the server, starting it if needed, and maps
// the result into riot's blocks.
func (s *Source) Call(ctx context.Context, req shared.CallRequest, send func(shared.CallEvent) error) error {
	s.mu.Lock()
	t, out := s.tools[req.Tool], s.outputs[req.Tool].schema
	s.mu.Unlock()
	if t == nil {
		return send(failed(fmt.Sprintf("The %s MCP server does not serve %s. Call one of the tools listed instead.", s.name, req.Tool)))
	}
	c, err := s.connect(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var e *Error
		if errors.As(err, &e) {
			return send(failed(e.Msg))
		}
		return send(failed(fmt.Sprintf("The %s MCP server could not be started. Tell the user it needs fixing.", s.name)))
	}
	var args map[string]any
	if in := req.Input; len(in) > 0 {
		if err := json.Unmarshal(in, &args); err != nil {
			return send(failed(fmt.Sprintf("The input for %s is not a JSON object. Send an object with the fields its schema lists.", req.Tool)))
		}
	}
	cctx, cancel := context.WithTimeout(ctx, s.opts.ToolTimeout)
	defer cancel()
	var idle *idleWatch
	if d := s.opts.Server.IdleTimeout; d > 0 {
		cctx, idle = watchIdle(cctx, d, s.after)
		defer idle.stop()
	}
	cctx, state, end := s.begin(cctx, req.CallID, send, idle)
	defer end()
	params := &mcp.CallToolParams{Name: t.Name, Arguments: args}
	if req.CallID != "" {
		// The server's progress is passed on as the call's.
		params.SetProgressToken(progressPrefix + req.CallID)
	}
	// Cancelling cctx makes the SDK send notifications/cancelled.
	res, err := c.sess.CallTool(cctx, params)
	state.finish()
	idle.stop()
	if err != nil {
		return s.callFailed(ctx, cctx, c, req.Tool, err, send)
	}
	// A tool the call added was announced before its result.
	s.awaitRelists(cctx)
	return s.sendResult(res, req.Tool, out, state.taken(), send)
}

func (s *Source) callFailed(ctx, cctx context.Context, c *conn, tool string, err error, send func(shared.CallEvent) error) error {
	if ctx.Err() != nil {
		// The turn was cancelled; the SDK told the server.
		return ctx.Err()
	}
	var refusal *jsonrpc.Error
	switch {
	case c.over.seen() != "":
		// Riot cut the server off mid-answer: say so, not how it ended.
		s.opts.Log.Warn("MCP server sent a message over the size bound", "server", s.name, "tool", tool, "error", err)
		s.lost(c)
		s.crash()
		return send(failed(fmt.Sprintf("The %s MCP server sent %s while running %s, so %s. It may have partially run; check before retrying. Call it again asking for less (a narrower query, a smaller range), or use another tool; %s.", s.name, c.over.seen(), tool, c.over.stopped(), c.over.next())))
	case errors.Is(context.Cause(cctx), errIdle):
		s.lost(c)
		s.crash()
		return send(failed(fmt.Sprintf("The %s MCP server sent nothing for %s while running %s (no progress, no result), so riot stopped it (idle_timeout of [mcp_servers.%s]). It may have partially run; check before retrying. Call it again with less to do, or tell the user to raise idle_timeout if the tool works silently for longer.", s.name, seconds(s.opts.Server.IdleTimeout), tool, s.name)))
	case cctx.Err() != nil:
		s.lost(c)
		s.crash()
		return send(failed(fmt.Sprintf("The %s MCP server did not finish %s within %s, so it was stopped (%s). It may have partially run; check before retrying. The next call restarts the server; call it with less to do, or tell the user to raise that limit.", s.name, tool, seconds(s.opts.ToolTimeout), s.toolTimeoutKey())))
	case errors.As(err, &refusal):
		// The server is alive and answered with a JSON-RPC error.
		return send(failed(fmt.Sprintf("The %s MCP server refused this call of %s: %s. Fix the input, or use another tool.", s.name, tool, quoteServer(refusal.Message))))
	}
	// Anything else broke the connection: find out how, and start afresh
	// on the next call.
	why := c.reason(cctx)
	s.opts.Log.Debug("MCP call failed", "server", s.name, "tool", tool, "error", err)
	s.lost(c)
	s.crash()
	return send(failed(fmt.Sprintf("The %s MCP server stopped while running %s%s. It may have partially run; check before retrying. The next call restarts the server.", s.name, tool, why)))
}

// toolTimeoutKey names the setting the call's total limit came from.
func (s *Source) toolTimeoutKey() string {
	if s.opts.Server.ToolTimeout > 0 {
		return fmt.Sprintf("tool_timeout of [mcp_servers.%s]", s.name)
	}
	return "limits.call_timeout"
}

// progressPrefix starts the progress token of a call: the prefix, then
// the call's id.
const progressPrefix = "riot-"

// progressed passes a server's notifications/progress on to the call it
// names; a token of no call in flight is dropped.
func (s *Source) progressed(p *mcp.ProgressNotificationParams) {
	if p == nil {
		return
	}
	token, ok := p.ProgressToken.(string)
	id, isOurs := strings.CutPrefix(token, progressPrefix)
	if !ok || !isOurs || id == "" {
		return
	}
	var call *callState
	s.mu.Lock()
	for _, c := range s.calls {
		if c.token == id {
			call = c
		}
	}
	s.mu.Unlock()
	if call == nil {
		return
	}
	line := strings.TrimSpace(p.Message)
	switch {
	case line != "":
	case p.Total > 0:
		line = fmt.Sprintf("%g of %g", p.Progress, p.Total)
	default:
		line = fmt.Sprintf("%g", p.Progress)
	}
	if r := []rune(line); len(r) > 300 {
		line = string(r[:300]) + "…"
	}
	call.progress(fmt.Sprintf("%s: %s", s.name, line))
}

// quoteServer bounds and marks text the server wrote.
func quoteServer(msg string) string {
	msg = strings.TrimSpace(msg)
	if len(msg) > 500 {
		msg = msg[:500] + "…"
	}
	return fmt.Sprintf("%q", msg)
}

func failed(msg string) shared.CallEvent {
	return shared.CallEvent{Final: &shared.Final{Status: shared.StatusFailed, Message: msg}}
}

// sendResult maps MCP content to blocks: text as text, images as images,
// resource links and embedded text resources as text naming them. isError
// makes the call Failed, with the server's text as the content.
// notes, riot's own about the call, follow the server's text.
func (s *Source) sendResult(res *mcp.CallToolResult, tool string, out *jsonschema.Schema, notes []string, send func(shared.CallEvent) error) error {
	block := uint32(0)
	text := func(s string) error {
		if s == "" {
			return nil
		}
		for len(s) > 0 {
			n := min(len(s), 1<<20)
			if err := send(shared.CallEvent{Chunk: &shared.Chunk{Block: block, Kind: shared.BlockText, Data: []byte(s[:n])}}); err != nil {
				return err
			}
			s = s[n:]
		}
		return nil
	}
	var sb strings.Builder
	flush := func() error {
		if sb.Len() == 0 {
			return nil
		}
		err := text(sb.String())
		sb.Reset()
		block++
		return err
	}
	for _, ct := range res.Content {
		switch v := ct.(type) {
		case *mcp.TextContent:
			if sb.Len() > 0 {
				sb.WriteString("\n")
			}
			sb.WriteString(v.Text)
		case *mcp.ImageContent:
			if err := flush(); err != nil {
				return err
			}
			if err := send(shared.CallEvent{Chunk: &shared.Chunk{Block: block, Kind: shared.BlockImage, MediaType: v.MIMEType, Data: v.Data}}); err != nil {
				return err
			}
			block++
		case *mcp.ResourceLink:
			fmt.Fprintf(&sb, "\n[resource %s: %s]", v.Name, v.URI)
		case *mcp.EmbeddedResource:
			if r := v.Resource; r != nil {
				if r.Text != "" {
					fmt.Fprintf(&sb, "\n[resource %s]\n%s", r.URI, r.Text)
				} else {
					fmt.Fprintf(&sb, "\n[resource %s: %d bytes of %s, not shown]", r.URI, len(r.Blob), r.MIMEType)
				}
			}
		case *mcp.AudioContent:
			fmt.Fprintf(&sb, "\n[audio %s, %d bytes, not shown: riot passes no audio to the model]", v.MIMEType, len(base64.StdEncoding.EncodeToString(v.Data))*3/4)
		}
	}
	if sb.Len() == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			sb.Write(b)
		}
	}
	for _, n := range notes {
		if sb.Len() > 0 {
			sb.WriteString("\n\n")
		}
		sb.WriteString("[riot] " + n)
	}
	if err := flush(); err != nil {
		return err
	}
	// The structured content is the call's UI payload: riot mcp passes it
	// on as structuredContent when the tool declares an output schema.
	ui, broken := structured(res, out)
	final := &shared.Final{Status: shared.StatusOK, UIPayload: ui}
	switch {
	case res.IsError:
		final.Status = shared.StatusFailed
		final.Message = "The MCP server reported that this call failed (above). Correct the call as it says, or use another tool."
	case broken != "":
		final.Status = shared.StatusFailed
		final.Message = fmt.Sprintf("The %s MCP server answered this call of %s, but %s, so riot counts the call as failed. Do not rely on the text above; try the call again, or use another tool.", s.name, tool, broken)
	}
	return send(shared.CallEvent{Final: final})
}
