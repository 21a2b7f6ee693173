package core

import (
	"bytes"
	"context"
	"slices"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/shared"
)

// A speculated Prepare: elision (elide.go) with a guessed answer in place
// of the default one. A tool's calls tend to get the same answer (a no-op
// is always read-only and concurrency-safe), so the host keeps, per tool,
// the last answer it accepted from the tool's Prepare, its description
// cleared (tool.expected), and judges a later call with it, exactly as an
// elided call is judged with the default answer: whatever needs the real
// answer first (a matching PreToolUse hook, a Deny, an Ask, a sandbox that
// cannot start) asks Prepare first, and only a call the chain allows
// outright is sent as one Call carrying the guess (CallRequest.expect).
// The plugin answers first on the stream, as for any unprepared Call, and
// runs the tool only when its answer is the guess but for the description
// (shared.SameAnswer). When it is not, the stream ends with a failed Final
// that carries nothing else, and the host judges the call on the answer it
// got, then sends it prepared (retry): the decisions, prompts and texts of
// a call whose Prepare was asked, at the cost of its two exchanges.
//
// A tool whose answers change from call to call (Read's subjects name its
// path) would have most guesses missed, and a miss costs the host a Call
// set up for nothing: the guess is made only while the tool's answers are
// steady, that is, while its last answer was the same as the one before
// it (or was its first). A miss, or any changed answer, stops the guessing
// until the tool answers the same twice in a row.
//
// Only a plugin whose manifest says it honours the guess
// (ToolSpec.honours_expect) is sent one: an older plugin would run the
// call whatever its answer.
//
// Scheduling: a call is guessed only when it runs alone whatever its
// answer, that is, when it is checked with no group before it and is the
// turn's last call, or at most one call runs at a time
// (limits.max_parallel = 1) (nextGroup). The answer decides whether a call
// joins a concurrency-safe group and whether the calls after it are
// checked and judged before it runs, so a call whose answer is not known
// could be put beside calls it must not run with; a call that runs alone
// cannot, and a wrong guess then runs alone too, as the right answer would
// have had it.
//
// Auto mode's classifier is a process of its own, consulted with the
// answer's classifier input: a guess that carries one is not made in auto
// mode, so that a wrong guess never has the classifier judge an input the
// tool did not give, nor judge a call twice.

// guess sets up c to be judged with its tool's expected answer, when the
// tool's plugin honours one and there is one. It reports whether it did.
func (h *Host) guess(c *call) bool {
	if !c.tool.spec.HonoursExpect {
		return false
	}
	x := c.tool.expected.Load()
	if x == nil || !x.steady || x.answer.ClassifierInput != "" && h.policy.Mode() == config.ModeAuto {
		return false
	}
	c.prep, c.expect, c.elided = x.answer, x.answer, true
	return true
}

// expectation is the last answer the host accepted from a tool's Prepare,
// without its description, and whether the tool's answers are steady: it
// was the tool's first, or the same as the one before it.
type expectation struct {
	answer *shared.PrepareAnswer
	steady bool
}

// remember keeps p, an answer t's Prepare gave and the host accepted, as
// the answer to expect of t's next call. It is kept without its
// description and is never changed afterwards: calls share it.
func (t *tool) remember(p *shared.PrepareAnswer) {
	if !t.spec.HonoursExpect {
		return
	}
	old := t.expected.Load()
	if old != nil && shared.SameAnswer(*old.answer, *p) {
		if !old.steady {
			t.expected.Store(&expectation{answer: old.answer, steady: true})
		}
		return
	}
	e := *p
	e.Describe = ""
	e.Subjects, e.Unknown = slices.Clone(p.Subjects), bytes.Clone(p.Unknown)
	t.expected.Store(&expectation{answer: &e, steady: old == nil})
}

// missed records the plugin's answer p to a call whose guess it is not:
// the call did not run, and is to be judged on p (retry).
func (c *call) missed(p *shared.PrepareAnswer) {
	c.tool.remember(p)
	c.prep, c.expect, c.elided = p, nil, false
	c.result.Describe = p.Describe
	c.retry, c.unrun = true, true
}

// missedAfterAsking: the call was guessed with e, the plugin's Prepare has
// since answered it (unelide), and the answer is not e. Then the call is
// to be judged on that answer (retry).
func (c *call) missedAfterAsking(e *shared.PrepareAnswer) bool {
	if e == nil || shared.SameAnswer(*c.prep, *e) {
		return false
	}
	c.retry, c.unrun = true, true
	return true
}

// retry judges a call whose guess was wrong on the answer the plugin gave,
// and runs it prepared when the chain allows it, as the call would have
// gone had Prepare given that answer. The call runs alone (nextGroup), so
// nothing else runs meanwhile that its answer would have kept from it.
func (h *Host) retry(ctx context.Context, c *call) {
	c.retry, c.unrun = false, false
	if h.judge(ctx, c); c.done {
		// Ended where its judgement would have: it did not run.
		c.unrun = true
		return
	}
	h.execute(ctx, c)
}
