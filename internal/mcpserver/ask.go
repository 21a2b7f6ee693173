package mcpserver

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/riot-tools/riot/core/permission"
)

// askKey carries a call's permission exchange with the client.
type askKey struct{}

// mcpAsk is one call's permission exchange. MCP asks the user with
// elicitation as a multi round-trip request: the first time a call needs
// permission, the handler returns the question instead of a result, with a
// request state that stands for it, and the client calls again with the
// user's answer and that state. A client on an older protocol is asked by
// the SDK with elicitation/create, which calls the handler again the same
// way, within the request.
type mcpAsk struct {
	session *mcp.ServerSession
	// answer is the client's answer to the question asked, set only when
	// the call came back with the request state riot issued for that
	// question (askStates.take checked it); answered is that question.
	answer   *mcp.ElicitResult
	answered string
	question *mcp.ElicitParams
	// questions carries a wrapped MCP server's questions during the call
	// to the request that waits on the call.
	questions chan *question
}

// permissionInput is the id of the permission question in a call's
// input requests.
const permissionInput = "riot-permission"

// prompter asks through MCP elicitation when the client supports it, and
// cannot ask otherwise.
type prompter struct{}

// errAsking means the question is on its way to the client.
var errAsking = errors.New("mcp: asking the client")

const (
	answerOnce    = "allow once"
	answerSession = "allow for this session"
	answerAlways  = "always allow"
	answerDeny    = "deny"
)

func (prompter) Prompt(ctx context.Context, req permission.Request, d permission.Decision) (permission.Answer, error) {
	ask, _ := ctx.Value(askKey{}).(*mcpAsk)
	if ask == nil || ask.session == nil {
		return permission.AnswerDeny, permission.ErrCannotAsk
	}
	if !canElicit(ask.session) {
		return permission.AnswerDeny, permission.ErrCannotAsk
	}
	what := req.Describe
	if what == "" {
		what = req.Tool
	}
	message := fmt.Sprintf("riot: allow %s? %s", what, d.Reason)
	// An answer counts once, and only for the very question it answers:
	// whatever else the client sends is no answer, and the user is asked.
	res, answered := ask.answer, ask.answered
	ask.answer, ask.answered = nil, ""
	if res != nil && answered == message {
		if res.Action != "accept" {
			return permission.AnswerDeny, nil
		}
		switch res.Content["decision"] {
		case answerOnce:
			return permission.AnswerAllowOnce, nil
		case answerSession:
			return permission.AnswerAllowSession, nil
		case answerAlways:
			return permission.AnswerAllowAlways, nil
		default:
			return permission.AnswerDeny, nil
		}
	}
	ask.question = &mcp.ElicitParams{
		Message: message,
		RequestedSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"decision": map[string]any{
					"type": "string", "title": "Decision",
					"enum": []string{answerOnce, answerSession, answerAlways, answerDeny},
				},
			},
			"required": []string{"decision"},
		},
	}
	permission.Asking(ctx)
	return permission.AnswerDeny, errAsking
}

// networkInput is the id of riot's question about a host in a call's
// input requests.
const networkInput = "riot-network"

const (
	networkSession = "allow for this session"
	networkAlways  = "always allow"
	networkDeny    = "deny"
)

