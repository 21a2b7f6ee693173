// Package wire is the session host's protocol as a client speaks it: the
// frames (JSON lines), where a host's socket lives and whether it is safe
// to use, and one turn's exchange. Package sessionhost serves the other
// side, and wraps this client with typed permission prompts.
//
// It imports the standard library and package toolcall alone, and none of
// net, path/filepath or golang.org/x/sys: the CLI's quick path
// (cmd/riot/internal/quickrun) attaches a `riot run` to its host with it
// from an init function that must run before riot's libraries initialise,
// and Go initialises a package only once each it imports is
// (TestQuickImportsStayLight).
package wire
