package core

import (
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core/permission"
)

// profileBase is the part of every call's sandbox profile that does not
// depend on the call: the forms of the roots, allow_write, allow_read and
// the state dir, the protected paths and the masks. Computing it costs
// dozens of system calls and a walk for the deny globs, so a host
// computes it once and reuses it while what it was computed from holds:
//   - the config, the policy, $HOME and $XDG_CONFIG_HOME are the same (a
//     reload builds a new host, and so a new base);
//   - every path that decides what is writable or protected (the roots,
//     allow_write, riot's own dirs) is still the file it was, or still
//     missing: checked on every call, one lstat each, so a call can write
//     nowhere the computation would not let it now;
//   - it is not older than maskRefresh. What is shown and hidden (allow_read,
//     the deny globs' matches, the secrets under $HOME) is found again then,
//     as deny globs were before there was a base: a secret made since is
//     masked within that time.
type profileBase struct {
	key baseKey
	at  time.Time

	// rootWrite are the roots' forms, writable in every profile; write
	// adds allow_write's for calls allowed to write.
	rootWrite, write []string
	// read are allow_read's forms and the state dir's.
	read []string
	// inRoot are the protected paths of every root, in order; a call
	// allowed by the user past a protected-path check drops those its
	// answer covered.
	inRoot []string
	// own are riot's own config and state dirs that exist: read-only
	// even where a writable path holds them.
	own []string
	// masks are what deny rules and deny_read hide.
	masks []string
	// watched is every path the base was computed from, as it was then.
	watched []pathState

	// secrets are the secret paths that exist and allow_read does not
	// uncover.
	secrets []string
}

// baseKey is what a base is computed from besides the filesystem.
type baseKey struct {
	cfg           *config.Config
	policy        *permission.Policy
	home, xdgConf string
}

// pathState is what a path was when the base looked at it: which file,
// or that there was none. A symlink is also known by what it leads to.
type pathState struct {
	path    string
	exists  bool
	fi      os.FileInfo
	target  os.FileInfo
	targetE bool
}

func statePath(path string) pathState {
	s := pathState{path: path}
	s.fi, s.exists = lstat(path)
	if s.exists && s.fi.Mode()&os.ModeSymlink != 0 {
		t, err := os.Stat(path)
		s.target, s.targetE = t, err == nil
	}
	return s
}

func lstat(path string) (os.FileInfo, bool) {
	fi, err := os.Lstat(path)
	return fi, err == nil
}

// holds reports whether the path is still what it was.
func (s pathState) holds() bool {
	now := statePath(s.path)
	if now.exists != s.exists || now.targetE != s.targetE {
		return false
	}
	if !s.exists {
		return true
	}
	if !sameFile(s.fi, now.fi) {
		return false
	}
	return !s.targetE || sameFile(s.target, now.target)
}

func sameFile(a, b os.FileInfo) bool {
	return a.Mode() == b.Mode() && os.SameFile(a, b)
}

func allHold(states []pathState) bool {
	for _, s := range states {
		if !s.holds() {
			return false
		}
	}
	return true
}

// profileBase is the host's base for a call now, computed again when it
// no longer holds. The caller must not change what it returns.
func (h *Host) profileBase() *profileBase {
	key := baseKey{cfg: h.cfg, policy: h.policy, home: os.Getenv("HOME"), xdgConf: os.Getenv("XDG_CONFIG_HOME")}
	h.sbox.mu.Lock()
	defer h.sbox.mu.Unlock()
	b := h.sbox.base
	if b == nil || b.key != key || h.now().Sub(b.at) > maskRefresh || !allHold(b.watched) {
		b = h.computeBase(key)
		h.sbox.base = b
	}
	return b
}

// computeBase is the call-independent part of a profile, from the
// filesystem as it is now.
func (h *Host) computeBase(key baseKey) *profileBase {
	sb := h.cfg.Sandbox
	b := &profileBase{key: key, at: h.now()}
	w := &b.watched
	roots := h.roots()
	for _, r := range roots {
		b.rootWrite = appendForms(b.rootWrite, r, w)
	}
	// allow_write is for calls allowed to write; a read-only call sees only
	// what every profile sees. Each mount costs every call time.
	b.write = slices.Clone(b.rootWrite)
	for _, aw := range sb.AllowWrite {
		b.write = appendForms(b.write, config.ExpandHome(aw.Path), w)
	}
	allowRead := make([]string, 0, len(sb.AllowRead))
	for _, r := range sb.AllowRead {
		abs := filepath.Clean(config.ExpandHome(r.Path))
		allowRead = append(allowRead, abs)
		b.read = appendForms(b.read, abs, nil)
	}
	// riot's own state (spilled results are read back with Bash too):
	// visible, never writable. Its config is not shown at all.
	b.read = appendForms(b.read, h.stateDir, nil)
	for _, r := range roots {
		for _, rel := range protectedInRoot {
			// Listed whether or not they exist (bwrap skips a missing
			// one), so the profile does not depend on them.
			b.inRoot = append(b.inRoot, filepath.Join(r, rel))
		}
	}
	// riot's own config and state stay read-only even where a writable
	// path holds them (a root or allow_write above them).
	for _, own := range []string{config.UserConfigDir(os.Getenv), h.stateDir} {
		if watch(w, own) {
			b.own = append(b.own, filepath.Clean(own))
		}
	}
	b.masks = append(b.masks, h.denyMasks()...)
	for _, d := range sb.DenyRead {
		b.masks = appendForms(b.masks, config.ExpandHome(d.Path), nil)
	}
	if home, err := os.UserHomeDir(); err == nil {
		for _, rel := range secretPaths {
			secret := filepath.Join(home, rel)
			if _, ok := lstat(secret); ok && !slices.ContainsFunc(allowRead, func(a string) bool { return within(a, secret) }) {
				b.secrets = append(b.secrets, secret)
			}
		}
	}
	return b
}

// denyMasks are the paths the Read deny rules match now.
func (h *Host) denyMasks() []string {
	globs := h.policy.DenyReadGlobs()
	if len(globs) == 0 {
		return nil
	}
	bases := h.roots()
	for _, r := range h.cfg.Sandbox.AllowRead {
		bases = append(bases, config.ExpandHome(r.Path))
	}
	masks, truncated := expandGlobs(globs, bases, maskWalkLimit)
	if truncated {
		h.log.Warn("deny rules' globs match under too many files to expand them all for the sandbox; files past the limit are not hidden by the sandbox (the permission chain still denies them)", "limit", maskWalkLimit)
	}
	return masks
}
