package config

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Sandbox is the [sandbox] table: the kernel sandbox Bash, Diagnostics and
// every tool that starts processes through the SDK run their commands in.
type Sandbox struct {
	// Mode is "auto" (on where bubblewrap works, else off with a warning),
	// "required" (calls fail where it does not) or "off".
	Mode string
	// Network is "host" or "none": the network of calls allowed to write.
	// Calls allowed as read-only never have one.
	Network string
	// AllowWrite are writable for calls allowed to write, besides the
	// workspace roots; AllowRead are visible read-only to every call;
	// DenyRead are hidden from every call. Each is absolute or ~/x, as
	// written; the core expands ~.
	AllowWrite []SandboxPath
	AllowRead  []SandboxPath
	DenyRead   []SandboxPath
}

// SandboxPath is one path of a [sandbox] list, with where it was written.
type SandboxPath struct {
	Path   string
	Source Source
}

// SandboxModes and SandboxNetworks are the values [sandbox] mode and
// network take.
var (
	SandboxModes    = []string{"auto", "required", "off"}
	SandboxNetworks = []string{"host", "none"}
)

type sandboxLayer struct {
	Mode       *string  `toml:"mode"`
	Network    *string  `toml:"network"`
	AllowWrite []string `toml:"allow_write"`
	AllowRead  []string `toml:"allow_read"`
	DenyRead   []string `toml:"deny_read" trust:"tighten"`
}

var sandboxKeys = []string{"mode", "network", "allow_write", "allow_read", "deny_read"}

// applySandbox merges a layer's [sandbox] table: mode and network
// override, the lists add up. A path that is relative, or in allow_write
// or deny_read does not exist, is an error naming its file and line; the
// embedded defaults list toolchain directories that exist only where that
// toolchain is installed, so theirs are not checked.
func (c *Config) applySandbox(l *parsedLayer) error {
	sb := l.Sandbox
	if sb == nil {
		return nil
	}
	if sb.Mode != nil {
		if !slices.Contains(SandboxModes, *sb.Mode) {
			return &Error{Source: l.at("sandbox", "mode"), Msg: fmt.Sprintf("unknown sandbox mode %q; use one of %s", *sb.Mode, strings.Join(SandboxModes, ", "))}
		}
		c.Sandbox.Mode = *sb.Mode
		c.Sources["sandbox.mode"] = l.at("sandbox", "mode")
	}
	if sb.Network != nil {
		if !slices.Contains(SandboxNetworks, *sb.Network) {
			return &Error{Source: l.at("sandbox", "network"), Msg: fmt.Sprintf("unknown sandbox network %q; use \"host\" or \"none\"", *sb.Network)}
		}
		c.Sandbox.Network = *sb.Network
		c.Sources["sandbox.network"] = l.at("sandbox", "network")
	}
	for _, list := range []struct {
		key       string
		in        []string
		out       *[]SandboxPath
		mustExist bool
	}{
		{"allow_write", sb.AllowWrite, &c.Sandbox.AllowWrite, true},
		{"allow_read", sb.AllowRead, &c.Sandbox.AllowRead, false},
		{"deny_read", sb.DenyRead, &c.Sandbox.DenyRead, true},
	} {
		for _, p := range list.in {
			src := l.src
			src.Line = l.loc.element([]string{"sandbox", list.key}, p)
			if msg := checkSandboxPath(p, list.mustExist && l.src.Layer != "default"); msg != "" {
				return &Error{Source: src, Msg: fmt.Sprintf("[sandbox] %s: %s", list.key, msg)}
			}
			*list.out = append(*list.out, SandboxPath{Path: p, Source: src})
		}
		if len(list.in) > 0 {
			c.Sources["sandbox."+list.key] = l.at("sandbox", list.key)
		}
	}
	return nil
}

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
