package mcpserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/riot-tools/riot/core"
	"github.com/riot-tools/riot/core/mcpsource"
	"github.com/riot-tools/riot/core/permission"
)

// A wrapped MCP server's question (its elicitation/create during a call of
// one of its tools) goes up to riot's client by the same multi round-trip
// exchange as a permission ask, except that the call is already running:
// the turn runs on while the question is out, parked under a request state
// the client echoes with its answer, which goes back down to the server.
// A client on a protocol before multi round-trip requests is asked with
// elicitation/create directly, within the same request.

// elicitInput is the id of a wrapped server's question in a call's input
// requests, distinct from riot's own permission question.
const elicitInput = "riot-mcp-server-question"

// parkLimit is how long a parked call waits for the client's answer
// before riot cancels the question for it, and how long riot's own
// permission question waits for its answer.
const parkLimit = 10 * time.Minute

// parkPrefix starts the request state of a parked call.
const parkPrefix = "riot-q-"

// question is one question of a running call on its way to the client:
// a wrapped server's, or riot's own about a host the call's command
// connects to.
type question struct {
	// input is the id of the question in the call's input requests
	// (elicitInput or networkInput), under which the answer comes back.
	input  string
	params *mcp.ElicitParams
	answer chan *mcp.ElicitResult // buffered: one answer
}

// turnRun is one call's turn, which may outlive the request that started
// it while a question is out.
type turnRun struct {
	ask    *mcpAsk
	cancel context.CancelFunc
	done   chan core.ToolResult // buffered: the turn's one result
}

// parkedCalls are the turns waiting for a client's answer, by request
// state. The state is random and unguessable; taking it is once only.
type parkedCalls struct {
	mu    sync.Mutex
	calls map[string]parked
}

type parked struct {
	run *turnRun
	q   *question
	// bind is the session and call the question was asked for: only the
	// same call of the same session may answer it.
	bind  askBinding
	timer *time.Timer
}

func (p *parkedCalls) park(run *turnRun, q *question, bind askBinding) string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	state := parkPrefix + hex.EncodeToString(b)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.calls == nil {
		p.calls = map[string]parked{}
	}
	// Unanswered, the question is cancelled and the turn ends on its own.
	timer := time.AfterFunc(parkLimit, func() {
		if _, q := p.take(state, bind); q != nil {
			q.answer <- &mcp.ElicitResult{Action: "cancel"}
		}
	})
	p.calls[state] = parked{run: run, q: q, bind: bind, timer: timer}
	return state
}

// take unparks the call parked under state, if it was parked for bind's
// session and call; the question is not part of the match.
func (p *parkedCalls) take(state string, bind askBinding) (*turnRun, *question) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c, ok := p.calls[state]
	if !ok || c.bind.session != bind.session || c.bind.tool != bind.tool || c.bind.args != bind.args {
		return nil, nil
	}
	delete(p.calls, state)
	c.timer.Stop()
	return c.run, c.q
}

// Elicit is mcpsource.Elicitor: it puts a wrapped server's question to the
// client of the call that caused it, named as the server's, never as
// riot's. Without a client that takes questions there is no one to ask.
func (prompter) Elicit(ctx context.Context, from, message string, schema json.RawMessage) (string, map[string]any, error) {
	ask, _ := ctx.Value(askKey{}).(*mcpAsk)
	if ask == nil || ask.session == nil || ask.questions == nil || !canElicit(ask.session) {
		return "decline", nil, mcpsource.ErrNoOneToAsk
	}
	var requested map[string]any
	if err := json.Unmarshal(schema, &requested); err != nil {
		return "decline", nil, mcpsource.ErrNoOneToAsk
	}
	if v := protocolOf(ask.session); v != "" && v < "2025-11-25" && hasMultiSelect(requested) {
		return "decline", nil, mcpsource.ErrFormTooNew
	}
	q := &question{
		input:  elicitInput,
		params: &mcp.ElicitParams{Message: serverQuestion(from, message), RequestedSchema: requested},
		answer: make(chan *mcp.ElicitResult, 1),
	}
	permission.Asking(ctx)
	res, err := ask.put(ctx, q)
	if err != nil {
		return "cancel", nil, err
	}
	return res.Action, res.Content, nil
}

