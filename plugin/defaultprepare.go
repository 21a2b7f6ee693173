package plugin

import (
	"context"

	"github.com/riot-tools/riot/shared"
)

// A tool's Prepare answer is the default one when the tool implements none
// of the optional interfaces that shape it: then, for every input it
// accepts, the answer is Describe(in) and nothing else. The manifest says
// so (ToolSpec.DefaultPrepare), and the host skips the Prepare exchange:
// it sends the Call unprepared, and the answer comes first on the Call's
// stream, from the same checks, before the tool runs (Server.Call).

// hasDefaultPrepare reports whether t's Prepare answer is fixed but for
// its Describe. Every interface typed.prepare consults is listed: one
// more there must be added here, or the host would decide on an answer
// the tool does not give.
func hasDefaultPrepare[In any](t Tool[In]) bool {
	switch t.(type) {
	case ReadOnlyChecker[In], ConcurrencyChecker[In], Classifiable[In], EnvClassifiable[In],
		PermissionChecker[In], SubjectLister[In], InputValidator[In]:
		return false
	}
	return true
}

func (h *typed[In]) unprepared(ctx context.Context, raw []byte, env *Env) (shared.PrepareAnswer, func() Outcome) {
	if !h.defaultPrepare {
		// A host that sends an unprepared Call for a tool the manifest did
		// not declare gets the full answer: the tool's checks still ran.
		// (A rejection is not run: Server.unprepared sees to it.)
		return h.prepare(ctx, raw, env), func() Outcome { return h.call(ctx, raw, env) }
	}
	in, rejected := decodeInput[In](raw, h.fields)
	if rejected != "" {
		return shared.PrepareAnswer{Rejected: rejected}, nil
	}
	return shared.DefaultAnswer(h.tool.Describe(in)), func() Outcome { return h.tool.Call(ctx, in, env) }
}

// unprepared answers the Prepare part of a Call the host sent without one:
// it sends Prepare's answer as the stream's first event and returns the
// call to run, or, when the answer rejects the input, ends the stream with
// a Final that fails with the same correction and returns nil; so too,
// with no correction, when the answer is not the one the host expected. A
// panic while checking is Prepare's rejection too.
func (s *Server) unprepared(ctx context.Context, h Handler, req *shared.CallRequest, env *Env, snd *sender) func() Outcome {
	resp, run := func() (resp shared.PrepareAnswer, run func() Outcome) {
		defer s.preparePanic(req.Tool, req.CallID, &resp)
		if h == nil {
			return shared.PrepareAnswer{Rejected: s.unknownTool(req.Tool)}, nil
		}
		return h.unprepared(ctx, req.Input, env)
	}()
	if resp.Rejected != "" {
		run = nil
	}
	// An answer other than the one the host expected ends the stream
	// without running the tool: a failed Final with nothing in it
	// (speculate.go).
	if snd.event(shared.CallEvent{Prepared: &resp}) != nil || run == nil || missesExpectation(req, resp) {
		if snd.err == nil {
			_ = snd.event(final(Failed(resp.Rejected), s.rt.Log))
		}
		return nil
	}
	return run
}
