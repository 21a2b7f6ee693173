package core

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core/permission"
	"github.com/riot-tools/riot/internal/fileid"
)

// profileBase is the part of every call's sandbox profile that does not
// depend on the call: the forms of the roots, allow_write, allow_read and
// the state dir, the protected paths and the masks. Computing it costs
// dozens of system calls and a walk for the deny globs, so a host
// computes it once and reuses it while what it was computed from holds:
//   - the config, the policy, $HOME and $XDG_CONFIG_HOME are the same (a
//     reload builds a new host, and so a new base);
//   - what it found of the paths it shows, makes writable or protects
//     still holds, checked on every call (see watches): nothing is
//     writable, shown or left unprotected that the computation would not
//     give now, and no secret is left unmasked that exists now (the
//     directories a missing secret would be made in are watched);
//   - it is not older than maskRefresh. Everything is found again then,
//     as deny globs were before there was a base: a deny rule's match
//     made since is masked within that time, and a path to show or make
//     writable made since is bound within it.
type profileBase struct {
	key baseKey
	at  time.Time

	// rootWrite are the roots' forms, writable in every profile; write
	// adds allow_write's for calls allowed to write.
	rootWrite, write []string
	// read are allow_read's forms.
	read []string
	// inRoot are the protected paths of every root, in order; a call
	// allowed by the user past a protected-path check drops those its
	// answer covered.
	inRoot []string
	// own are what runs code later or holds riot's configuration (riot's
	// plugin directories and binaries, protectedInHome, and riot's hidden
	// directories while they do not exist): read-only even where a
	// writable path holds them, missing or not.
	own []string
	// hidden are riot's state and user config directories, which hold
	// secrets and other sessions' state: hidden from every command.
	hidden []string
	// masks are what deny rules and deny_read hide.
	masks []string
	// watched are the facts about the filesystem it relies on. A base
	// does not change once computed: calls share it.
	watched watches

	// secrets are the secret paths that exist and allow_read does not
	// uncover.
	secrets []string
	// systemSecrets are the system's secret files that exist
	// (permission.SystemSecrets), by their resolved paths: hidden from a
	// command unless its profile lists one to show (profileOf).
	systemSecrets []string
	// hideEnv and passEnv are [sandbox] secret_env and pass_env, as every
	// profile carries them.
	hideEnv, passEnv []string
	// results are the forms of this session's results dir, shown
	// read-only to every command (profileOf); none while it does not exist,
	// and then it is watched, so the first spill brings a new base.
	results []string

	// makeOnce makes the protected directories that were missing (watched.made)
	// once per base, before the first sandbox of it starts: afterwards hold,
	// checked before every reuse, finds each still there, or the base is
	// computed again. failed are those it could not make.
	makeOnce sync.Once
	failed   []string
}

// baseKey is what a base is computed from besides the filesystem.
type baseKey struct {
	cfg           *config.Config
	policy        *permission.Policy
	home, xdgConf string
}

// watches are the facts about the filesystem that a base relies on for
// not being wider than the computation now, checked on every call. A path
// that existed and had no symlinks needs none: its mount follows whatever
// it is then, as the computation's would (which would also name a
// symlink's target, one name more), and bwrap skips a path that has gone. A path to show or make writable that was missing needs none
// either: while the base leaves it out it only narrows the profile, and
// the refresh adds it.
type watches struct {
	// gone are paths that were missing whose making changes the profile
	// (riot's own dirs, a root's .git or .mcp.json, a plugin's binary):
	// each is looked at.
	gone []string
	// made are the directories riot makes to protect them (a root's .riot
	// and .git/hooks), before a sandbox of the profile starts
	// (makeProtected): one missing is made again, or the profile
	// would list a missing path.
	made []string
	// aliases are paths whose symlinks resolved to another name, which
	// the base grants too: both must still lead to the same file.
	aliases [][2]string
	// dirs are the nearest existing directories above secrets that were
	// missing: making a secret there changes its directory, and the
	// secret is masked from the next call on, not from the refresh.
	dirs []fileid.ID
	// racy: one of dirs changed so shortly before the base was computed
	// that a further change could keep its times (fileid.ID.Racy), so the
	// base is not reused.
	racy bool
}

