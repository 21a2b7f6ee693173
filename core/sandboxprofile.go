package core

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core/permission"
	toolv1 "github.com/riot-tools/riot/shared/proto/riot/tool/v1"
)

// profile is the sandbox of a call with this request and decision: as
// wide as the decision, never wider. What does not depend on the call
// comes from the host's profileBase.
func (h *Host) profile(readOnly bool, req permission.Request, d permission.Decision) *toolv1.Sandbox {
	b := h.profileBase()
	p := &toolv1.Sandbox{
		Mode:     toolv1.SandboxMode_SANDBOX_MODE_WRITE,
		Network:  h.cfg.Sandbox.Network != "none",
		Required: h.sandboxMode() == "required",
		Reason:   profileReason(readOnly, d),
	}
	// The lists are the call's own: the base is shared.
	if readOnly {
		p.Mode = toolv1.SandboxMode_SANDBOX_MODE_READ_ONLY
		p.WritePaths = slices.Clone(b.rootWrite)
	} else {
		p.WritePaths = slices.Clone(b.write)
	}
	p.ReadPaths = slices.Clone(b.read)
	h.addAllowedPaths(p, req, d)
	inRoot := slices.DeleteFunc(slices.Clone(b.inRoot), func(prot string) bool { return decisionCovers(d, prot) })
	p.ProtectedPaths = append(inRoot, b.own...)
	p.MaskedPaths = slices.Concat(b.masks, b.secrets)
	return p
}

// addAllowedPaths adds to p each path outside its writable paths that the
// decision allowed this call: reads read-only, writes writable (the
// nearest existing ancestor, so that the file may be made).
func (h *Host) addAllowedPaths(p *toolv1.Sandbox, req permission.Request, d permission.Decision) {
	for _, s := range req.Subjects {
		if s.Kind != permission.PathSubject || d.Behavior != permission.Allow {
			continue
		}
		abs := filepath.Clean(config.ExpandHome(s.Value))
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(h.opts.Workspace, abs)
		}
		if coveredBy(p.WritePaths, abs) {
			continue
		}
		if s.Access == permission.Read {
			p.ReadPaths = appendForms(p.ReadPaths, abs, nil)
		} else {
			p.WritePaths = appendForms(p.WritePaths, existingAncestor(abs), nil)
		}
	}
}

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
		return "a call allowed by the " + d.Mode + " mode"
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
