package plugin

// Behavior is a tool's position in the permission chain.
type Behavior int

const (
	// Passthrough takes no position: the host's chain decides.
	Passthrough Behavior = iota
	// Allow skips the host's safety checks. See PermissionChecker.
	Allow
	// Ask sends the call to the user.
	Ask
	// Deny refuses the call in every mode.
	Deny
)

// Permission is a tool's answer to CheckPermissions.
type Permission struct {
	Behavior Behavior
	// Reason is written for the model, and shown with Ask and Deny.
	Reason string
}

// PassthroughPermission is the default: no position.
func PassthroughPermission() Permission { return Permission{} }

// AllowPermission allows the call and skips the safety checks.
func AllowPermission(reason string) Permission { return Permission{Behavior: Allow, Reason: reason} }

// AskPermission asks the user.
func AskPermission(reason string) Permission { return Permission{Behavior: Ask, Reason: reason} }

// DenyPermission refuses the call.
func DenyPermission(reason string) Permission { return Permission{Behavior: Deny, Reason: reason} }

// SubjectKind says what a Subject names.
type SubjectKind int

const (
	// CommandSubject is one simple command of a shell-like call, normalised,
	// matched by command rules such as Bash(git log:*).
	CommandSubject SubjectKind = iota + 1
	// PathSubject is a path a call reads or writes, matched by path rules
	// such as Read(./src/**) and checked against the workspace fence.
	PathSubject
)

// Access is what a call does to a path subject.
type Access int

const (
	// Write is the default, and the conservative reading.
	Write Access = iota
	// Read is a read that changes nothing.
	Read
)

// Subject is one thing permission rules match a call against.
type Subject struct {
	Kind   SubjectKind
	Value  string
	Access Access
}

// Command is a command subject.
func Command(cmd string) Subject { return Subject{Kind: CommandSubject, Value: cmd} }

// ReadPath is a path the call reads. The path should be absolute; resolve
// relative paths with Env.Abs.
func ReadPath(path string) Subject { return Subject{Kind: PathSubject, Value: path, Access: Read} }

// WritePath is a path the call writes.
func WritePath(path string) Subject { return Subject{Kind: PathSubject, Value: path, Access: Write} }

// UnknownPath is a path the call touches that is known only when it runs,
// such as the operand of `cat $F`. The host cannot check it against the
// workspace fence or the rules, so it asks, unless the mode bypasses
// permissions. Declare it rather than leave the path out: a path left out
// is a path nobody checks.
func UnknownPath() Subject { return Subject{Kind: PathSubject, Access: Read} }

// Validation is the answer of ValidateInput. The zero Validation accepts.
type Validation struct {
	rejected string
}

// Accepted accepts the input.
func Accepted() Validation { return Validation{} }

// Rejected rejects the input with an imperative correction for the model,
// such as "`offset` is past the end of the file (120 lines); use an offset
// from 1 to 120."
func Rejected(message string) Validation {
	if message == "" {
		message = "This input is not valid for this tool; check the tool's description and try again."
	}
	return Validation{rejected: message}
}

// IsRejected reports whether the input was rejected.
func (v Validation) IsRejected() bool { return v.rejected != "" }

// Message is the rejection message.
func (v Validation) Message() string { return v.rejected }
