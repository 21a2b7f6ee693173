package hook

import (
	"encoding/json"
	"strings"
)

// Output is the JSON a handler may answer with: Claude Code's fields for
// every event, and the event's own under hookSpecificOutput.
type Output struct {
	// Continue false stops what follows (for riot: the rest of the
	// turn), with StopReason; nil and true go on.
	Continue   *bool  `json:"continue"`
	StopReason string `json:"stopReason"`
	// SuppressOutput keeps the handler's stdout out of the log.
	SuppressOutput bool `json:"suppressOutput"`
	// SystemMessage is for the user, never the model.
	SystemMessage string `json:"systemMessage"`
	// Decision and Reason are the older top-level decision: "approve" or
	// "block".
	Decision string    `json:"decision"`
	Reason   string    `json:"reason"`
	Specific *Specific `json:"hookSpecificOutput"`
}

// Stops reports whether the output asks to stop, and why.
func (o Output) Stops() (bool, string) {
	if o.Continue == nil || *o.Continue {
		return false, ""
	}
	return true, strings.TrimSpace(o.StopReason)
}

// Specific is hookSpecificOutput: each event reads its own fields.
type Specific struct {
	HookEventName string `json:"hookEventName"`
	// PreToolUse.
	PermissionDecision       string          `json:"permissionDecision"`
	PermissionDecisionReason string          `json:"permissionDecisionReason"`
	UpdatedInput             json.RawMessage `json:"updatedInput"`
	// PreToolUse, PostToolUse, PostToolUseFailure, SessionStart.
	AdditionalContext string `json:"additionalContext"`
	// PostToolUse: what the model sees instead of the tool's output;
	// updatedMCPToolOutput is its older, MCP-only name.
	UpdatedToolOutput    json.RawMessage `json:"updatedToolOutput"`
	UpdatedMCPToolOutput json.RawMessage `json:"updatedMCPToolOutput"`
	// PermissionRequest.
	Decision *PermissionDecision `json:"decision"`
}

// PermissionDecision is a PermissionRequest handler's answer.
type PermissionDecision struct {
	Behavior           string             `json:"behavior"` // allow | deny
	UpdatedInput       json.RawMessage    `json:"updatedInput"`
	UpdatedPermissions []PermissionUpdate `json:"updatedPermissions"`
	Message            string             `json:"message"`
	Interrupt          bool               `json:"interrupt"`
}

// PermissionUpdate is one entry of updatedPermissions.
type PermissionUpdate struct {
	Type        string `json:"type"` // addRules | replaceRules | removeRules | setMode | ...
	Rules       []Rule `json:"rules"`
	Behavior    string `json:"behavior"`
	Destination string `json:"destination"`
}

// Rule is a permission rule as Claude Code's settings name one.
type Rule struct {
	ToolName    string `json:"toolName"`
	RuleContent string `json:"ruleContent"`
}

// String is the rule as riot writes it: Tool or Tool(content).
func (r Rule) String() string {
	if r.RuleContent == "" {
		return r.ToolName
	}
	return r.ToolName + "(" + r.RuleContent + ")"
}

// Present reports whether a raw field was given a value other than null.
func Present(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	return s != "" && s != "null"
}

// ToolOutputText is an updatedToolOutput as the text the model sees: a
// string as it is; Claude Code's shapes read for their text (MCP content
// blocks, a Bash response's stdout and stderr, riot's own tool_response
// content); any other JSON as compact JSON.
func ToolOutputText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) == nil && len(blocks) > 0 {
		var parts []string
		for _, b := range blocks {
			if b.Type == "text" {
				parts = append(parts, b.Text)
			}
		}
		if len(parts) > 0 {
			return strings.Join(parts, "\n")
		}
	}
	var obj struct {
		Content *string `json:"content"`
		Stdout  *string `json:"stdout"`
		Stderr  string  `json:"stderr"`
	}
	if json.Unmarshal(raw, &obj) == nil {
		switch {
		case obj.Content != nil:
			return *obj.Content
		case obj.Stdout != nil && obj.Stderr != "":
			return strings.TrimSuffix(*obj.Stdout, "\n") + "\n" + obj.Stderr
		case obj.Stdout != nil:
			return *obj.Stdout
		}
	}
	var v any
	if json.Unmarshal(raw, &v) == nil {
		if b, err := json.Marshal(v); err == nil {
			return string(b)
		}
	}
	return string(raw)
}
