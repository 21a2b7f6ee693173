// Package sessionhost serves one session's core.Host on a Unix socket, so
// that short-lived `riot run --session` and `riot call --session`
// invocations share one warm host: its plugins, its background jobs, and
// the one writer of the session's state and spills.
//
// The socket lives in a private directory of the state dir (mode 0700,
// owned by the user); a directory or socket others can write is refused on
// both sides. Before it reads anything a client sends, the host checks the
// client's process with the kernel (peer_linux.go): its own user, in its
// own mount, PID and user namespaces, so that a sandboxed command that
// reaches the socket is refused. It prompts a client only when it sees
// that process on its own terminal; the hello's Terminal can only decline
// prompts. The protocol is JSON lines: the client sends a hello and the
// turn's calls, and may then answer permission prompts or cancel; the host
// sends prompts and progress (only the first progress frame, which says the
// turn began, to a client that shows none: Hello.Progress), then the turn's
// results, or the text to print when the hello asks the host to render them
// (Hello.Render, Server.Render). Turns from every
// client run one at a time, in arrival order. A line the host cannot read
// as a frame is answered with an error frame saying why (frame.go).
//
// The client's side of the protocol is package attach; this package serves the
// host's side and wraps that client with typed permission prompts.
package sessionhost
