// Package attach is the session host's protocol as a client attaching to
// it speaks it: the frames (JSON lines), where a host's socket lives and
// whether it is safe to use, and one turn's exchange. Package sessionhost
// serves the other side, and wraps this client with typed permission
// prompts.
package attach
