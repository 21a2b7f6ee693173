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

// Builtin is one tool set compiled into riot, served as `riot __plugin
// NAME` and built standalone as bin/riot-tool-NAME.
type Builtin struct {
	Name string
	// NoProcesses tool sets start no processes (plugin.ServeWithoutProcesses):
	// their calls need no sandbox, and their Proc refuses every start.
	NoProcesses bool
	// ReadOnly tool sets never write, start processes or connect, so their
	// processes restrict themselves with Landlock as well
	// (plugin.ServeReadOnly).
	ReadOnly bool
}

// Builtins are riot's builtin tool sets, in the order the embedded
// defaults enable them: the one registry that the CLI's serving, the
// resolver, defaults.toml and the Makefile's BUILTINS follow (the last
// two checked by cmd/riot's TestBuiltinRegistryAgrees).
func Builtins() []Builtin {
	return []Builtin{
		{Name: "bash"},
		{Name: "grep", NoProcesses: true, ReadOnly: true},
		{Name: "read", NoProcesses: true, ReadOnly: true},
		{Name: "diagnostics"},
		{Name: "edit", NoProcesses: true},
	}
}

// BuiltinNames are the names of Builtins, in order.
func BuiltinNames() []string {
	var names []string
	for _, b := range Builtins() {
		names = append(names, b.Name)
	}
	return names
}
