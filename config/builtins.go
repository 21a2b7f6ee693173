package config

// BuiltinTools are the builtin tools in the order the model sees them in
// tools[], whichever builtin plugin serves each: the one list the host
// orders the builtins' tools by. That order is part of every session's
// prompt-cache prefix, so a new builtin tool is appended, never inserted,
// and none is ever moved: Glob is served by the grep plugin but comes
// after Edit and Write, which came first.
func BuiltinTools() []string {
	return []string{"Bash", "BashOutput", "KillShell", "Grep", "Read", "Diagnostics", "Edit", "Write", "Glob"}
}
