package mcpsource

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/riot-tools/riot/internal/jsonschema"
	"github.com/riot-tools/riot/shared"
)

// ErrNoOneToAsk is what an Elicitor returns when there is no one to put a
// server's question to: no terminal, or an MCP client without elicitation.
var ErrNoOneToAsk = errors.New("mcpsource: no one to ask")

// ErrFormTooNew is what an Elicitor returns when whom it would ask cannot
// show the question's form: an MCP client on a revision before the form's
// fields (multi-select, 2025-11-25).
var ErrFormTooNew = errors.New("mcpsource: the form is newer than the client")

// callKey marks the context of a call, so that an elicitation during the
// call reaches the prompter through the call's context: in `riot mcp`,
// that is where the question finds its way to the client.
type callKey struct{}

// callState is one call in flight: its context, and the notes for the
// model about questions riot could not put to the user.
type callState struct {
	ctx   context.Context
	mu    sync.Mutex
	notes []string
	// token is the progress token the call was sent with (set before the
	// call is registered, never changed); send passes the server's
	// progress on until the call is finished.
	token    string
	send     func(shared.CallEvent) error
	finished bool
	// idle, if set, is the call's idle_timeout, which the server's
	// progress restarts and a question to the user pauses.
	idle *idleWatch
}

// progress passes a progress line of the server's on, while the call runs.
func (c *callState) progress(line string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.finished || c.send == nil {
		return
	}
	c.idle.heard()
	_ = c.send(shared.CallEvent{Progress: &shared.Progress{Message: line}})
}

// finish ends the progress: the call's own events follow.
func (c *callState) finish() {
	c.mu.Lock()
	c.finished = true
	c.mu.Unlock()
}

func (c *callState) note(s string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.notes) < 3 && !containsString(c.notes, s) {
		c.notes = append(c.notes, s)
	}
}

func (c *callState) taken() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.notes
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// begin registers a call in flight, with its progress token and where its
// progress goes, and returns its context.
func (s *Source) begin(ctx context.Context, token string, send func(shared.CallEvent) error, idle *idleWatch) (context.Context, *callState, func()) {
	cs := &callState{token: token, send: send, idle: idle}
	ctx = context.WithValue(ctx, callKey{}, cs)
	cs.ctx = ctx
	s.mu.Lock()
	s.calls = append(s.calls, cs)
	s.mu.Unlock()
	return ctx, cs, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		for i, c := range s.calls {
			if c == cs {
				s.calls = append(s.calls[:i], s.calls[i+1:]...)
				break
			}
		}
	}
}

