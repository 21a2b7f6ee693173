package plugin

import "context"

// Tool is the contract every riot tool implements. In is the tool's input
// type: a struct whose JSON Schema, reflected with invopop/jsonschema and
// closed with additionalProperties false, is what the model is shown. Field
// descriptions come from `jsonschema_description` tags, so they reach the
// schema without the source being present at run time.
type Tool[In any] interface {
	// Name is the tool's name in tools[] and the key of permission rules.
	// It is decided at run time, because wrapped tools learn theirs late.
	Name() string
	// Prompt is the complete usage text for the model: how the tool divides
	// the work with the others, and what to NEVER do.
	Prompt() string
	// Describe is one sentence for the UI, such as "Read src/main.go".
	Describe(in In) string
	// Call runs the tool. It returns an Outcome, never an error.
	Call(ctx context.Context, in In, env *Env) Outcome
}

// ReadOnlyChecker reports whether a call can neither execute arbitrary code
// nor change any state. Without it a tool is not read-only. A tool wrongly
// marked read-only is allowed without asking in every permission mode.
type ReadOnlyChecker[In any] interface {
	IsReadOnly(in In) bool
}

// ConcurrencyChecker reports, per input, whether a call may run in parallel
// with the calls around it. Without it a call runs alone.
type ConcurrencyChecker[In any] interface {
	IsConcurrencySafe(in In) bool
}

// Cascader reports whether a failed call cancels the rest of its turn.
// Without it, false: a cascade kills unrelated calls, so only shell-like
// tools, whose commands depend on each other implicitly, return true.
type Cascader interface {
	CascadesOnFailure() bool
}

// Classifiable gives auto mode one sentence from which a small model judges
// the danger of a call. Without it, or with "", auto mode always asks.
type Classifiable[In any] interface {
	ClassifierInput(in In) string
}

// EnvClassifiable is Classifiable for a sentence that depends on the
// session, such as the directory a shell command runs in. A tool that has
// both is asked through EnvClassifiable.
type EnvClassifiable[In any] interface {
	ClassifierInputEnv(in In, env *Env) string
}

// Budgeted sets the largest result the host passes to the model whole.
// Without it, Limit(DefaultBudgetChars). Read-like tools must return
// Unlimited, or the model loops reading its own spilled results.
type Budgeted interface {
	ResultBudget() Budget
}

// PermissionChecker lets a tool take a position in the permission chain.
// Without it, Passthrough. Returning Allow skips the host's safety checks
// (the workspace fence and protected paths), so take a position only for a
// specific reason.
type PermissionChecker[In any] interface {
	CheckPermissions(ctx context.Context, in In, env *Env) Permission
}

// InputValidator checks an input's semantics after the host has checked its
// structure: does the file exist, does this combination of fields make
// sense. Compile regexes and the like here, so the model gets a hint instead
// of a downstream engine's diagnostics. Without it, every input is accepted.
type InputValidator[In any] interface {
	ValidateInput(ctx context.Context, in In, env *Env) Validation
}

// SubjectLister declares what permission rules match a call against: the
// simple commands of a shell call, the paths a call reads or writes. Without
// it, a call has no subjects, so only bare-name rules match it.
type SubjectLister[In any] interface {
	PermissionSubjects(in In, env *Env) []Subject
}
