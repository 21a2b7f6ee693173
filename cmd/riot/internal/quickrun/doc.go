// Package quickrun is the quick path of `riot run --session ID` and `riot
// call --session ID` when a session host serves the session (package
// quick's doc says what a quick path is): from an init function, before
// riot's libraries initialise, it sends the turn to the host and prints
// what the host sends back, as cmd/riot's attachedTurn does for a client
// with no terminal to prompt on or draw a spinner on.
//
// It needs more of the standard library than package quick (JSON for the
// frames, SHA-256 for the socket's name and the config inputs), which Go
// initialises later, but still before any of riot's libraries
// (TestQuickRunsBeforeTheLibraries).
//
// Anything it cannot do exactly as the full command would (no host, a
// refusal, a command line or an input the full command must report on),
// it leaves to the full command, having printed nothing; what it learned
// that cannot be learned again, the turn it read from stdin and a host's
// refusal, it hands over (Declined).
package quickrun
