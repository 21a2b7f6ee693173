package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/riot-tools/riot/core"
)

// RunTurn runs one turn's calls in the session, one tools/call each, and
// returns one result per call in input order. It schedules them as the
// host does: a run of consecutive calls of tools the session lists as
// concurrency-safe runs together, at most MaxParallel at once; any other
// call runs alone, after the calls before it. A failed call of a cascading
// tool cancels the calls after it; a session that stops answering fails
// every call it leaves unfinished. RunTurn never fails.
func (c *Client) RunTurn(ctx context.Context, uses []core.ToolUse) []core.ToolResult {
	results := make([]core.ToolResult, len(uses))
	done := make([]bool, len(uses))
	t := &turn{c: c, ctx: ctx}
	s, err := c.live(ctx)
	if err != nil {
		t.lost = err
	}
	for i := 0; i < len(uses) && t.stopped() == nil; {
		j := i + 1
		if c.safe(uses[i].Name) {
			for j < len(uses) && j-i < c.opts.MaxParallel && c.safe(uses[j].Name) {
				j++
			}
		}
		t.runGroup(s, uses[i:j], results[i:j], done[i:j])
		i = j
	}
	stop := t.stopped()
	for i, use := range uses {
		if !done[i] {
			results[i] = textResult(use, stop.status, stop.notRun)
		}
	}
	boundTurn(results, int64(c.opts.TurnBudgetChars))
	return results
}

// safe reports whether the session lists name as concurrency-safe.
func (c *Client) safe(name string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.props[name].concurrencySafe
}

// turn is one RunTurn's state: what stopped it, if anything.
type turn struct {
	c   *Client
	ctx context.Context

	mu      sync.Mutex
	lost    error
	cascade string // the not-run text of a call that stopped the turn
}

// stopReason is why the rest of a turn does not run.
type stopReason struct {
	status core.Status
	notRun string
}

func (t *turn) stopped() *stopReason {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case t.lost != nil:
		return &stopReason{core.StatusFailed, fmt.Sprintf("Not run: the remote session at %s stopped answering: %v. Run this call again once the session answers.", t.c.url, t.lost)}
	case t.cascade != "":
		return &stopReason{core.StatusCancelled, t.cascade}
	case t.ctx.Err() != nil:
		return &stopReason{core.StatusCancelled, "Not run: the turn was stopped by the user or the agent before this call started."}
	}
	return nil
}

// runGroup runs calls together and waits for them; a call alone runs on
// this goroutine.
func (t *turn) runGroup(s *mcp.ClientSession, uses []core.ToolUse, results []core.ToolResult, done []bool) {
	run := func(k int) {
		results[k] = t.call(s, uses[k])
		done[k] = true
		r := results[k]
		t.mu.Lock()
		if r.StopsTurn != nil && t.cascade == "" {
			t.cascade = r.StopsTurn.NotRun()
		}
		t.mu.Unlock()
	}
	if len(uses) == 1 {
		run(0)
		return
	}
	var wg sync.WaitGroup
	for k := range uses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run(k)
		}()
	}
	wg.Wait()
}

// call runs one call as a tools/call of its own.
func (t *turn) call(s *mcp.ClientSession, use core.ToolUse) core.ToolResult {
	c := t.c
	if _, known := c.toolProps(use.Name); !known {
		return textResult(use, core.StatusFailed, fmt.Sprintf("There is no tool named %q. The tools available are: %s. Call one of those instead.", use.Name, c.toolNames()))
	}
	input := use.Input
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	if !json.Valid(input) {
		return textResult(use, core.StatusFailed, fmt.Sprintf("The input for %s is not valid JSON. Send a JSON object.", use.Name))
	}
	start := time.Now()
	c.notify(core.Progress{CallID: use.ID, Tool: use.Name, Phase: "start"})
	defer func() {
		c.notify(core.Progress{CallID: use.ID, Tool: use.Name, Phase: "end", Elapsed: time.Since(start)})
	}()

	wctx, w := newWatch(t.ctx, c.opts.Timeout)
	defer w.stop()
	params := &mcp.CallToolParams{Name: use.Name, Arguments: input}
	params.SetProgressToken(progressPrefix + use.ID)
	res, err := s.CallTool(wctx, params)
	if err == nil {
		r := result(use, res)
		r.Duration = time.Since(start)
		return r
	}
	var lost *lostError
	switch {
	case t.ctx.Err() != nil:
		return textResult(use, core.StatusCancelled, "Cancelled while running: the turn was stopped by the user or the agent. The call may have partially run.")
	case errors.As(context.Cause(wctx), &lost):
		err = lost.err
	}
	t.mu.Lock()
	if t.lost == nil {
		t.lost = err
	}
	t.mu.Unlock()
	c.drop(s)
	return textResult(use, core.StatusFailed, fmt.Sprintf("The remote session at %s stopped answering: %v. This call may have run there in part: check its effects (read the files, or run a read-only command) before you run it again.", c.url, err))
}