// callOf finds the call an elicitation belongs to: the one whose context
// it came with (a multi round-trip question, which the client answers
// within the call), or else the only call of the server in flight. With
// several in flight, nothing tells which one asks (stdio carries no link
// from a server's request to the call it serves).
func (s *Source) callOf(ctx context.Context) (*callState, int) {
	if cs, ok := ctx.Value(callKey{}).(*callState); ok {
		return cs, 1
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	// A call already cancelled asks no one.
	var live []*callState
	for _, c := range s.calls {
		if c.ctx.Err() == nil {
			live = append(live, c)
		}
	}
	if len(live) == 1 {
		return live[0], 1
	}
	return nil, len(live)
}

// elicit answers the server's elicitation/create through the user's
// prompter, with the call's context, so that under `riot mcp` the question
// goes up to riot's client. It fails closed: a question riot cannot show
// or cannot put to anyone is declined, and so is an answer that does not
// fit the form the server asked for; a cancelled call cancels. Where riot
// declines on its own, the call's result says so to the model.
func (s *Source) elicit(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	cs, inFlight := s.callOf(ctx)
	p := req.Params
	question := ""
	if p != nil {
		question = quoteServer(p.Message)
	}
	decline := func(why string) (*mcp.ElicitResult, error) {
		s.opts.Log.Debug("elicitation declined", "server", s.name, "why", why)
		if cs != nil && why != "" {
			cs.note(fmt.Sprintf("The %s MCP server asked the user %s, and riot declined it for the user: %s.", s.name, question, why))
		}
		return &mcp.ElicitResult{Action: "decline"}, nil
	}
	switch {
	case p == nil:
		return decline("")
	case p.Mode == "url":
		return decline("riot does not show a server's links to the user. If the call needs what the server asked for, tell the user")
	case inFlight > 1:
		return decline(fmt.Sprintf("%d calls of this server ran at once, and riot cannot tell which one asked. Call it alone to be asked", inFlight))
	}
	schema, form, err := elicitForm(p.RequestedSchema)
	if err != nil {
		return decline("its question's form is not one riot can ask (" + err.Error() + ")")
	}
	if s.opts.Elicitor == nil {
		return decline(noOneToAsk)
	}
	askCtx, done := ctx, func() {}
	if cs != nil {
		// The server waits on the user, not the other way round.
		defer cs.idle.pause()()
		// The call's values (in `riot mcp`, the way to its client), ended
		// by the call's end and by the server's withdrawing the question.
		var cancel context.CancelFunc
		askCtx, cancel = context.WithCancel(cs.ctx)
		stop := context.AfterFunc(ctx, cancel)
		done = func() { stop(); cancel() }
	}
	defer done()
	action, content, err := s.opts.Elicitor.Elicit(askCtx, fmt.Sprintf("the %s MCP server", s.name), p.Message, schema)
	switch {
	case askCtx.Err() != nil:
		return &mcp.ElicitResult{Action: "cancel"}, nil
	case errors.Is(err, ErrNoOneToAsk):
		return decline(noOneToAsk)
	case errors.Is(err, ErrFormTooNew):
		return decline("the user's MCP client speaks a protocol revision that cannot show this question's form (multi-select fields need 2025-11-25 or later). If the call needs the answer, ask the user yourself")
	case err != nil:
		s.opts.Log.Debug("elicitation not answered", "server", s.name, "error", err)
		return decline("riot could not ask the user")
	}
	switch action {
	case "accept":
		if why := form.check(content); why != "" {
			return decline("the answer did not fit the form the server asked for (" + why + "), so riot did not pass it on")
		}
		return &mcp.ElicitResult{Action: "accept", Content: content}, nil
	case "cancel":
		return &mcp.ElicitResult{Action: "cancel"}, nil
	default:
		return &mcp.ElicitResult{Action: "decline"}, nil
	}
}

const noOneToAsk = "no one could answer it here (no terminal, and no MCP client that takes questions). If the call needs the answer, ask the user yourself, or tell them to run it where riot can ask"

// form is a compiled elicitation schema.
type form struct {
	schema *jsonschema.Schema
	props  map[string]bool
}

// elicitForm checks that a requested schema is what MCP allows, a flat
// object of strings, numbers, integers, booleans and multi-selects of
// strings, and compiles it, with no loader: a reference outside the
// schema is an error, never a fetch.
func elicitForm(requested any) (json.RawMessage, *form, error) {
	raw, err := json.Marshal(requested)
	if err != nil {
		return nil, nil, errors.New("not JSON")
	}
	var shape struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(raw, &shape); err != nil || shape.Type != "object" {
		return nil, nil, errors.New("not an object schema")
	}
	f := &form{props: map[string]bool{}}
	for name, prop := range shape.Properties {
		var ps struct {
			Type  string          `json:"type"`
			Items json.RawMessage `json:"items"`
		}
		if err := json.Unmarshal(prop, &ps); err != nil {
			return nil, nil, fmt.Errorf("field %q is not a schema", name)
		}
		switch ps.Type {
		case "string", "number", "integer", "boolean":
		case "array":
			if !multiSelect(ps.Items) {
				return nil, nil, fmt.Errorf("field %q is an array but not a multi-select of strings (items with enum, or anyOf of const)", name)
			}
		default:
			return nil, nil, fmt.Errorf("field %q is not a string, number, integer, boolean or multi-select", name)
		}
		f.props[name] = true
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, nil, errors.New("not JSON")
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	const url = "riot:///elicitation.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, nil, errors.New("not a valid schema")
	}
	if f.schema, err = c.Compile(url); err != nil {
		return nil, nil, errors.New("not a valid schema")
	}
	return raw, f, nil
}

// multiSelect reports whether an array field's items are what MCP allows
// since 2025-11-25: strings from an enum, or from anyOf options each a
// const string (with its title).
func multiSelect(items json.RawMessage) bool {
	var it struct {
		Type  string `json:"type"`
		Enum  []any  `json:"enum"`
		AnyOf []struct {
			Const any `json:"const"`
		} `json:"anyOf"`
	}
	if json.Unmarshal(items, &it) != nil {
		return false
	}
	var values []any
	switch {
	case len(it.Enum) > 0 && it.Type == "string" && len(it.AnyOf) == 0:
		values = it.Enum
	case len(it.AnyOf) > 0 && len(it.Enum) == 0 && (it.Type == "" || it.Type == "string"):
		for _, o := range it.AnyOf {
			values = append(values, o.Const)
		}
	default:
		return false
	}
	for _, v := range values {
		if _, ok := v.(string); !ok {
			return false
		}
	}
	return true
}

// noLoader loads nothing.
type noLoader struct{}

func (noLoader) Load(string) (any, error) { return nil, errors.New("no references outside the schema") }

// check says why content does not fit the form, or "" when it does. A
// field the form does not name does not fit either.
func (f *form) check(content map[string]any) string {
	var extra []string
	for k := range content {
		if !f.props[k] {
			extra = append(extra, fmt.Sprintf("%q", k))
		}
	}
	if len(extra) > 0 {
		return "it has fields the form does not ask for: " + strings.Join(extra, ", ")
	}
	// Through JSON, so numbers are what the schema library expects.
	b, err := json.Marshal(content)
	if err != nil {
		return "it is not JSON"
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return "it is not JSON"
	}
	if err := f.schema.Validate(v); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return "a field is missing or of the wrong kind"
		}
		return "it does not validate"
	}
	return ""
}
