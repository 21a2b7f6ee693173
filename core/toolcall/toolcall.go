// Package toolcall holds the data of a turn that crosses process
// boundaries: the model's tool uses, their results, and the progress of a
// running call. Package core's types of the same names are these, so that
// the session host's wire and the CLI's turn input and output use them
// without linking the host.
package toolcall

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// ToolUse is one tool call from the model.
type ToolUse struct {
	ID    string
	Name  string
	Input json.RawMessage
}

// Status is how a call ended.
type Status string

const (
	StatusOK        Status = "ok"
	StatusFailed    Status = "failed"
	StatusDenied    Status = "denied"
	StatusCancelled Status = "cancelled"
)

// Block is one block of a result's model content.
type Block struct {
	// Type is "text" or "image".
	Type      string
	Text      string
	MediaType string
	Data      []byte
}

// ToolResult is the result of one ToolUse, in the turn's order.
type ToolResult struct {
	ToolUseID string
	Name      string
	Status    Status
	// Content is what the model sees: text (the output, or a preview of a
	// spilled output, then the tool's note or failure message) and images.
	Content []Block
	// Describe is the call's one-line description for a UI; empty when the
	// call never reached its tool.
	Describe string
	// UI is the tool's structured UI payload, if any.
	UI json.RawMessage
	// Spill says where an over-budget output went; nil when it fit.
	Spill *Spill
	// Duration is how long the call ran.
	Duration time.Duration
	// StopsTurn is set when this call stopped the rest of its turn: what a
	// client that runs a turn call by call (the remote client) tells the
	// calls after it, as the host does.
	StopsTurn *TurnStop `json:",omitempty"`
}

// TurnStop is why a call stopped the rest of its turn: its cascading tool
// failed, or a hook said continue: false.
type TurnStop struct {
	// ID, Tool and Describe are the call's.
	ID, Tool, Describe string
	// Cause is the failure in a few words, or the hook's reason.
	Cause string
	// Hook names the hook that stopped the turn ("the PostToolUse hook
	// `x`"); empty for a failure.
	Hook string `json:",omitempty"`
}

func (s *TurnStop) subject() string {
	if s.Describe == "" {
		return fmt.Sprintf("%s call %s", s.Tool, s.ID)
	}
	return fmt.Sprintf("%s call %s (`%s`)", s.Tool, s.ID, s.Describe)
}

// NotRun is the result text of a call the stop came before it began.
func (s *TurnStop) NotRun() string {
	if s.Hook != "" {
		return fmt.Sprintf("Not run: %s stopped this turn on %s call %s: %s. Do not re-issue this call until the user says to go on.", s.Hook, s.Tool, s.ID, s.Cause)
	}
	return fmt.Sprintf("Not run: %s failed: %s. Re-issue this call if it does not depend on that one.", s.subject(), s.Cause)
}

// Stopped is the result text of a call the stop cancelled while it ran.
func (s *TurnStop) Stopped() string {
	if s.Hook != "" {
		return fmt.Sprintf("Cancelled while running: %s stopped this turn on %s call %s: %s. This call was stopped and may have partially run; do not re-issue it until the user says to go on.", s.Hook, s.Tool, s.ID, s.Cause)
	}
	return fmt.Sprintf("Cancelled while running: %s failed: %s. This call was stopped and may have partially run; re-issue it if it does not depend on that one.", s.subject(), s.Cause)
}

// IsError reports whether the result goes back with is_error: every status
// but ok.
func (r ToolResult) IsError() bool { return r.Status != StatusOK }

// Text is the text of every text block, joined.
func (r ToolResult) Text() string {
	var b strings.Builder
	for _, blk := range r.Content {
		if blk.Type == "text" {
			b.WriteString(blk.Text)
		}
	}
	return b.String()
}

// Spill describes model content written to a file instead of the context.
type Spill struct {
	Path  string
	Chars int64
	Lines int64
	Bytes int64
}

// Progress is one event of a running call, for a UI.
type Progress struct {
	CallID   string
	Tool     string
	Describe string
	// Phase is "start", "progress" or "end".
	Phase   string
	Message string
	Elapsed time.Duration
}
