package config

import (
	"fmt"
	"os"
	"path/filepath"
)

// Sandbox is the [sandbox] table: the kernel sandbox Bash, Diagnostics and
// every tool that starts processes through the SDK run their commands in.
type Sandbox struct {
	// Mode is whether calls run sandboxed: one of SandboxModes.
	Mode SandboxMode `toml:"mode" trust:"loosen" check:"sandbox_mode"`
	// Network is the network of calls allowed to write: one of
	// SandboxNetworks. Calls allowed as read-only never have one.
	Network SandboxNetwork `toml:"network" trust:"loosen" check:"sandbox_network"`
	// AllowWrite are writable for calls allowed to write, besides the
	// workspace roots; AllowRead are visible read-only to every call;
	// DenyRead are hidden from every call. Each is absolute or ~/x, as
	// written; the core expands ~. The embedded defaults list toolchain
	// directories that exist only where that toolchain is installed, so
	// only a later layer's paths must exist.
	AllowWrite []SandboxPath `toml:"allow_write" trust:"loosen" check:"existing_path"`
	AllowRead  []SandboxPath `toml:"allow_read" trust:"loosen" check:"absolute_path"`
	DenyRead   []SandboxPath `toml:"deny_read" trust:"tighten" check:"existing_path"`
}

// SandboxPath is one path of a [sandbox] list, with where it was written.
type SandboxPath struct {
	Path   string
	Source Source
}

func (p *SandboxPath) locate(path string, src Source) { p.Path, p.Source = path, src }

// SandboxMode is [sandbox] mode: whether calls run in the kernel sandbox.
type SandboxMode string

const (
	// SandboxAuto: sandboxed where bubblewrap works, else unconfined with
	// a warning and a note on each result.
	SandboxAuto SandboxMode = "auto"
	// SandboxRequired: calls fail where bubblewrap does not work.
	SandboxRequired SandboxMode = "required"
	// SandboxOff: never sandboxed.
	SandboxOff SandboxMode = "off"
)

// SandboxNetwork is [sandbox] network: the network of calls allowed to
// write.
type SandboxNetwork string

const (
	// SandboxNetworkHost: the host's network.
	SandboxNetworkHost SandboxNetwork = "host"
	// SandboxNetworkNone: a network namespace of its own, cut off.
	SandboxNetworkNone SandboxNetwork = "none"
)

// SandboxModes and SandboxNetworks are the values [sandbox] mode and
// network take, in the order riot lists them.
var (
	SandboxModes    = []SandboxMode{SandboxAuto, SandboxRequired, SandboxOff}
	SandboxNetworks = []SandboxNetwork{SandboxNetworkHost, SandboxNetworkNone}
)

// checkSandboxPath is what is wrong with a [sandbox] path, or "".
func checkSandboxPath(p string, mustExist bool) string {
	abs := ExpandHome(p)
	if !filepath.IsAbs(abs) {
		return fmt.Sprintf("%q is relative; write an absolute path or ~/x, since a sandbox path must not depend on the directory riot runs in", p)
	}
	if mustExist {
		if _, err := os.Lstat(abs); err != nil {
			return fmt.Sprintf("%q does not exist; create it or remove it from the list", p)
		}
	}
	return ""
}