// PromptNetwork asks the client, while the call runs, about a host its
// command connects to: as a wrapped server's question is asked, with
// riot's own words and choices. Without a client that takes questions
// there is no one to ask.
func (prompter) PromptNetwork(ctx context.Context, q permission.NetworkQuestion) (permission.Answer, error) {
	ask, _ := ctx.Value(askKey{}).(*mcpAsk)
	if ask == nil || ask.session == nil || ask.questions == nil || !canElicit(ask.session) {
		return permission.AnswerDeny, permission.ErrCannotAsk
	}
	permission.Asking(ctx)
	res, err := ask.put(ctx, &question{
		input: networkInput,
		params: &mcp.ElicitParams{
			Message: permission.NetworkMessage(q),
			RequestedSchema: map[string]any{
				"type": "object",
				"properties": map[string]any{
					"decision": map[string]any{
						"type": "string", "title": "Decision",
						"enum": []string{networkSession, networkAlways, networkDeny},
					},
				},
				"required": []string{"decision"},
			},
		},
		answer: make(chan *mcp.ElicitResult, 1),
	})
	if err != nil {
		return permission.AnswerDeny, err
	}
	if res == nil || res.Action != "accept" {
		return permission.AnswerDeny, nil
	}
	switch res.Content["decision"] {
	case networkSession:
		return permission.AnswerAllowSession, nil
	case networkAlways:
		return permission.AnswerAllowAlways, nil
	default:
		return permission.AnswerDeny, nil
	}
}

// askStatePrefix starts the request state of riot's own permission
// question; a wrapped server's question is parked under parkPrefix.
const askStatePrefix = "riot-p-"

// maxAsks bounds the questions out at once: a client that never answers
// cannot grow the table, and the oldest question lapses first.
const maxAsks = 256

// askBinding is what an answer is bound to: the session it was asked in,
// the call (tool and exact arguments) and the question.
type askBinding struct {
	session  string
	tool     string
	args     [sha256.Size]byte
	question string
}

// askStates are riot's permission questions out with clients, by the
// request state issued with each: a random nonce, kept in this process,
// good for one answer within parkLimit. They live in the process, not in a
// session, so a stateless transport (a new session per request) works too.
type askStates struct {
	mu   sync.Mutex
	asks map[string]pendingAsk
}

type pendingAsk struct {
	bind    askBinding
	expires time.Time
}

// issue records a question and returns the request state for it.
func (a *askStates) issue(b askBinding, now time.Time) string {
	n := make([]byte, 16)
	_, _ = rand.Read(n)
	state := askStatePrefix + hex.EncodeToString(n)
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.asks == nil {
		a.asks = map[string]pendingAsk{}
	}
	var oldest string
	for k, p := range a.asks {
		if !now.Before(p.expires) {
			delete(a.asks, k)
		} else if oldest == "" || p.expires.Before(a.asks[oldest].expires) {
			oldest = k
		}
	}
	if len(a.asks) >= maxAsks {
		delete(a.asks, oldest)
	}
	a.asks[state] = pendingAsk{bind: b, expires: now.Add(parkLimit)}
	return state
}

// take spends a request state: it reports whether the state was issued,
// is unspent and unexpired, and was issued for exactly this binding's
// session and call. A state is spent by any use, matching or not.
func (a *askStates) take(state string, b askBinding, now time.Time) (question string, ok bool) {
	a.mu.Lock()
	p, found := a.asks[state]
	delete(a.asks, state)
	a.mu.Unlock()
	if !found || !now.Before(p.expires) {
		return "", false
	}
	if p.bind.session != b.session || p.bind.tool != b.tool || p.bind.args != b.args {
		return "", false
	}
	return p.bind.question, true
}

// bindCall is the binding of a call, without its question.
func bindCall(req *mcp.CallToolRequest) askBinding {
	b := askBinding{tool: req.Params.Name, args: argsDigest(req.Params.Arguments)}
	if req.Session != nil {
		b.session = req.Session.ID()
	}
	return b
}

// argsDigest digests arguments as JSON values, so that a client that
// encodes the same arguments again (another key order, other spacing)
// matches, and any other argument does not.
func argsDigest(raw json.RawMessage) [sha256.Size]byte {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err == nil {
		if canon, err := json.Marshal(v); err == nil {
			return sha256.Sum256(canon)
		}
	}
	// Not JSON: the call fails validation anyway; bind the bytes.
	return sha256.Sum256(append([]byte("raw:"), raw...))
}

// isAskState reports whether a request state is one of riot's permission
// questions' (or claims to be), as against a parked server question.
func isAskState(state string) bool { return !strings.HasPrefix(state, parkPrefix) }