// missing notes p, which was missing and whose making changes the profile.
func (w *watches) missing(p string) {
	if !slices.Contains(w.gone, p) {
		w.gone = append(w.gone, p)
	}
}

// dir notes the directory that would change were the missing path p made.
func (w *watches) dir(p string, trustRecent bool) {
	for cur := filepath.Dir(p); ; cur = filepath.Dir(cur) {
		if id, err := dirIdentity(cur); err == nil {
			if slices.Contains(w.dirs, id) {
				return
			}
			w.dirs = append(w.dirs, id)
			// Wall time, not the host's clock: it is compared with the
			// filesystem's.
			w.racy = w.racy || !trustRecent && id.Racy(time.Now())
			return
		}
		if cur == filepath.Dir(cur) {
			return
		}
	}
}

// dirIdentity is what a directory's entries changing changes: its times
// (its change time no tool can set back) and its inode.
func dirIdentity(path string) (fileid.ID, error) { return fileid.Lstat(path) }

// alias notes that p resolved to phys.
func (w *watches) alias(p, phys string) {
	if w != nil {
		w.aliases = append(w.aliases, [2]string{p, phys})
	}
}

// hold reports whether the facts still hold.
func (w *watches) hold() bool {
	if w.racy {
		return false
	}
	for _, d := range w.dirs {
		if id, err := dirIdentity(d.Path); err != nil || id != d {
			return false
		}
	}
	for _, own := range w.gone {
		if _, err := os.Lstat(own); err == nil {
			return false
		}
	}
	for _, dir := range w.made {
		if _, err := os.Lstat(dir); err != nil {
			return false
		}
	}
	for _, a := range w.aliases {
		if !sameFile(a[0], a[1]) {
			return false
		}
	}
	return true
}

func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// profileBase is the host's base for a call now, computed again when it
// no longer holds. The caller must not change what it returns.
func (h *Host) profileBase() *profileBase {
	key := baseKey{cfg: h.cfg, policy: h.policy, home: os.Getenv("HOME"), xdgConf: os.Getenv("XDG_CONFIG_HOME")}
	h.sbox.mu.Lock()
	defer h.sbox.mu.Unlock()
	b := h.sbox.base
	if b == nil || b.key != key || h.now().Sub(b.at) > maskRefresh || !b.watched.hold() {
		b = h.computeBase(key)
		h.sbox.base = b
	}
	return b
}

// computeBase is the call-independent part of a profile, from the
// filesystem as it is now.
func (h *Host) computeBase(key baseKey) *profileBase {
	sb := h.cfg.Sandbox
	b := &profileBase{key: key, at: h.now(), hideEnv: config.Texts(sb.SecretEnv), passEnv: config.Texts(sb.PassEnv)}
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
		b.read = appendForms(b.read, abs, w)
	}
	for _, r := range roots {
		for _, pp := range protectedInRoot {
			if prot, ok := inRootProtection(r, pp, w); ok {
				b.inRoot = append(b.inRoot, prot)
			}
		}
	}
	// riot's state (the MCP token, other sessions' state and spills, the
	// session hosts' sockets) and its user config (trust records, MCP
	// servers' env): hidden even where a shown path holds them. This
	// session's spills are shown again by profile. One not made yet is
	// protected instead, so that no command makes it.
	for _, own := range h.hiddenOwn() {
		if _, err := os.Lstat(own); err == nil {
			b.hidden = appendForms(b.hidden, own, w)
		} else {
			w.missing(own)
			b.own = append(b.own, own)
		}
	}
	for _, own := range h.ownProtected(w) {
		if _, err := os.Lstat(own); err == nil {
			b.own = appendForms(b.own, own, w)
		} else if !slices.Contains(b.own, own) {
			b.own = append(b.own, own)
		}
	}
	// This session's results dir is made by the first spill: until then
	// it is watched, so that a command can read back a spill from the
	// next call on.
	if b.results = appendForms(nil, h.resultDir, w); len(b.results) == 0 && filepath.IsAbs(h.resultDir) {
		w.missing(filepath.Clean(h.resultDir))
	}
	b.masks = append(b.masks, h.denyMasks()...)
	for _, d := range sb.DenyRead {
		b.masks = appendForms(b.masks, config.ExpandHome(d.Path), nil)
	}
	if home, err := os.UserHomeDir(); err == nil {
		for _, rel := range secretPaths {
			secret := filepath.Join(home, rel)
			if slices.ContainsFunc(allowRead, func(a string) bool { return within(a, secret) }) {
				continue
			}
			if _, err := os.Lstat(secret); err == nil {
				b.secrets = append(b.secrets, secret)
			} else {
				w.dir(secret, h.sbox.trustRecent)
			}
		}
	}
	// What the sandbox shows of /etc holds /etc/shadow and host keys: a
	// command the analysis misjudges, run as root, could read them.
	b.systemSecrets = prefixMatches(permission.SystemSecrets(), w, h.sbox.trustRecent)
	return b
}

