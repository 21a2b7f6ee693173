// Package toolcall holds the data of a turn that crosses process
// boundaries: the model's tool uses, their results, and the progress of a
// running call. Package core's types of the same names are these, so that
// the session host's wire and the CLI's turn input and output use them
// without linking the host.
package toolcall

import (
	"encoding/json"
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
