package sandbox

import (
	"path/filepath"
	"slices"
	"strings"

	toolv1 "github.com/riot-tools/riot/shared/proto/riot/tool/v1"
)

// Mode is how much of the filesystem a sandboxed command may write.
type Mode int

const (
	// ReadOnly is the zero value: a profile that says nothing writes
	// nothing and has no network.
	ReadOnly Mode = iota
	// Write makes WritePaths writable, and gives the network if Network.
	Write
)

func (m Mode) String() string {
	if m == Write {
		return "write"
	}
	return "read-only"
}

// Profile is one call's sandbox. Paths are absolute and clean.
type Profile struct {
	Mode Mode
	// ReadPaths are visible read-only in every mode.
	ReadPaths []string
	// WritePaths are writable in Write mode and read-only otherwise.
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
	// Network is the network of a Write call; ReadOnly never has it.
	Network bool
	// Required makes a sandbox that cannot start an error instead of a
	// fall back to running unconfined.
	Required bool
	// Reason says why the profile applies, for the model.
	Reason string
}

// FromProto reads the profile of a call context; nil means no sandbox.
// An unknown mode is read as ReadOnly.
func FromProto(s *toolv1.Sandbox) *Profile {
	if s == nil {
		return nil
	}
	p := &Profile{
		ReadPaths:      cleanAll(s.GetReadPaths()),
		WritePaths:     cleanAll(s.GetWritePaths()),
		ProtectedPaths: cleanAll(s.GetProtectedPaths()),
		MaskedPaths:    cleanAll(s.GetMaskedPaths()),
		Network:        s.GetNetwork(),
		Required:       s.GetRequired(),
		Reason:         s.GetReason(),
	}
	if s.GetMode() == toolv1.SandboxMode_SANDBOX_MODE_WRITE {
		p.Mode = Write
	}
	return p
}

// Proto is the profile on the wire.
func (p *Profile) Proto() *toolv1.Sandbox {
	if p == nil {
		return nil
	}
	mode := toolv1.SandboxMode_SANDBOX_MODE_READ_ONLY
	if p.Mode == Write {
		mode = toolv1.SandboxMode_SANDBOX_MODE_WRITE
	}
	return &toolv1.Sandbox{
		Mode: mode, ReadPaths: p.ReadPaths, WritePaths: p.WritePaths, ProtectedPaths: p.ProtectedPaths,
		MaskedPaths: p.MaskedPaths, Network: p.Network, Required: p.Required, Reason: p.Reason,
	}
}

// AllowedCall is the profile the same call would get had it been allowed
// to write: for tools such as Diagnostics whose checkers run build scripts
// that write caches and build output inside the roots.
func (p *Profile) AllowedCall() *Profile {
	if p == nil {
		return nil
	}
	q := *p
	q.Mode = Write
	q.Reason = "the profile of an allowed call, which checkers run in"
	return &q
}

// NetworkOn reports whether commands in the profile reach the network.
func (p *Profile) NetworkOn() bool { return p.Mode == Write && p.Network }

// Summary is the profile in one line, for the model and `riot explain`.
func (p *Profile) Summary() string {
	var b strings.Builder
	if p.Mode == Write {
		b.WriteString("writable only in " + listOrNone(p.WritePaths))
	} else {
		b.WriteString("read-only, nothing writable")
	}
	if p.NetworkOn() {
		b.WriteString("; network on")
	} else {
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

func cleanAll(in []string) []string {
	out := make([]string, 0, len(in))
	for _, p := range in {
		if filepath.IsAbs(p) {
			out = append(out, filepath.Clean(p))
		}
	}
	return out
}

// covers reports whether path is one of dirs or lies below one.
func covers(dirs []string, path string) bool {
	return slices.ContainsFunc(dirs, func(d string) bool { return within(path, d) })
}

func within(p, dir string) bool {
	return p == dir || dir == "/" || strings.HasPrefix(p, dir+"/")
}
