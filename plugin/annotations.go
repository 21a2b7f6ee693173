package plugin

// Annotations are static properties of every call of a tool, which the host
// passes to clients that show or gate tools (MCP's tool annotations). They
// are hints for a UI, never a permission: the permission chain decides per
// input, through IsReadOnly and the rest. Each zero value is the
// conservative reading, so a field left out can only make a client more
// careful.
type Annotations struct {
	// Title is a short human-readable name for a UI, such as "Read file".
	Title string
	// ReadOnly: no call of this tool, whatever its input, changes any state
	// or executes arbitrary code. Set it only when IsReadOnly would be true
	// for every input.
	ReadOnly bool
	// NonDestructive: no call deletes or overwrites existing data.
	NonDestructive bool
	// Idempotent: repeating a call with the same input has no further
	// effect.
	Idempotent bool
	// Local: calls touch only this machine, never an open world such as the
	// network.
	Local bool
}

// Annotated declares a tool's Annotations. Without it, every property takes
// its conservative value and the title is empty.
type Annotated interface {
	Annotations() Annotations
}
