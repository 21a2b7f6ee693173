package plugin

import "github.com/riot-tools/riot/shared"

// A host may guess a call's Prepare answer (the last one the tool gave it)
// and send one Call that carries the guess (CallRequest.Expect) instead of
// a Prepare and then a Call. The SDK honours that for every tool it
// serves, and says so in the manifest (ToolSpec.HonoursExpect): the Call
// is answered as an unprepared one, its own answer first, from the same
// checks Prepare runs (Server.unprepared), and the tool runs only when
// that answer is the expected one but for its description
// (shared.SameAnswer). Otherwise the stream ends with a failed Final that
// carries nothing else, and the host judges the answer it got, as if
// Prepare had given it.

// isUnprepared: the host sent the Call without a Prepare, with or without
// an expected answer.
func isUnprepared(req *shared.CallRequest) bool {
	return req.Unprepared || req.Expect != nil
}

// missesExpectation: the host expected an answer, and resp, which accepts
// the input, is not it. The tool must not run.
func missesExpectation(req *shared.CallRequest, resp shared.PrepareAnswer) bool {
	return req.Expect != nil && !shared.SameAnswer(resp, *req.Expect)
}
