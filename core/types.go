package core

import (
	"encoding/json"

	"github.com/riot-tools/riot/core/toolcall"
	"github.com/riot-tools/riot/shared"
)

// The data of a turn are package toolcall's, which the session host's wire
// uses without linking the host.
type (
	// ToolUse is one tool call from the model.
	ToolUse = toolcall.ToolUse
	// Status is how a call ended.
	Status = toolcall.Status
	// Block is one block of a result's model content.
	Block = toolcall.Block
	// ToolResult is the result of one ToolUse, in the turn's order.
	ToolResult = toolcall.ToolResult
	// Spill describes model content written to a file instead of the
	// context.
	Spill = toolcall.Spill
	// TurnStop is why a call stopped the rest of its turn.
	TurnStop = toolcall.TurnStop
	// Progress is one event of a running call, for a UI.
	Progress = toolcall.Progress
)

const (
	StatusOK        = toolcall.StatusOK
	StatusFailed    = toolcall.StatusFailed
	StatusDenied    = toolcall.StatusDenied
	StatusCancelled = toolcall.StatusCancelled
)

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
	// OutputSchema, if set, is the JSON Schema of the tool's structured
	// result: an ok result's UI payload is valid against it.
	OutputSchema json.RawMessage
	// Deferred says the tool is left out of the model's first view of
	// tools[] until ToolSearch finds it (Options.ToolSearch).
	Deferred bool
	// Cascades says a failed call of it cancels the rest of its turn.
	Cascades bool
}

// Annotations are the static properties a tool declares of every call
// (plugin.Annotations), hints for a UI and never a permission.
type Annotations = shared.Annotations

// annotationsOf reads a tool's annotations; none is the conservative
// reading of each.
func annotationsOf(a *shared.Annotations) Annotations {
	if a == nil {
		return Annotations{}
	}
	return *a
}

func textResult(use ToolUse, status Status, text string) ToolResult {
	return ToolResult{ToolUseID: use.ID, Name: use.Name, Status: status, Content: []Block{{Type: "text", Text: text}}}
}
