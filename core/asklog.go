package core

import (
	"context"

	"github.com/riot-tools/riot/core/permission"
	"github.com/riot-tools/riot/core/session"
)

// recordAsk keeps a question the chain asked at step and its answer d in
// the session's state, for `riot permissions suggest`. A question the
// caller gave up on (the turn was cancelled) is no answer and is not kept.
func (h *Host) recordAsk(ctx context.Context, req permission.Request, step permission.Step, d permission.Decision) {
	if ctx.Err() != nil {
		return
	}
	a := session.Ask{At: h.now().UTC(), Tool: req.Tool, ReadOnly: req.ReadOnly, Step: step.String(), Allowed: d.Behavior == permission.Allow, ByUser: d.ByUser}
	for _, s := range req.Subjects {
		a.Subjects = append(a.Subjects, session.AskSubject{Kind: subjectKind(s.Kind), Value: s.Value, Access: accessName(s)})
	}
	if err := h.state.RecordAsk(a); err != nil {
		h.log.Warn("cannot record the question in the session's state", "error", err)
	}
}

func subjectKind(k permission.SubjectKind) string {
	switch k {
	case permission.CommandSubject:
		return "command"
	case permission.PathSubject:
		return "path"
	case permission.UnknownSubject:
	}
	return "unknown"
}

func accessName(s permission.Subject) string {
	if s.Kind != permission.PathSubject {
		return ""
	}
	if s.Access == permission.Read {
		return "read"
	}
	return "write"
}