func (c *Client) toolProps(name string) (toolProps, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.props[name]
	return p, ok
}

func (c *Client) toolNames() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.tools) == 0 {
		return "none"
	}
	names := make([]string, len(c.tools))
	for i, t := range c.tools {
		names[i] = t.Name
	}
	return strings.Join(names, ", ")
}

func (c *Client) notify(p core.Progress) {
	if c.opts.OnProgress != nil {
		c.opts.OnProgress(p)
	}
}

func textResult(use core.ToolUse, status core.Status, text string) core.ToolResult {
	return core.ToolResult{ToolUseID: use.ID, Name: use.Name, Status: status, Content: []core.Block{{Type: "text", Text: text}}}
}

// result is riot mcp's answer as the host's result: the status, the
// description and the UI payload from _meta, the content blocks, and a
// spilled output's resource link as the Spill, its Path the resource's
// URI (Client.FullOutput reads it). The preview and the note saying where
// the full output is are the session's text, as riot run there prints it.
func result(use core.ToolUse, res *mcp.CallToolResult) core.ToolResult {
	r := core.ToolResult{ToolUseID: use.ID, Name: use.Name, Status: statusOf(res)}
	r.Describe, _ = res.Meta[metaDescribe].(string)
	if r.StopsTurn = turnStop(res.Meta[metaStopsTurn]); r.StopsTurn != nil {
		r.StopsTurn.ID = use.ID // the session named the call by an id of its own
	}
	if ui := rawJSON(res.Meta[metaUI]); len(ui) > 0 {
		r.UI = ui
	} else if res.StructuredContent != nil {
		r.UI = rawJSON(res.StructuredContent)
	}
	for _, content := range res.Content {
		switch b := content.(type) {
		case *mcp.TextContent:
			r.Content = append(r.Content, core.Block{Type: "text", Text: b.Text})
		case *mcp.ImageContent:
			r.Content = append(r.Content, core.Block{Type: "image", MediaType: b.MIMEType, Data: b.Data})
		case *mcp.ResourceLink:
			r.Spill = spillOf(b)
		}
	}
	return r
}

// statusOf is the result's riot status; without one, or with one this
// client does not know, an error is Failed and anything else ok.
func statusOf(res *mcp.CallToolResult) core.Status {
	switch s, _ := res.Meta[metaStatus].(string); core.Status(s) {
	case core.StatusOK:
		if !res.IsError {
			return core.StatusOK
		}
	case core.StatusDenied:
		return core.StatusDenied
	case core.StatusCancelled:
		return core.StatusCancelled
	case core.StatusFailed:
		return core.StatusFailed
	}
	if res.IsError {
		return core.StatusFailed
	}
	return core.StatusOK
}

// spillSize reads the size riot mcp writes in a result link's description.
var spillSize = regexp.MustCompile(`\((\d+) characters, (\d+) lines\)`)

func spillOf(link *mcp.ResourceLink) *core.Spill {
	sp := &core.Spill{Path: link.URI}
	if link.Size != nil {
		sp.Bytes = *link.Size
	}
	if m := spillSize.FindStringSubmatch(link.Description); m != nil {
		sp.Chars, _ = strconv.ParseInt(m[1], 10, 64)
		sp.Lines, _ = strconv.ParseInt(m[2], 10, 64)
	}
	return sp
}

// turnStop reads riot mcp's riot/stopsTurn: the call stopped the turn.
func turnStop(v any) *core.TurnStop {
	if v == nil {
		return nil
	}
	var s core.TurnStop
	if json.Unmarshal(rawJSON(v), &s) != nil || s.Tool == "" {
		return nil
	}
	return &s
}
