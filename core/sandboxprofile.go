package core

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core/permission"
	"github.com/riot-tools/riot/shared"
)

// profile is the sandbox of a call with this request and decision: as
// wide as the decision, never wider. What does not depend on the call
// comes from the host's profileBase.
//
// It changes nothing on disk: a sandbox about to start gets its profile
// from startProfile, which makes what the profile protects first.
func (h *Host) profile(readOnly bool, req permission.Request, d permission.Decision) *shared.SandboxProfile {
	return h.profileOf(h.profileBase(), readOnly, req, d)
}

// startProfile is profile for a call about to run in it: the protected
// directories that do not exist yet are made first, and one that cannot
// be made is left out.
func (h *Host) startProfile(readOnly bool, req permission.Request, d permission.Decision) *shared.SandboxProfile {
	b := h.profileBase()
	failed := b.makeProtected()
	p := h.profileOf(b, readOnly, req, d)
	if p.TempDir != "" {
		p.TempDir = h.makeSessionTmp()
	}
	p.ProtectedPaths = slices.DeleteFunc(p.ProtectedPaths, func(prot string) bool { return slices.Contains(failed, prot) })
	return p
}

func (h *Host) profileOf(b *profileBase, readOnly bool, req permission.Request, d permission.Decision) *shared.SandboxProfile {
	p := &shared.SandboxProfile{
		Writable: !readOnly,
		// In proxy mode the call's Egress, set as it starts
		// (withEgress), is its one way out: Network stays off, so a
		// profile without it has no network at all.
		Network:  hostNetwork(h.networkMode()),
		Required: h.sandboxMode() == config.SandboxRequired,
		Reason:   profileReason(readOnly, d),
		// The call's own copies: the base is shared.
		HideEnv: slices.Clone(b.hideEnv),
		PassEnv: slices.Clone(b.passEnv),
		// The session's /tmp, where it is or would be made (startProfile
		// leaves it out should it fail to be).
		TempDir: h.sessionTempDir(),
	}
	// The lists are the call's own: the base is shared.
	if readOnly {
		p.WritePaths = slices.Clone(b.rootWrite)
	} else {
		p.WritePaths = slices.Clone(b.write)
	}
	p.ReadPaths = slices.Clone(b.read)
	if h.addAllowedPaths(p, req, d) {
		// The mount points of what this call alone shows in /tmp would
		// be made in the session's directory and stay there for the
		// session's later calls to find: this call gets a /tmp of its own.
		p.TempDir = ""
	}
	// This session's spilled results, read-only, so that a spill path riot
	// printed can be read back with Bash: the only part of riot's state a
	// command sees. A host serves one session (New opens it), so its
	// resultDir is the call's session's. The base has its forms, and
	// watches it while it is missing, as the first spill makes it.
	results := b.results
	p.ReadPaths = append(p.ReadPaths, results...)
	// A path below a mask is not shown, but for a root inside riot's
	// hidden dirs (the root stays usable, the rest hidden) and this
	// session's results: the sandbox shows what the profile lists below a
	// mask.
	masks := slices.Concat(b.masks, b.secrets)
	shown := func(path string) bool {
		if coveredBy(masks, path) {
			return false
		}
		return !coveredBy(b.hidden, path) || slices.Contains(b.rootWrite, path) || slices.Contains(results, path)
	}
	p.ReadPaths = slices.DeleteFunc(p.ReadPaths, func(path string) bool { return !shown(path) })
	p.WritePaths = slices.DeleteFunc(p.WritePaths, func(path string) bool { return !shown(path) })
	inRoot := slices.DeleteFunc(slices.Clone(b.inRoot), func(prot string) bool { return decisionCovers(d, prot) })
	p.ProtectedPaths = slices.Concat(inRoot, b.own)
	p.MaskedPaths = slices.Concat(masks, b.hidden, systemSecretMasks(b.systemSecrets, p))
	return p
}

// systemSecretMasks are the system's secrets p must hide: all but one p
// lists itself, which the decision allowed by name (or allow_read names).
// One p lists below a secret is shown inside its mask
// (/etc/ssl/private/x.pem, not the rest of the directory).
func systemSecretMasks(secrets []string, p *shared.SandboxProfile) []string {
	return slices.DeleteFunc(slices.Clone(secrets), func(s string) bool {
		return slices.Contains(p.ReadPaths, s) || slices.Contains(p.WritePaths, s)
	})
}

