package core

import (
	"context"

	"github.com/riot-tools/riot/shared"
)

// A tool whose manifest declares the default Prepare answer
// (ToolSpec.default_prepare) answers every input it accepts with its
// description and nothing else, so the permission chain's input is known
// without asking: such a call is checked with that answer and, when the
// chain allows it, sent as one unprepared Call, whose stream begins with
// the plugin's answer to the check. Whatever needs the answer's content
// before the call runs asks the plugin's Prepare first (unelide): the
// PreToolUse hooks, which see only inputs the tool accepts; a Deny's reason
// and an Ask's prompt, which show the description; a sandbox refusal,
// which comes after a rejection. The answer on the stream gives the
// description to progress and the result, and a rejection there is the
// result Prepare's would have been: the tool does not run.

// unelide asks the plugin's Prepare for an elided call, as a call of a
// tool without the declaration is asked. It reports whether the call may
// go on; if not, its result is set.
func (h *Host) unelide(ctx context.Context, c *call) bool {
	c.elided, c.expect = false, nil
	if !h.prepareRPC(ctx, c) {
		c.unrun = true
		return false
	}
	return true
}

// hasPreToolUse reports whether any PreToolUse hook matches the tool.
func (h *Host) hasPreToolUse(tool string) bool {
	return len(matching(h.cfg.Hooks.PreToolUse, tool)) > 0
}

// answer is the plugin's answer to the check of an unprepared call: the
// first event of its stream.
type answer struct {
	c    *call
	prep *shared.PrepareAnswer
	// expect is the guessed answer the call was judged with
	// (speculate.go); nil for the default one. missed: the answer accepted
	// the input and is not the guess, so the tool did not run.
	expect *shared.PrepareAnswer
	missed bool
}

// take reads ev as the answer, or checks it against the answer already
// taken. took: ev was the answer. An answer other than first, twice, or
// other than the default the manifest declared breaks the protocol; so
// does anything but an empty failed Final after an answer that is not the
// guess, since the tool must not have run.
func (a *answer) take(ev shared.CallEvent) (took bool, err error) {
	p := ev.Prepared
	switch {
	case a.prep == nil && p == nil:
		return false, &malformedError{Why: "a stream that did not begin with the answer to the check of the input"}
	case a.prep != nil && p != nil:
		return false, &malformedError{Why: "a second answer to the check of the input"}
	case a.prep != nil:
		return false, a.afterUnrun(ev)
	case a.expect == nil && !shared.IsDefaultAnswer(*p):
		return false, &malformedError{Why: "an answer to the check of the input other than the default one its manifest declares"}
	}
	a.prep = p
	switch {
	case a.rejected():
	case a.expect != nil && !shared.SameAnswer(*p, *a.expect):
		// The tool's own answer, which says whether a stream that goes on
		// regardless may have changed anything.
		a.missed = true
		a.c.prep = p
	default:
		a.c.prep = p
		a.c.result.Describe = p.Describe
	}
	return true, nil
}

// afterUnrun checks an event after an answer on which the tool does not
// run: only a Final may follow, and after a miss, one that reports
// nothing.
func (a *answer) afterUnrun(ev shared.CallEvent) error {
	f := ev.Final
	switch {
	case a.rejected() && f == nil:
		return &malformedError{Why: "output after rejecting the input"}
	case !a.missed:
		return nil
	case f == nil:
		return &malformedError{Why: "output after an answer to the check of the input other than the one riot expected, on which the tool must not run"}
	case f.Status == shared.StatusOK || f.Message != "" || len(f.StateUpdates) > 0 || len(f.UIPayload) > 0:
		return &malformedError{Why: "a call that reports a result after an answer to the check of the input other than the one riot expected, on which the tool must not run"}
	}
	return nil
}

// started: the answer came, accepted the input, and the tool runs.
func (a *answer) started() bool { return a.prep != nil && a.prep.Rejected == "" && !a.missed }

// rejected: the answer came and rejected the input.
func (a *answer) rejected() bool { return a.prep != nil && a.prep.Rejected != "" }

// unanswered: the stream failed with err before the answer came, not by
// breaking the protocol.
func (a *answer) unanswered(err error, fault rpcFault) bool {
	return a.prep == nil && err != nil && fault != faultMalformed
}
