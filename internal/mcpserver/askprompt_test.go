package mcpserver

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/riot-tools/riot/core/permission"
)

// elicitingSession is a server session whose client takes elicitation.
func elicitingSession(t *testing.T) *mcp.ServerSession {
	t.Helper()
	ctx := context.Background()
	srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
	})
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return ss
}

// The prompter takes an answer only for the very question it would ask,
// once; anything else asks.
func TestPromptTakesOnlyTheAnswerToItsQuestion(t *testing.T) {
	ss := elicitingSession(t)
	req := permission.Request{Tool: "Bash", Describe: "touch x"}
	d := permission.Decision{Reason: "it writes."}
	const question = "riot: allow touch x? it writes."
	answer := func(action, decision string) *mcp.ElicitResult {
		return &mcp.ElicitResult{Action: action, Content: map[string]any{"decision": decision}}
	}
	for _, c := range []struct {
		name     string
		res      *mcp.ElicitResult
		answered string
		want     permission.Answer
		asks     bool
	}{
		{"allow once", answer("accept", answerOnce), question, permission.AnswerAllowOnce, false},
		{"allow for the session", answer("accept", answerSession), question, permission.AnswerAllowSession, false},
		{"always", answer("accept", answerAlways), question, permission.AnswerAllowAlways, false},
		{"deny", answer("accept", answerDeny), question, permission.AnswerDeny, false},
		{"an unknown decision", answer("accept", "yes"), question, permission.AnswerDeny, false},
		{"decline", answer("decline", answerOnce), question, permission.AnswerDeny, false},
		{"cancel", answer("cancel", answerOnce), question, permission.AnswerDeny, false},
		{"no answer", nil, "", permission.AnswerDeny, true},
		{"an answer to no question", answer("accept", answerOnce), "", permission.AnswerDeny, true},
		{"an answer to another question", answer("accept", answerOnce), "riot: allow touch y? it writes.", permission.AnswerDeny, true},
	} {
		ask := &mcpAsk{session: ss, answer: c.res, answered: c.answered}
		ctx := context.WithValue(context.Background(), askKey{}, ask)
		got, err := prompter{}.Prompt(ctx, req, d)
		if got != c.want || errors.Is(err, errAsking) != c.asks || (!c.asks && err != nil) {
			t.Errorf("%s: %v %v, want %v (asks %v)", c.name, got, err, c.want, c.asks)
		}
		if c.asks != (ask.question != nil) || (c.asks && ask.question.Message != question) {
			t.Errorf("%s: the question is %+v", c.name, ask.question)
		}
		// An answer counts once: the next question of the turn is asked.
		ask.question = nil
		if _, err := (prompter{}).Prompt(ctx, req, d); !errors.Is(err, errAsking) || ask.question == nil {
			t.Errorf("%s: an answer counted twice: %v", c.name, err)
		}
	}
	// Without a client that takes elicitation, no one can be asked,
	// whatever answer came.
	ask := &mcpAsk{answer: answer("accept", answerOnce), answered: question}
	if got, err := (prompter{}).Prompt(context.WithValue(context.Background(), askKey{}, ask), req, d); got != permission.AnswerDeny || !errors.Is(err, permission.ErrCannotAsk) {
		t.Fatalf("without a session: %v %v", got, err)
	}
}

// A question about a host, from a running call's command, goes to the
// request that waits on the call as riot's own question, under its own
// input id; the answer maps to the session, always or deny.
func TestPromptNetworkAsksThroughTheCall(t *testing.T) {
	ss := elicitingSession(t)
	q := permission.NetworkQuestion{Host: "example.com", Port: 443, Rule: "example.com:443", Tool: "Bash", Describe: "npm install"}
	for _, c := range []struct {
		name string
		res  *mcp.ElicitResult
		want permission.Answer
	}{
		{"session", &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": networkSession}}, permission.AnswerAllowSession},
		{"always", &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": networkAlways}}, permission.AnswerAllowAlways},
		{"deny", &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": networkDeny}}, permission.AnswerDeny},
		{"a permission answer", &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": answerOnce}}, permission.AnswerDeny},
		{"decline", &mcp.ElicitResult{Action: "decline", Content: map[string]any{"decision": networkAlways}}, permission.AnswerDeny},
	} {
		ask := &mcpAsk{session: ss, questions: make(chan *question)}
		ctx := context.WithValue(context.Background(), askKey{}, ask)
		type reply struct {
			a   permission.Answer
			err error
		}
		got := make(chan reply, 1)
		go func() {
			a, err := prompter{}.PromptNetwork(ctx, q)
			got <- reply{a, err}
		}()
		asked := <-ask.questions
		if asked.input != networkInput || !strings.HasPrefix(asked.params.Message, "riot: a command of Bash (npm install) wants to connect to example.com:443") {
			t.Errorf("%s: the question %q: %s", c.name, asked.input, asked.params.Message)
		}
		asked.answer <- c.res
		if r := <-got; r.a != c.want || r.err != nil {
			t.Errorf("%s: %v %v, want %v", c.name, r.a, r.err, c.want)
		}
	}
	// Without a client that takes elicitation, or outside a call, no one
	// can be asked.
	for _, ask := range []*mcpAsk{{questions: make(chan *question)}, nil} {
		ctx := context.Background()
		if ask != nil {
			ctx = context.WithValue(ctx, askKey{}, ask)
		}
		if a, err := (prompter{}).PromptNetwork(ctx, q); a != permission.AnswerDeny || !errors.Is(err, permission.ErrCannotAsk) {
			t.Errorf("no one to ask: %v %v", a, err)
		}
	}
}
