package core

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core/permission"
	"github.com/riot-tools/riot/internal/bwrap"
	"github.com/riot-tools/riot/shared"
)

// sandboxHost is the host's side of the kernel sandbox: whether bubblewrap
// works here (found out once), the one warning when it does not, and the
// part of every profile that does not depend on the call.
type sandboxHost struct {
	probeOnce sync.Once
	probeErr  error
	// The probe is started ahead of the first call that needs it
	// (prestartSandboxProbe), once; Close waits for it.
	probeStart sync.Once
	probing    sync.WaitGroup
	// probed is set once the probe has begun, for the tests that check
	// that a turn needing no sandbox starts no bwrap.
	probed atomic.Bool

	// tmp is the session's temporary directory (sandboxtmp.go).
	tmp sessionTmp

	// mu guards base, the call-independent part of every profile.
	mu   sync.Mutex
	base *profileBase
	// trustRecent, for tests that cannot set a directory's change time
	// back: a directory changed within fileid.RacyWindow does not make a
	// base racy.
	trustRecent bool
	// findBwrap resolves bwrap; nil is bwrap.Find. Tests set it to stand
	// for a machine without bwrap.
	findBwrap func() (string, error)
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
// call allowed to write, unless its decision covered them: riot's and
// git's configuration, which decide permissions or run code later. Each is
// protected before it exists too (see inRootProtection).
var protectedInRoot = []inRootPath{
	{".git/hooks", true}, {".git/config", false}, {".riot", true}, {".mcp.json", false},
	// Claude Code's settings, whose hooks [hooks] import_claude runs.
	{".claude/settings.json", false}, {".claude/settings.local.json", false},
}

// inRootPath is a path protected in each root, and whether it is a
// directory, which riot makes where it is missing.
type inRootPath struct {
	rel string
	dir bool
}

// protectedInHome, under the home directory, run code later or hold the
// configuration of what does: programs found on PATH, services and
// autostart entries, shells' and login sessions' startup files, git's and
// editors' configuration. They are read-only in every profile, whatever
// roots or allow_write hold them (--add-dir ~ included), whether they
// exist or not: one missing is protected by refusing new names in its
// nearest existing directory (plugin/sandbox's freeze). riot's own
// directories are added to these by ownProtected.
var protectedInHome = []string{
	"bin", ".local/bin",
	".config/systemd/user", ".config/autostart", ".config/environment.d",
	".profile", ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".bashrc.d",
	".zshrc", ".zprofile", ".zshenv", ".zlogin", ".zlogout", ".config/fish",
	".cshrc", ".tcshrc", ".kshrc", ".login", ".pam_environment",
	".xprofile", ".xsession", ".xsessionrc", ".xinitrc",
	".gitconfig", ".config/git",
	".vimrc", ".vim", ".config/nvim", ".emacs", ".emacs.d",
	// Masked when it exists (secretPaths); protected so none is made.
	".ssh",
}

// SandboxStatus is what `riot config` and `riot explain` show of the
// sandbox: whether it is on, and why not.
type SandboxStatus struct {
	// Mode is [sandbox] mode.
	Mode config.SandboxMode
	// On: calls run sandboxed.
	On bool
	// Problem is why bwrap cannot run here, or "".
	Problem string
}

// SandboxStatus checks, once per host, whether bwrap works here.
func (h *Host) SandboxStatus(ctx context.Context) SandboxStatus {
	st := SandboxStatus{Mode: h.sandboxMode()}
	if st.Mode == config.SandboxOff {
		return st
	}
	if err := h.probeSandbox(ctx); err != nil {
		st.Problem = err.Error()
		return st
	}
	st.On = true
	return st
}

func (h *Host) sandboxMode() config.SandboxMode {
	if m := h.cfg.Sandbox.Mode; m != "" {
		return m
	}
	return config.SandboxAuto
}

func (h *Host) probeSandbox(ctx context.Context) error {
	h.sbox.probeOnce.Do(func() {
		h.sbox.probed.Store(true)
		// The answer stands for the host's life, so a turn cancelled
		// while bwrap starts must not make it "bwrap cannot start"; the
		// probe has its own timeout.
		find := h.sbox.findBwrap
		if find == nil {
			find = bwrap.Find
		}
		h.sbox.probeErr = probeSandbox(context.WithoutCancel(ctx), find)
		if h.sbox.probeErr != nil && h.sandboxMode() == config.SandboxAuto {
			h.log.Warn("the kernel sandbox is off for this session: " + h.sbox.probeErr.Error() + ". To confine Bash and Diagnostics, " + bwrap.Fix(h.sbox.probeErr) + "; or set [sandbox] mode = \"off\" to silence this warning.")
		}
	})
	return h.sbox.probeErr
}

// prestartSandboxProbe starts finding out whether bwrap works while a turn's
// plugins start, so that the first call does not wait for it after its
// plugin is up: a bwrap start is about 7 ms here, a sixth of a one-shot
// `riot call Grep` of a small tree.
func (h *Host) prestartSandboxProbe() {
	if h.sandboxMode() == config.SandboxOff {
		return
	}
	h.sbox.probeStart.Do(func() {
		h.sbox.probing.Add(1)
		go func() {
			defer h.sbox.probing.Done()
			_ = h.probeSandbox(context.Background())
		}()
	})
}

// ProbeSandbox checks that bubblewrap can start a sandbox here, with the
// namespaces every profile uses; the error says why not, for the user.
func ProbeSandbox(ctx context.Context) error { return probeSandbox(ctx, bwrap.Find) }

// probeSandbox runs bwrap.Probe on the bwrap find resolves (bwrap.Find
// but in tests): the one resolver, so that the host checks the bwrap the
// plugins run, from the system directories only, never from $PATH.
func probeSandbox(ctx context.Context, find func() (string, error)) error {
	path, err := find()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, sandboxProbeTimeout)
	defer cancel()
	return bwrap.Probe(ctx, path)
}