// prefixMatches are the existing paths whose names start with one of
// prefixes (/etc/shadow names /etc/shadow-, /etc/ssh/ssh_host_ each host
// key), each by its resolved path, which the sandbox's view of a symlink
// to it leads to too. The directory of each prefix is watched: a match
// made later is hidden from the next call on.
func prefixMatches(prefixes []string, w *watches, trustRecent bool) []string {
	var out []string
	add := func(p string) {
		if phys, err := filepath.EvalSymlinks(p); err == nil && !slices.Contains(out, phys) {
			out = append(out, phys)
		}
	}
	for _, pre := range prefixes {
		w.dir(pre, trustRecent)
		// The name itself, found even in a directory riot cannot list.
		add(pre)
		dir, base := filepath.Split(pre)
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), base) {
				add(filepath.Join(dir, e.Name()))
			}
		}
	}
	return out
}

// hiddenOwn are riot's directories no command may see: its state dir and
// its user config dir, and the log file wherever log.file puts it.
func (h *Host) hiddenOwn() []string {
	var out []string
	for _, p := range []string{h.stateDir, config.UserConfigDir(os.Getenv), h.logFile} {
		if p == "" || !filepath.IsAbs(p) {
			continue
		}
		p = filepath.Clean(p)
		if !slices.ContainsFunc(out, func(o string) bool { return within(p, o) }) {
			out = append(out, p)
		}
	}
	return out
}

// ownProtected are the paths that run code later or hold riot's
// configuration outside the roots: riot's plugin directories, the
// binaries of the plugins it serves, and protectedInHome. A missing plugin
// directory inside a root is left out (watched, so protected once made):
// protecting it would refuse every new name in the root's directory that
// would hold it.
func (h *Host) ownProtected(w *watches) []string {
	var out []string
	roots := h.roots()
	for _, d := range h.cfg.SearchDirs(h.opts.Workspace, "", os.Getenv) {
		if slices.ContainsFunc(roots, func(r string) bool { return within(d.Path, filepath.Join(r, ".riot")) }) {
			continue // .riot/plugins: .riot is protected
		}
		if _, err := os.Lstat(d.Path); err != nil && coveredBy(roots, d.Path) {
			w.missing(d.Path)
			continue
		}
		out = append(out, filepath.Clean(d.Path))
	}
	for _, p := range h.opts.Plugins {
		if !filepath.IsAbs(p.Path) {
			continue
		}
		if _, err := os.Lstat(p.Path); err != nil {
			w.missing(p.Path)
			continue
		}
		out = append(out, filepath.Clean(p.Path))
	}
	if home, err := config.HomeDir(); err == nil {
		// What lives in ~/.config lives in $XDG_CONFIG_HOME where that is
		// set elsewhere: systemd, autostart, git and fish read it there.
		xdg := os.Getenv("XDG_CONFIG_HOME")
		if !filepath.IsAbs(xdg) || filepath.Clean(xdg) == filepath.Join(home, ".config") {
			xdg = ""
		}
		for _, rel := range protectedInHome {
			out = append(out, filepath.Join(home, rel))
			if sub, ok := strings.CutPrefix(rel, ".config/"); ok && xdg != "" {
				out = append(out, filepath.Join(xdg, sub))
			}
		}
	}
	return out
}

