package permission

import (
	"context"
	"encoding/json"

	"github.com/riot-tools/riot/config"
)

// Behavior is a decision: Allow, Ask or Deny.
type Behavior int

const (
	// Ask is the zero value: an undecided call asks.
	Ask Behavior = iota
	Allow
	Deny
)

func (b Behavior) String() string {
	switch b {
	case Allow:
		return "allow"
	case Deny:
		return "deny"
	default:
		return "ask"
	}
}

// Step is a step of the chain, in the order they run.
type Step int

const (
	StepDenyRule Step = iota + 1
	StepAskRule
	StepTool
	StepSafety
	StepAllowRule
	StepMode
)

func (s Step) String() string {
	switch s {
	case StepDenyRule:
		return "deny rules"
	case StepAskRule:
		return "ask rules"
	case StepTool:
		return "tool check"
	case StepSafety:
		return "safety checks"
	case StepAllowRule:
		return "allow rules"
	case StepMode:
		return "mode"
	default:
		return "unknown step"
	}
}

// SubjectKind says what a subject names. The zero value is a kind the
// plugin did not say, which no allow rule matches.
type SubjectKind int

const (
	UnknownSubject SubjectKind = iota
	CommandSubject
	PathSubject
)

// Access is what a call does to a path. The zero value is Write, the
// conservative reading of an access the plugin did not say.
type Access int

const (
	Write Access = iota
	Read
)

// Subject is one thing a call's rules are matched against.
type Subject struct {
	Kind   SubjectKind
	Value  string
	Access Access
}

// ToolBehavior is the tool's own CheckPermissions answer.
type ToolBehavior int

const (
	ToolPassthrough ToolBehavior = iota
	ToolAllow
	ToolAsk
	ToolDeny
)

// Request is one prepared call, as the chain sees it.
type Request struct {
	Tool     string
	ReadOnly bool
	Subjects []Subject
	// ToolBehavior and ToolReason are the tool's CheckPermissions answer.
	ToolBehavior ToolBehavior
	ToolReason   string
	// ClassifierInput is the sentence auto mode judges; "" means ask.
	ClassifierInput string
	// Describe is the call's one-line description, for prompts.
	Describe string
	// Hook is what the PreToolUse hooks decided, or nil when none did.
	Hook *HookVerdict
	// Input is the call's input, checked against the tool's schema: a
	// JSON object whose top-level parameters Tool(param:value) rules
	// match. Nil matches no parameter rule.
	Input json.RawMessage
	// Params are the tool's parameters, the top-level properties of its
	// input schema, against which the rules naming it are checked
	// (Policy.CheckTool); nil when not known, and then not checked.
	Params []string
}

// HookVerdict is the combined decision of a call's PreToolUse hooks. Deny
// denies in every mode, Ask asks, and Allow stands in for the mode's Ask:
// it never overrides a deny or ask rule, the tool's own check, or a safety
// check, and plan mode still refuses changes.
type HookVerdict struct {
	Behavior Behavior
	// Hook names the hook that decided, for the model and the trace.
	Hook string
	// Reason is the hook's own reason, if it gave one.
	Reason string
}

// Decision is the chain's answer, with why.
type Decision struct {
	Behavior Behavior
	// Step is the step that decided.
	Step Step
	// Rule is the rule that decided, if one did.
	Rule *config.Rule
	// Check names the safety check that decided, if one did, such as
	// "outside the workspace: /etc/hostname".
	Check string
	// Reason is written for the model.
	Reason string
	// Suggest is the narrowest rule that would allow the call, such as
	// "Bash(touch:*)"; empty when no single rule could (see Suggestions).
	Suggest string
	// Trace is every step that ran, for `riot explain`.
	Trace []TraceStep

	// Suggestions are the rules that together would allow the call, one
	// per subject no allow rule covers (Suggest is the first when it is
	// the only one; when several are needed, Suggest is empty). Empty when
	// no rule could allow the call, as for a path outside the workspace.
	// Policy.Resolve grants all of them.
	Suggestions []string
	// Mode is the mode the chain ran in.
	Mode config.Mode
	// ByUser reports that a prompt's answer decided (see Policy.Resolve).
	ByUser bool
	// Reads are the call's read paths as this decision resolved them
	// (symlinks followed), the files an Allow lets the tool read. The host
	// hands them to the call, whose tool checks that the file it opened is
	// one of them or inside the fence: a symlink swapped after the check
	// then leads nowhere it was not allowed to.
	Reads []string
	// Writes are the call's write paths as this decision resolved them:
	// the files an Allow lets the tool create or replace. The host hands
	// them to the call, whose tool writes only there, through a directory
	// it opened without following a symlink.
	Writes []string
}

// TraceStep is one step of the chain as `riot explain` shows it.
type TraceStep struct {
	Step Step
	// Checked says what the step looked at.
	Checked string
	// Matched reports whether the step decided.
	Matched bool
	// Rule is the rule that matched, if any.
	Rule *config.Rule
	// Result is the step's outcome: "allow", "ask", "deny" or "pass", or
	// "skipped" for the safety checks when bypassPermissions or the tool's
	// own Allow skips them.
	Result string
}

// Classifier judges a call in auto mode. It fails closed: an error means
// ask.
type Classifier interface {
	Classify(ctx context.Context, tool, input string) (Behavior, error)
}

// Answer is the user's reply to a prompt.
type Answer int

const (
	AnswerDeny Answer = iota
	AnswerAllowOnce
	AnswerAllowSession
	AnswerAllowAlways
)

// Prompter resolves an Ask. A prompter that cannot ask (no TTY) denies.
type Prompter interface {
	Prompt(ctx context.Context, req Request, d Decision) (Answer, error)
}
