package core

import "context"

// Runner is a riot session as an agent uses it: the tools to show the
// model, one turn of calls at a time, and Close. The local Host is one;
// package remote's Client, a session served by `riot mcp --listen`
// elsewhere, is another, so that a harness switches by configuration.
type Runner interface {
	// Tools lists the tools the model sees, in tools[] order.
	Tools() []ToolInfo
	// RunTurn runs one assistant turn's calls and returns one result per
	// call, in input order; it never fails, every problem is a result.
	RunTurn(ctx context.Context, uses []ToolUse) []ToolResult
	// Close ends the session's use by this process.
	Close() error
}

var _ Runner = (*Host)(nil)