// hasMultiSelect reports whether a form has an array (multi-select)
// field, which revisions before 2025-11-25 do not have.
func hasMultiSelect(form map[string]any) bool {
	props, _ := form["properties"].(map[string]any)
	for _, p := range props {
		if f, _ := p.(map[string]any); f["type"] == "array" {
			return true
		}
	}
	return false
}

// put sends a running call's question to the request that waits on the
// call, and waits for the answer.
func (a *mcpAsk) put(ctx context.Context, q *question) (*mcp.ElicitResult, error) {
	select {
	case a.questions <- q:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case res := <-q.answer:
		return res, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// serverQuestion names the server that asks, first, so that the user
// never takes its question for one of riot's permission prompts.
func serverQuestion(from, message string) string {
	if from != "" {
		from = strings.ToUpper(from[:1]) + from[1:]
	}
	return from + " asks (this question is the server's, not riot's): " + message
}

// canElicit reports whether the client takes questions: it declares
// elicitation, on a revision that has it (2025-06-18 and later), whatever
// an older client declares.
func canElicit(ss *mcp.ServerSession) bool {
	init := ss.InitializeParams()
	return init != nil && init.Capabilities != nil && init.Capabilities.Elicitation != nil && init.ProtocolVersion >= "2025-06-18"
}

// multiRoundTrip reports whether the client speaks multi round-trip
// requests (protocol 2026-07-28 and later), as the SDK decides it.
func multiRoundTrip(ss *mcp.ServerSession) bool {
	init := ss.InitializeParams()
	return init == nil || init.ProtocolVersion >= "2026-07-28"
}

// await waits for the turn's result or its next question. A question is
// returned to a multi round-trip client as input requests, with the turn
// parked; an older client is asked directly. The request's end cancels the
// turn, unless the turn was parked first.
func (s *Server) await(ctx context.Context, req *mcp.CallToolRequest, run *turnRun) (*mcp.CallToolResult, error) {
	stop := context.AfterFunc(ctx, run.cancel)
	for {
		select {
		case r := <-run.done:
			stop()
			if q := run.ask.question; q != nil {
				// The call did not run: ask, and run it when the answer
				// comes back with the state that stands for this question.
				bind := bindCall(req)
				bind.question = q.Message
				state := s.asks.issue(bind, time.Now())
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{permissionInput: q}, RequestState: state}, nil
			}
			return s.result(r, protocolOf(req.Session)), nil
		case q := <-run.ask.questions:
			if req.Session == nil {
				q.answer <- &mcp.ElicitResult{Action: "decline"}
				continue
			}
			if !multiRoundTrip(req.Session) {
				res, err := req.Session.Elicit(ctx, q.params)
				if err != nil {
					res = &mcp.ElicitResult{Action: "cancel"}
				}
				q.answer <- res
				continue
			}
			if !stop() {
				// The request ended meanwhile: the turn is being cancelled.
				q.answer <- &mcp.ElicitResult{Action: "cancel"}
				continue
			}
			state := s.parked.park(run, q, bindCall(req))
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{q.input: q.params}, RequestState: state}, nil
		}
	}
}

// resume gives a parked turn the client's answer and waits on. Only an
// elicitation answer counts; anything else cancels the question.
func (s *Server) resume(ctx context.Context, req *mcp.CallToolRequest, state string) (*mcp.CallToolResult, error) {
	run, q := s.parked.take(state, bindCall(req))
	if run == nil {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{
			Text: "This call's question for the user expired or was already answered, so the call is over. Call the tool again if you still need it.",
		}}}, nil
	}
	res, _ := req.Params.InputResponses[q.input].(*mcp.ElicitResult)
	if res == nil {
		res = &mcp.ElicitResult{Action: "cancel"}
	}
	q.answer <- res
	return s.await(ctx, req, run)
}
