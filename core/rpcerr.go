package core

import (
	"errors"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/riot-tools/riot/shared"
)

// rpcFault is how an RPC to a plugin went wrong, other than by the
// caller's cancellation or deadline. Each is told apart because each calls
// for something else: a crash for a restart, an error status for another
// input, a message over the limit for less output.
type rpcFault int

const (
	// faultCrash: the connection broke, the process died or dropped it.
	faultCrash rpcFault = iota
	// faultNoFinal: the Call stream ended cleanly without its Final event.
	faultNoFinal
	// faultOverLimit: a message was over shared.MaxMessageSize.
	faultOverLimit
	// faultStatus: the plugin answered with a gRPC error status instead of
	// a result.
	faultStatus
	// faultMalformed: the plugin sent output that breaks the protocol.
	faultMalformed
)

// faultOf reads err, which a ToolPlugin stub returned, as a fault, with
// the gRPC code of a status.
func faultOf(err error) (rpcFault, codes.Code) {
	if errors.Is(err, shared.ErrNoFinal) {
		return faultNoFinal, codes.OK
	}
	var bad *malformedError
	if errors.As(err, &bad) {
		return faultMalformed, codes.OK
	}
	st, ok := status.FromError(err)
	if !ok {
		return faultCrash, codes.Unknown
	}
	switch st.Code() {
	case codes.Unavailable:
		return faultCrash, st.Code()
	case codes.ResourceExhausted:
		return faultOverLimit, st.Code()
	default:
		return faultStatus, st.Code()
	}
}

// malformedError is plugin output that breaks the wire contract; Why says
// how, for the model.
type malformedError struct{ Why string }

func (e *malformedError) Error() string { return "malformed plugin output: " + e.Why }

// limitText is the message size limit, for messages.
func limitText() string { return sizeText(shared.MaxMessageSize) }

// partialRun is what a call that failed midway may have left behind.
func partialRun(readOnly bool) string {
	if readOnly {
		return ""
	}
	return " It may have partially run; check the state it would have changed."
}

// callFaultMessage is the result text of a Call that failed by fault f.
func callFaultMessage(tool string, f rpcFault, code codes.Code, why string, readOnly bool) string {
	switch f {
	case faultNoFinal:
		return fmt.Sprintf("The %s tool ended its output without a final result, so riot cannot tell whether this call succeeded; its plugin is broken.%s Do not retry this input unchanged: use another tool or approach, and tell the user the tool's plugin needs fixing.", tool, partialRun(readOnly))
	case faultOverLimit:
		return fmt.Sprintf("The %s tool sent a message over riot's %s per-message limit, so riot stopped reading this call's result.%s Ask it for less output (a narrower command, range or pattern), or use another tool.", tool, limitText(), partialRun(readOnly))
	case faultMalformed:
		return fmt.Sprintf("The %s tool sent malformed output (%s), so riot discarded this call's result; its plugin is broken.%s Do not retry this input unchanged: use another tool or approach, and tell the user the tool's plugin needs fixing.", tool, why, partialRun(readOnly))
	default:
		return fmt.Sprintf("The %s tool's plugin answered this call with an error (gRPC status %s) instead of a result; its text is in riot's log.%s Do not retry this input unchanged: use another tool or approach.", tool, code, partialRun(readOnly))
	}
}

// prepareFaultMessage is the result text of a Prepare that failed by
// fault f other than a crash; the call did not run.
func prepareFaultMessage(tool string, f rpcFault, code codes.Code) string {
	switch f {
	case faultOverLimit:
		return fmt.Sprintf("The %s tool's answer to checking this call was over riot's %s per-message limit, so the call did not run. Do not retry this input unchanged: use another tool or approach.", tool, limitText())
	default:
		return fmt.Sprintf("The %s tool failed while checking this call (its plugin answered with gRPC status %s instead of a verdict; its text is in riot's log), so the call did not run. Do not retry this input unchanged: use another tool or approach.", tool, code)
	}
}

// manifestFaultMessage is why a plugin's tools are missing when it could
// not list them.
func manifestFaultMessage(plugin string, f rpcFault, code codes.Code, how, logFile string) string {
	switch f {
	case faultOverLimit:
		return fmt.Sprintf("The %s plugin's tool list (its manifest) is over riot's %s message limit, so riot cannot list its tools. Its tools' prompts and schemas must be smaller: fix the plugin, or disable [plugins.%s] in the riot config.", plugin, limitText(), plugin)
	case faultStatus:
		return fmt.Sprintf("The %s plugin answered the request for its tool list with an error (gRPC status %s) instead of a manifest. Fix the plugin, or disable [plugins.%s] in the riot config; its text is in the log at %s.", plugin, code, plugin, logFile)
	default:
		return fmt.Sprintf("The %s plugin stopped before listing its tools (%s). See the log at %s.", plugin, how, logFile)
	}
}
