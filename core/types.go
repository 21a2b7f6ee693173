package core

import (
	"encoding/json"
	"strings"
	"time"

	toolv1 "github.com/riot-tools/riot/shared/proto/riot/tool/v1"
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

// ToolInfo is one tool as the model sees it in tools[].
type ToolInfo struct {
	Name        string
	Description string
	InputSchema json.RawMessage
	// Plugin is the name of the plugin that serves it.
	Plugin string
	// Annotations are what the tool declares of every call, for clients
	// that show or gate tools; the zero value is the conservative reading.
	Annotations Annotations
}

// Annotations are the static properties a tool declares of every call
// (plugin.Annotations), hints for a UI and never a permission.
type Annotations struct {
	Title          string
	ReadOnly       bool
	NonDestructive bool
	Idempotent     bool
	Local          bool
}

func annotationsOf(a *toolv1.Annotations) Annotations {
	return Annotations{
		Title: a.GetTitle(), ReadOnly: a.GetReadOnly(), NonDestructive: a.GetNonDestructive(),
		Idempotent: a.GetIdempotent(), Local: a.GetLocal(),
	}
}

func textResult(use ToolUse, status Status, text string) ToolResult {
	return ToolResult{ToolUseID: use.ID, Name: use.Name, Status: status, Content: []Block{{Type: "text", Text: text}}}
}
