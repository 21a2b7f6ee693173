package quickrun

// Handoff is what the quick path learned before it declined that the full
// command must not try to learn again.
type Handoff struct {
	// StdinRead says the quick path read stdin to its end (or an error):
	// Stdin and StdinErr are what the full command reads instead.
	StdinRead bool
	Stdin     []byte
	StdinErr  error
	// Refused is a session host's reason for refusing the turn: the full
	// command warns with it and runs the turn itself, rather than ask a
	// host that may have exited since.
	Refused string
}

// declined is written once, by Main in the package's init function before
// main runs, and only read after: the one value the quick path hands the
// full command, as the runtime hands it os.Args.
var declined Handoff

// Declined is what the quick path learned before it declined.
func Declined() Handoff { return declined }