// startsNoProcesses: the plugin's registered manifest declares that it
// starts no processes (Manifest.StartsNoProcesses), so its calls
// have nothing for a sandbox to confine. The SDK enforces the declaration
// in the plugin; the host trusts it as it trusts a plugin to apply its
// profile. Unset reads as false: plugins of older SDKs, MCP servers and
// in-process tools (which register no manifest). A binary replaced while
// riot runs must serve the registered manifest (checkRestarted), so the
// declaration is the running process's.
func (p *pluginProc) startsNoProcesses() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.regManifest != nil && p.regManifest.StartsNoProcesses
}

// noSandboxReason says why a tool's calls get no sandbox in any mode, or
// "" when they get one as the mode says.
func noSandboxReason(t *tool) string {
	if !t.plugin.startsNoProcesses() {
		return ""
	}
	return fmt.Sprintf("none needed: the %s plugin declares that it starts no processes, and refuses every start itself", t.plugin.spec.Name)
}

// excludedReason is where a call's profile reason is shown for a call
// [sandbox] excluded_commands runs outside the sandbox.
const excludedReason = "excluded by [sandbox] excluded_commands, the user's decision"

// excluded reports whether every command subject of the call, as its tool
// reported them, matches a [sandbox] excluded_commands pattern, matched as
// an allow rule matches (a wildcard never covers a command that chains).
// A call without command subjects is never excluded: only what the user
// listed leaves the sandbox, never what an input asks for.
func (h *Host) excluded(req permission.Request) bool {
	patterns := h.cfg.Sandbox.ExcludedCommands
	if len(patterns) == 0 {
		return false
	}
	n := 0
	for _, s := range req.Subjects {
		if s.Kind != permission.CommandSubject {
			continue
		}
		n++
		if !slices.ContainsFunc(patterns, func(p config.Item) bool { return permission.CommandMatches(p.Text, s.Value) }) {
			return false
		}
	}
	return n > 0
}

// sandboxFor is the sandbox of an allowed call, or nil for none, or the
// message of a call that must fail because a required sandbox cannot
// start. A call of a plugin that starts no processes gets none without a
// probe in every mode, "required" included: nothing of it runs outside a
// sandbox, since nothing of it runs.
func (h *Host) sandboxFor(ctx context.Context, c *call) (*shared.SandboxProfile, string) {
	if c.tool.plugin.startsNoProcesses() || h.excluded(c.req) {
		return nil, ""
	}
	// Every mode is a case and there is no default, so that the exhaustive
	// linter finds this switch when a mode is added.
	mode := h.sandboxMode()
	switch mode {
	case config.SandboxOff:
		return nil, ""
	case config.SandboxAuto:
		if h.probeSandbox(ctx) != nil {
			return nil, ""
		}
		return h.startProfile(c.prep.ReadOnly, c.req, c.decision), ""
	case config.SandboxRequired:
		if err := h.probeSandbox(ctx); err != nil {
			return nil, fmt.Sprintf("The call was not run: the kernel sandbox is required ([sandbox] mode = \"required\") but %s. Tell the user to %s, or to set [sandbox] mode = \"auto\"; do not retry until then.", err, bwrap.Fix(err))
		}
		return h.startProfile(c.prep.ReadOnly, c.req, c.decision), ""
	}
	// The config refuses any other mode; should one get here, run nothing.
	return nil, fmt.Sprintf("The call was not run: [sandbox] mode = %q is not a mode riot knows. Tell the user to set it to \"auto\", \"required\" or \"off\"; do not retry until then.", mode)
}

// unconfinedNote is the line a call's result carries when the call ran
// without the sandbox it would have had, because [sandbox] mode = "auto"
// and bwrap cannot run here: the model must not take its commands for
// confined. It is on every such result, not once per session: a result
// stands alone (a resumed session, a new conversation on a session host,
// a context that dropped the first one), and it is one line. "" for a
// call that ran sandboxed, a plugin that starts no processes, or mode
// "off", which the user chose.
func (h *Host) unconfinedNote(c *call) string {
	if c.tool == nil || c.tool.plugin == nil || c.tool.plugin.startsNoProcesses() || h.sandboxMode() != config.SandboxAuto || !h.sbox.probed.Load() {
		return ""
	}
	err := h.probeSandbox(context.Background()) // answered once; this reads it
	if err == nil {
		return ""
	}
	return "(Ran without the kernel sandbox: " + strings.TrimSuffix(err.Error(), ".") + " ([sandbox] mode = \"auto\"). Nothing confined this call; tell the user if that matters.)"
}

// explainSandbox is the profile a call would get were it allowed, or nil
// when calls run unsandboxed.
func (h *Host) explainSandbox(ctx context.Context, readOnly bool, req permission.Request, d permission.Decision) *shared.SandboxProfile {
	if !h.SandboxStatus(ctx).On {
		return nil
	}
	if d.Behavior == permission.Ask {
		d.Behavior = permission.Allow
	}
	p := h.profile(readOnly, req, d)
	if p.Writable && proxyNetwork(h.networkMode()) {
		// What a call gets as it starts (withEgress), without the proxy
		// and credentials, which explaining does not make.
		p.Egress = &shared.Egress{}
	}
	return p
}
