package core

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core/permission"
	toolv1 "github.com/riot-tools/riot/shared/proto/riot/tool/v1"
)

// sandboxHost is the host's side of the kernel sandbox: whether bubblewrap
// works here (found out once), the one warning when it does not, and the
// part of every profile that does not depend on the call.
type sandboxHost struct {
	probeOnce sync.Once
	probeErr  error

	// mu guards base, the call-independent part of every profile.
	mu   sync.Mutex
	base *profileBase
}

const (
	// maskRefresh is how long a profile's base (expanded deny globs
	// included) is reused: a long-lived host sees files created since
	// within this time.
	maskRefresh = 10 * time.Second
	// maskWalkLimit bounds the entries walked to expand deny globs.
	maskWalkLimit = 50_000
	// sandboxProbeTimeout bounds the check that bwrap works.
	sandboxProbeTimeout = 5 * time.Second
)

// secretPaths, under the home directory, are hidden from every sandboxed
// command unless [sandbox] allow_read lists them: a read the analysis
// missed must not reach credentials.
var secretPaths = []string{
	".ssh", ".aws", ".gnupg", ".config/gcloud", ".azure", ".kube", ".docker",
	".netrc", ".git-credentials", ".npmrc", ".pypirc", ".config/gh", ".password-store",
	".vault-token", ".terraform.d", ".config/hub", ".local/share/keyrings",
}

// protectedInRoot stay read-only inside each workspace root, even for a
// call allowed to write, unless its decision covered them.
var protectedInRoot = []string{".git/hooks", ".git/config", ".riot"}

// SandboxStatus is what `riot config` and `riot explain` show of the
// sandbox: whether it is on, and why not.
type SandboxStatus struct {
	// Mode is [sandbox] mode.
	Mode string
	// On: calls run sandboxed.
	On bool
	// Problem is why bwrap cannot run here, or "".
	Problem string
}

// SandboxStatus checks, once per host, whether bwrap works here.
func (h *Host) SandboxStatus(ctx context.Context) SandboxStatus {
	st := SandboxStatus{Mode: h.sandboxMode()}
	if st.Mode == "off" {
		return st
	}
	if err := h.probeSandbox(ctx); err != nil {
		st.Problem = err.Error()
		return st
	}
	st.On = true
	return st
}

func (h *Host) sandboxMode() string {
	if m := h.cfg.Sandbox.Mode; m != "" {
		return m
	}
	return "auto"
}

func (h *Host) probeSandbox(ctx context.Context) error {
	h.sbox.probeOnce.Do(func() {
		h.sbox.probeErr = ProbeSandbox(ctx)
		if h.sbox.probeErr != nil && h.sandboxMode() == "auto" {
			h.log.Warn("the kernel sandbox is off for this session: " + h.sbox.probeErr.Error() + ". Install the bubblewrap package (apt-get install bubblewrap) to confine Bash and Diagnostics, or set [sandbox] mode = \"off\" to silence this warning.")
		}
	})
	return h.sbox.probeErr
}

// ProbeSandbox checks that bubblewrap can start a sandbox here, with the
// namespaces every profile uses; the error says why not, for the user.
func ProbeSandbox(ctx context.Context) error {
	path, err := exec.LookPath("bwrap")
	if err != nil {
		return errors.New("bwrap is not installed (the package is bubblewrap)")
	}
	ctx, cancel := context.WithTimeout(ctx, sandboxProbeTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--unshare-user", "--unshare-pid", "--unshare-net", "--die-with-parent",
		"--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "true").CombinedOutput()
	if err != nil {
		why := strings.TrimSpace(string(out))
		if i := strings.IndexByte(why, '\n'); i >= 0 {
			why = why[:i]
		}
		if why == "" {
			why = "it exited with " + err.Error()
		}
		return fmt.Errorf("bwrap cannot start a sandbox here (%s; user namespaces may be disabled)", why)
	}
	return nil
}

// sandboxFor is the sandbox of an allowed call, or nil for none, or the
// message of a call that must fail because a required sandbox cannot
// start.
func (h *Host) sandboxFor(ctx context.Context, c *call) (*toolv1.Sandbox, string) {
	switch h.sandboxMode() {
	case "off":
		return nil, ""
	case "required":
		if err := h.probeSandbox(ctx); err != nil {
			return nil, fmt.Sprintf("The call was not run: the kernel sandbox is required ([sandbox] mode = \"required\") but %s. Tell the user to install bubblewrap (Debian and Ubuntu: `apt-get install bubblewrap`) and make sure unprivileged user namespaces are enabled, or to set [sandbox] mode = \"auto\"; do not retry until then.", err)
		}
	default:
		if h.probeSandbox(ctx) != nil {
			return nil, ""
		}
	}
	return h.profile(c.prep.GetReadOnly(), c.req, c.decision), ""
}

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
	// A path outside the roots that the decision allowed is added for this
	// call: reads read-only, writes writable.
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
	p.ProtectedPaths = make([]string, 0, len(b.inRoot)+len(b.own))
	for _, prot := range b.inRoot {
		if !decisionCovers(d, prot) {
			p.ProtectedPaths = append(p.ProtectedPaths, prot)
		}
	}
	p.ProtectedPaths = append(p.ProtectedPaths, b.own...)
	p.MaskedPaths = slices.Concat(b.masks, b.secrets)
	return p
}

// explainSandbox is the profile a call would get were it allowed, or nil
// when calls run unsandboxed.
func (h *Host) explainSandbox(ctx context.Context, readOnly bool, req permission.Request, d permission.Decision) *toolv1.Sandbox {
	if !h.SandboxStatus(ctx).On {
		return nil
	}
	if d.Behavior == permission.Ask {
		d.Behavior = permission.Allow
	}
	return h.profile(readOnly, req, d)
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
func appendForms(list []string, p string, watched *[]pathWatch) []string {
	if !filepath.IsAbs(p) {
		return list
	}
	p = filepath.Clean(p)
	if _, err := os.Lstat(p); err != nil {
		if watched != nil {
			*watched = append(*watched, pathWatch{path: p})
		}
		return list
	}
	if !slices.Contains(list, p) {
		list = append(list, p)
	}
	if phys, err := filepath.EvalSymlinks(p); err == nil && phys != p {
		if watched != nil {
			*watched = append(*watched, pathWatch{path: p, alias: phys})
		}
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