// hostNetwork reports whether mode gives calls allowed to write the
// host's network; proxyNetwork whether it gives them riot's proxy. Every
// mode is a case and there is no default, so that the exhaustive linter
// finds these switches when a mode is added; a mode riot does not know
// gives no network.
func hostNetwork(mode config.NetworkMode) bool {
	switch mode {
	case config.NetworkHost:
		return true
	case config.NetworkProxy, config.NetworkNone:
	}
	return false
}

func proxyNetwork(mode config.NetworkMode) bool {
	switch mode {
	case config.NetworkProxy:
		return true
	case config.NetworkHost, config.NetworkNone:
	}
	return false
}

// addAllowedPaths adds to p each path outside its writable paths that the
// decision allowed this call: reads read-only, writes writable (the
// nearest existing ancestor, so that the file may be made). It reports
// whether one of them is in /tmp.
func (h *Host) addAllowedPaths(p *shared.SandboxProfile, req permission.Request, d permission.Decision) (inTmp bool) {
	for _, s := range req.Subjects {
		if s.Kind != permission.PathSubject || d.Behavior != permission.Allow {
			continue
		}
		abs := filepath.Clean(config.ExpandHome(s.Value))
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(h.opts.Workspace, abs)
		}
		// The sandbox has its own /proc and /dev and no /sys: a path
		// named there is never bound from the host (plugin/sandbox skips
		// /proc and /dev whatever the profile says).
		// The session's temporary directory is shown at /tmp, never
		// at its own name.
		if coveredBy(p.WritePaths, abs) || coveredBy(kernelDirs, abs) || p.TempDir != "" && within(abs, p.TempDir) {
			continue
		}
		if s.Access == permission.Read {
			p.ReadPaths = appendForms(p.ReadPaths, abs, nil)
		} else {
			p.WritePaths = appendForms(p.WritePaths, existingAncestor(abs), nil)
		}
		inTmp = inTmp || within(abs, tmpView)
	}
	return inTmp
}

// kernelDirs hold no path a call's subject may bind: the sandbox's own
// /proc and /dev (bwrap cannot bind into them, and /proc/self is riot's),
// and /sys, whose paths a command names to read the kernel's state, not
// the user's files ([sandbox] allow_read still shows one).
var kernelDirs = []string{"/proc", "/dev", "/sys"}

// profileReason says why a call gets its profile, for the model.
func profileReason(readOnly bool, d permission.Decision) string {
	switch {
	case readOnly:
		return "a call allowed as read-only"
	case d.ByUser:
		return "a call the user allowed"
	case d.Rule != nil:
		return "a call allowed by the rule " + d.Rule.Text
	case d.Step == permission.StepMode:
		return "a call allowed by the " + string(d.Mode) + " mode"
	default:
		return "a call allowed by its tool"
	}
}

// decisionCovers reports whether the user allowed this call after a safety
// check named prot or a path inside or above it.
func decisionCovers(d permission.Decision, prot string) bool {
	if !d.ByUser {
		return false
	}
	_, path, ok := strings.Cut(d.Check, ": ")
	if !ok || !strings.HasPrefix(d.Check, "protected path") {
		return false
	}
	path = filepath.Clean(path)
	return within(prot, path) || within(path, prot)
}

// appendForms adds a path that exists, as given and with its symlinks
// resolved when that differs, so the command finds it by either name.
// What the result relies on is noted in watched, unless that is nil.
func appendForms(list []string, p string, watched *watches) []string {
	if !filepath.IsAbs(p) {
		return list
	}
	p = filepath.Clean(p)
	if _, err := os.Lstat(p); err != nil {
		return list
	}
	if !slices.Contains(list, p) {
		list = append(list, p)
	}
	if phys, err := filepath.EvalSymlinks(p); err == nil && phys != p {
		watched.alias(p, phys)
		if !slices.Contains(list, phys) {
			list = append(list, phys)
		}
	}
	return list
}

// existingAncestor is p, or its nearest directory that exists: a write
// that creates p needs that directory.
func existingAncestor(p string) string {
	for cur := p; ; cur = filepath.Dir(cur) {
		if _, err := os.Lstat(cur); err == nil || cur == "/" {
			return cur
		}
	}
}

func coveredBy(dirs []string, p string) bool {
	return slices.ContainsFunc(dirs, func(d string) bool { return within(p, d) })
}

func within(p, dir string) bool {
	return p == dir || dir == "/" || strings.HasPrefix(p, dir+"/")
}
