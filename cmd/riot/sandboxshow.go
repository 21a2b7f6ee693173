package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core"
)

// printSandboxStatus shows, in `riot config`, whether bwrap can start a
// sandbox here.
func printSandboxStatus(w io.Writer, c *config.Config) {
	mode := c.Sandbox.Mode
	switch err := core.ProbeSandbox(context.Background()); {
	case mode == config.SandboxOff:
		fmt.Fprintf(w, "# bwrap: not used (sandbox.mode = \"off\")\t\n")
	case err != nil:
		fmt.Fprintf(w, "# bwrap: does not work here: %s; commands run unsandboxed in auto mode and fail in required mode\t\n", err)
	default:
		fmt.Fprintf(w, "# bwrap: works; commands run in the kernel sandbox\t\n")
	}
}

// printExplainSandbox shows the profile the call would run in.
func printExplainSandbox(w io.Writer, ex core.Explanation) {
	if ex.Invalid != "" {
		return
	}
	if ex.Sandbox == nil {
		why := "off ([sandbox] mode = \"off\")"
		switch {
		case ex.NoSandbox != "":
			why = ex.NoSandbox
		case ex.SandboxStatus.Problem != "" && ex.SandboxStatus.Mode == config.SandboxRequired:
			why = "cannot start, so the call would be refused ([sandbox] mode = \"required\"): " + ex.SandboxStatus.Problem
		case ex.SandboxStatus.Problem != "":
			why = "off, so the call would run unconfined ([sandbox] mode = \"" + string(ex.SandboxStatus.Mode) + "\"): " + ex.SandboxStatus.Problem
		}
		fmt.Fprintf(w, "sandbox: %s\n", why)
		return
	}
	p := ex.Sandbox
	fmt.Fprintf(w, "sandbox: %s (the profile of %s)\n", p.Summary(), p.Reason)
	fmt.Fprintf(w, "  %d paths shown read-only, %d kept read-only inside writable ones, %d hidden; --json lists them\n",
		len(p.ReadPaths), len(p.ProtectedPaths), len(p.MaskedPaths))
}

// printExplainNetwork shows the network policy the call's commands would
// get.
func printExplainNetwork(w io.Writer, ex core.Explanation) {
	n := ex.Network
	if ex.Invalid != "" || n == nil {
		return
	}
	mode := fmt.Sprintf("[sandbox.network] mode = %q", n.Mode)
	switch {
	case n.Unsandboxed:
		fmt.Fprintf(w, "network: the host's, unfiltered: the call runs outside the sandbox (%s does not apply)\n", mode)
		return
	case n.Access == config.NetworkHost:
		fmt.Fprintf(w, "network: the host's, unfiltered (%s)\n", mode)
		return
	case n.Access == config.NetworkNone && n.Mode != config.NetworkNone:
		fmt.Fprintf(w, "network: none: a read-only call never has one (%s for calls allowed to write)\n", mode)
		return
	case n.Access == config.NetworkNone:
		fmt.Fprintf(w, "network: none (%s)\n", mode)
		return
	}
	other := "refused (no one to ask)"
	if n.Asks {
		other = "asked about once per session"
	}
	fmt.Fprintf(w, "network: through riot's proxy (%s): %d allowed, %d denied, allow_private = %v; other names are %s\n",
		mode, len(n.Allowed), len(n.Denied), n.AllowPrivate, other)
	if len(n.Allowed) > 0 {
		fmt.Fprintf(w, "  allowed_domains: %s\n", strings.Join(n.Allowed, ", "))
	}
	if len(n.Denied) > 0 {
		fmt.Fprintf(w, "  denied_domains: %s\n", strings.Join(n.Denied, ", "))
	}
}

// networkOut is the network policy in `riot explain --json`.
type networkOut struct {
	Mode string `json:"mode"`
	// Access is what the call's commands get: none, proxy or host.
	Access         string   `json:"access"`
	Unsandboxed    bool     `json:"unsandboxed,omitempty"`
	AllowedDomains []string `json:"allowed_domains"`
	DeniedDomains  []string `json:"denied_domains"`
	AllowPrivate   bool     `json:"allow_private"`
	// Unlisted is what becomes of a name no rule covers: ask or refuse.
	Unlisted string `json:"unlisted"`
}

func explainNetworkJSON(ex core.Explanation) *networkOut {
	n := ex.Network
	if ex.Invalid != "" || n == nil {
		return nil
	}
	out := &networkOut{
		Mode: string(n.Mode), Access: string(n.Access), Unsandboxed: n.Unsandboxed,
		AllowedDomains: append([]string{}, n.Allowed...), DeniedDomains: append([]string{}, n.Denied...),
		AllowPrivate: n.AllowPrivate, Unlisted: "refuse",
	}
	if n.Asks {
		out.Unlisted = "ask"
	}
	return out
}

// sandboxOut is the profile in `riot explain --json`.
type sandboxOut struct {
	On      bool   `json:"on"`
	Problem string `json:"problem,omitempty"`
	Mode    string `json:"mode,omitempty"`
	Network bool   `json:"network"`
	// Egress: the network is riot's proxy, which applies the policy.
	Egress    bool     `json:"egress"`
	Writable  []string `json:"writable,omitempty"`
	ReadOnly  []string `json:"read_only,omitempty"`
	Protected []string `json:"protected,omitempty"`
	Hidden    []string `json:"hidden,omitempty"`
	Reason    string   `json:"reason,omitempty"`
	// NotNeeded is why the call gets no sandbox in any mode.
	NotNeeded string `json:"not_needed,omitempty"`
}

func explainSandboxJSON(ex core.Explanation) *sandboxOut {
	if ex.Invalid != "" {
		return nil
	}
	out := &sandboxOut{Problem: ex.SandboxStatus.Problem, NotNeeded: ex.NoSandbox}
	if ex.Sandbox == nil {
		return out
	}
	p := ex.Sandbox
	out.On, out.Mode, out.Network, out.Egress, out.Reason = true, "read-only", p.NetworkOn(), p.EgressOn(), p.Reason
	out.ReadOnly, out.Protected, out.Hidden = p.ReadPaths, p.ProtectedPaths, p.MaskedPaths
	if p.Writable {
		out.Mode, out.Writable = "write", p.WritePaths
	} else {
		out.ReadOnly = append(append([]string{}, p.WritePaths...), p.ReadPaths...)
	}
	return out
}
