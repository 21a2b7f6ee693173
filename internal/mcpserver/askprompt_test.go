package mcpserver

import (
	"context"
	"errors"
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
