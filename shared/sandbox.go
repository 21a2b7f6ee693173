package shared

import "strings"

// SandboxProfile is one call's kernel sandbox, as the host decides it and
// the SDK applies it to every process the call starts (plugin/sandbox).
// Paths are absolute and clean. The zero profile is the narrowest: nothing
// writable, no network.
type SandboxProfile struct {
	// Writable makes WritePaths writable, and gives the network if Network.
	Writable bool
	// ReadPaths are visible read-only whatever Writable says.
	ReadPaths []string
	// WritePaths are writable when Writable, and read-only otherwise.
	WritePaths []string
	// ProtectedPaths stay read-only inside WritePaths. One that does not
	// exist cannot be made: its nearest existing directory refuses new
	// names (its entries stay writable), so the host lists a missing one
	// only where that is meant.
	ProtectedPaths []string
	// MaskedPaths are hidden: an empty file or directory in their place.
	// What ReadPaths or WritePaths list below one is shown in it (a root
	// inside riot's state dir, the session's own spilled results); the
	// host lists nothing there that a mask must keep hidden.
	MaskedPaths []string
	// Network is the network of a writable call; a read-only one never has it.
	Network bool
	// Required makes a sandbox that cannot start an error instead of a
	// fall back to running unconfined.
	Required bool
	// Reason says why the profile applies, for the model.
	Reason string
	// Egress, for a writable call, takes the network away (a namespace of
	// its own, loopback only) and offers riot's proxy instead. It wins
	// over Network.
	Egress *Egress
	// HideEnv are glob patterns (path.Match, case-insensitive) of
	// environment variable names removed from every command, in every mode,
	// but for the few every command needs (PATH, HOME, the locale: the SDK
	// keeps them).
	HideEnv []string
	// PassEnv are exact names kept even when a HideEnv pattern matches.
	PassEnv []string
	// TempDir is the session's temporary directory on the host, shown at
	// /tmp to every call of the session (writable when Writable), so that
	// what one command leaves in /tmp the next finds. "" gives each
	// sandbox a private /tmp.
	TempDir string
}

// Egress is riot's proxy for one call: a Unix socket on the host speaking
// HTTP (CONNECT) and SOCKS5, and the credentials that name the call to it.
type Egress struct {
	Socket   string
	User     string
	Password string
}

// AllowedCall is the profile the same call would get had it been allowed
// to write: for tools such as Diagnostics whose checkers run build scripts
// that write caches and build output inside the roots.
func (p *SandboxProfile) AllowedCall() *SandboxProfile {
	if p == nil {
		return nil
	}
	q := *p
	q.Writable = true
	q.Reason = "the profile of an allowed call, which checkers run in"
	return &q
}

// NetworkOn reports whether commands in the profile reach the host's
// network directly.
func (p *SandboxProfile) NetworkOn() bool { return p.Writable && p.Network && p.Egress == nil }

// EgressOn reports whether commands in the profile reach the outside only
// through riot's proxy.
func (p *SandboxProfile) EgressOn() bool { return p.Writable && p.Egress != nil }

// Summary is the profile in one line, for the model and `riot explain`.
func (p *SandboxProfile) Summary() string {
	var b strings.Builder
	if p.Writable {
		b.WriteString("writable only in " + listOrNone(p.WritePaths))
	} else {
		b.WriteString("read-only, nothing writable")
	}
	switch {
	case p.EgressOn():
		b.WriteString("; network through riot's proxy")
	case p.NetworkOn():
		b.WriteString("; network on")
	default:
		b.WriteString("; no network")
	}
	return b.String()
}

func listOrNone(paths []string) string {
	if len(paths) == 0 {
		return "none"
	}
	return strings.Join(paths, ", ")
}