// inRootProtection is how the protected path pp of root is protected: it
// is listed when it exists, or, to be made by makeProtected before a
// sandbox starts, when it is a directory whose
// parent exists (a missing path bwrap would skip, and a placeholder bound
// there would leave a mount point in the user's tree that another
// sandbox's command could remove; an empty .riot/ or .git/hooks is no
// change git shows), or when it is a file in a subdirectory of the root,
// whose new names the sandbox then refuses (.git/config in a .git that has
// none). A missing file directly in the root (.mcp.json) is not listed:
// refusing new names in the root would refuse every new file there, and a
// workspace file made or changed since the user trusted the workspace is
// not trusted again until the user looks (config/trust). Nor is anything
// below a directory that does not exist (.git): that a command may make,
// as git init does. What was missing is watched, so the profile follows.
func inRootProtection(root string, pp inRootPath, w *watches) (string, bool) {
	prot := filepath.Join(root, pp.rel)
	if _, err := os.Lstat(prot); err == nil {
		return prot, true
	}
	parent := filepath.Dir(prot)
	if fi, err := os.Stat(parent); err != nil || !fi.IsDir() {
		w.missing(parent)
		return "", false
	}
	switch {
	case pp.dir:
		// Made only when a sandbox starts (makeProtected), so that
		// computing a profile, as `riot explain` does, changes nothing.
		w.made = append(w.made, prot)
		return prot, true
	case parent == filepath.Clean(root):
		w.missing(prot)
		return "", false
	}
	return prot, true
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

// expandGlobs finds what the absolute globs match, walking at most limit
// entries. A pattern that matches anywhere (/**/x) is looked for under
// bases; any other below its literal leading directory. A directory that
// matches is one mask, not walked further.
func expandGlobs(globs, bases []string, limit int) (matches []string, truncated bool) {
	seen := map[string]bool{}
	budget := limit
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			matches = append(matches, p)
		}
	}
	for _, g := range globs {
		if g == "/**" {
			// A bare Read deny rule: the chain denies every read, and
			// hiding the whole filesystem would leave nothing to run.
			continue
		}
		starts := []string{literalPrefix(g)}
		if strings.HasPrefix(g, "/**/") {
			starts = bases
		}
		for _, start := range starts {
			if !doublestar.ValidatePattern(g) {
				continue
			}
			if start == g {
				if _, err := os.Lstat(g); err == nil {
					add(g)
				}
				continue
			}
			_ = filepath.WalkDir(start, func(path string, e fs.DirEntry, err error) error {
				if budget--; budget < 0 {
					truncated = true
					return filepath.SkipAll
				}
				if err != nil {
					// An unreadable directory hides nothing to mask.
					return nil //nolint:nilerr // see above
				}
				if ok, _ := doublestar.Match(g, path); ok {
					add(path)
					if e.IsDir() {
						return filepath.SkipDir
					}
				}
				return nil
			})
		}
	}
	return matches, truncated
}

// literalPrefix is the longest leading run of a glob's components with no
// pattern characters: the directory to walk from, or the glob itself
// when it is a literal path.
func literalPrefix(g string) string {
	parts := strings.Split(g, "/")
	for i, part := range parts {
		if strings.ContainsAny(part, `*?[]{}\`) {
			if i <= 1 {
				return "/"
			}
			return strings.Join(parts[:i], "/")
		}
	}
	return g
}

// makeProtected makes the protected directories of b that do not exist
// yet (a root's .riot, .git/hooks), just before the first sandbox of b
// starts: never while a profile is only computed (`riot explain`). It
// returns those it could not make, which the profile must not list: the
// sandbox would refuse every new name in the directory that would hold
// them. A later call reuses b only when hold finds each made directory
// there, so it makes them once per base (and a base whose directory could
// not be made is never reused).
func (b *profileBase) makeProtected() []string {
	b.makeOnce.Do(func() {
		for _, dir := range b.watched.made {
			if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
				b.failed = append(b.failed, dir)
			}
		}
	})
	return b.failed
}
