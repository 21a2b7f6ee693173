package sessionhost

// peer is what the host knows of a client's process from the kernel, not
// from the client's word.
type peer struct {
	pid int
	// terminal says a person may be at the process: it is in the
	// foreground of its controlling terminal, which its stdin and stderr
	// are. Only then may the host send it a prompt.
	terminal bool
}

// PeerError is why the host refuses a client's process before reading
// anything it sent; Msg is for the client.
type PeerError struct{ Msg string }

func (e *PeerError) Error() string { return e.Msg }

// unknownPeer is the refusal of a client whose process the host cannot
// check.
const unknownPeer = "the session host cannot tell which process this client is, so it does not serve it; run riot as the user who started the host, outside any sandbox"
