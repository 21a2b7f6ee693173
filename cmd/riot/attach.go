package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/riot-tools/riot/cmd/riot/internal/ident"
	"github.com/riot-tools/riot/cmd/riot/internal/turnio"
	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/config/lock"
	"github.com/riot-tools/riot/core"
	"github.com/riot-tools/riot/core/permission"
	"github.com/riot-tools/riot/core/sessionhost"
)

// hostLifetime is the RIOT_HOST_LIFETIME a session host gives its plugins,
// so that Bash tells the truth about how long a background job lives.
const hostLifetime = "session-host"

// fingerprint is what a host is built from: the effective config (flags
// included) and each plugin binary's identity. A client and its host
// compare theirs; a host whose own changed reloads.
func fingerprint(cfg *config.Config, specs []core.PluginSpec) string {
	h := sha256.New()
	_ = json.NewEncoder(h).Encode(cfg)
	for _, s := range specs {
		fmt.Fprintf(h, "%s\x00%s\x00%q\x00", s.Name, s.Path, s.Args)
		if info, err := os.Stat(s.Path); err == nil {
			fmt.Fprintf(h, "%d\x00%d\x00", info.Size(), info.ModTime().UnixNano())
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// resolved is the plugins the config names, as a host would start them.
func (a *app) resolved(cfg *config.Config, ws string) ([]core.PluginSpec, []core.PluginStatus, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, nil, &exitError{code: exitUsage, msg: "cannot find the riot executable: " + err.Error()}
	}
	specs, statuses := core.Resolver{Workspace: ws, Exe: exe, Builtins: builtinNames()}.ResolvePlugins(cfg)
	return specs, statuses, nil
}

// hostPaths are the files of this invocation's session host.
func (a *app) hostPaths(cfg *config.Config, ws string) sessionhost.Paths {
	return sessionhost.PathsFor(sessionhost.Dir(cfg.ResolvedStateDir(nil)), a.session, ws)
}

// envStateDir is the state dir as the environment alone puts it
// (RIOT_STATE_DIR, which outranks every file, or XDG_STATE_HOME, or
// HOME): where a client looks for its host before reading any config.
func envStateDir() string {
	return (&config.Config{StateDir: os.Getenv("RIOT_STATE_DIR")}).ResolvedStateDir(nil)
}

// configInputs digests what this invocation's config is made of besides
// its files (ident.Inputs).
func (a *app) configInputs() string {
	extra := a.configFile
	if extra != "" {
		if abs, err := filepath.Abs(config.ExpandHome(extra)); err == nil {
			extra = abs
		}
	}
	return ident.Inputs(ident.Flags{Mode: a.mode, Allow: a.allow, Deny: a.deny, Ask: a.ask, AddDirs: a.addDirs, ConfigFile: extra}, os.Environ())
}

// attachedTurn runs uses in the session's host when one serves this
// session and workspace (starting one first when daemon is set); ok is
// false when the caller must run the turn itself, as without a host.
// With render set (riot run's --format), the host renders the results and
// the reply holds the text to print; else, or when it could not, the
// results.
//
// Without a terminal it connects before reading any config: the host
// rereads the config files and checks its plugins before each turn anyway,
// and refuses a client whose flags or environment differ from its own.
// Only when no host answers where the environment puts the state is the
// config read, to look where it may put the state instead. On a terminal
// the config is read first, since it may ask to trust the workspace.
func (a *app) attachedTurn(ctx context.Context, uses []core.ToolUse, daemon, knownOnly bool, render string, onProgress func(core.Progress)) (_ sessionhost.Reply, ok bool, _ error) {
	if a.session == "" {
		return sessionhost.Reply{}, false, nil
	}
	ws, err := a.workspace()
	if err != nil {
		return sessionhost.Reply{}, false, err
	}
	term := interactive(a.stdin, a.stderr)
	hello := sessionhost.Hello{Build: ident.Build(), Session: a.session, Workspace: ws, Inputs: a.configInputs(), Terminal: term, KnownOnly: knownOnly, Render: render}
	hs := sessionhost.Handlers{
		Progress: onProgress,
		Warn:     func(line string) { fmt.Fprintf(a.stderr, "riot: warning: %s\n", line) },
		// The host's lines for the user: the untrusted-workspace line,
		// which the client that read the config printed itself, and what
		// became of the session's state.
		Notice: func(text string) {
			for _, line := range strings.Split(text, "\n") {
				if !a.trustWarned || !strings.Contains(line, "riot trust ") {
					fmt.Fprintf(a.stderr, "riot: %s\n", line)
				}
			}
		},
	}
	var cfg *config.Config
	paths := sessionhost.PathsFor(sessionhost.Dir(envStateDir()), a.session, ws)
	if term {
		if cfg, _, err = a.trustedConfig(); err != nil {
			return sessionhost.Reply{}, false, err
		}
		// The user's "always allow" on this terminal is saved here, as the
		// user's, before the host's own write finds the rule there.
		hs.Prompter = &trustingPrompter{Prompter: &permission.TTYPrompter{In: a.stdin, Out: a.stderr}, a: a, cfg: cfg}
		paths = a.hostPaths(cfg, ws)
	}
	reply, err := sessionhost.TurnReply(ctx, paths.Socket, hello, uses, hs)
	if errors.Is(err, sessionhost.ErrNoHost) && cfg == nil {
		var cerr error
		if cfg, _, cerr = a.trustedConfig(); cerr != nil {
			return sessionhost.Reply{}, false, cerr
		}
		if p := a.hostPaths(cfg, ws); p != paths {
			paths = p
			reply, err = sessionhost.TurnReply(ctx, paths.Socket, hello, uses, hs)
		}
	}
	if errors.Is(err, sessionhost.ErrNoHost) && (daemon || cfg.Serve.Daemon) {
		if err = a.startDaemon(ctx, ws, paths); err == nil {
			reply, err = sessionhost.TurnReply(ctx, paths.Socket, hello, uses, hs)
		}
	}
	var refused *sessionhost.RefusedError
	switch {
	case err == nil:
		return reply, true, nil
	case errors.Is(err, sessionhost.ErrNoHost):
		return sessionhost.Reply{}, false, nil
	case errors.Is(err, sessionhost.ErrHostDied):
		return sessionhost.Reply{Results: turnio.HostDied(uses)}, true, nil
	case errors.As(err, &refused):
		fmt.Fprintf(a.stderr, "riot: warning: %s; running this turn here.\n", refused.Reason)
	case errors.Is(err, sessionhost.ErrUnsafe):
		fmt.Fprintf(a.stderr, "riot: warning: not using the session host: %v; running this turn here.\n", err)
	default:
		fmt.Fprintf(a.stderr, "riot: warning: cannot use the session host (%v); running this turn here.\n", err)
	}
	return sessionhost.Reply{}, false, nil
}

// configPaths are the paths a host's config and plugins were read from,
// present or not, whose change makes the host read them again: the config
// layers, .mcp.json, the trust record, the plugin lock, the directories
// searched for plugins and the riot-tool-* entries in them (a chmod there
// changes no directory), the sandbox paths that must exist, and each
// plugin's binary.
func (a *app) configPaths(cfg *config.Config, ws string, specs []core.PluginSpec) []string {
	var paths []string
	if dir := config.UserConfigDir(os.Getenv); dir != "" {
		paths = append(paths, filepath.Join(dir, "config.toml"))
	}
	paths = append(paths,
		filepath.Join(ws, ".riot", "config.toml"), config.LocalFile(ws), filepath.Join(ws, ".riot", "plugins"),
		filepath.Join(ws, config.MCPJSONFile), cfg.Trust.Record, lock.Path(ws))
	if a.configFile != "" {
		paths = append(paths, config.ExpandHome(a.configFile))
	}
	exe, _ := os.Executable()
	for _, d := range cfg.SearchDirs(ws, filepath.Dir(exe), nil) {
		paths = append(paths, d.Path)
		entries, _ := os.ReadDir(d.Path)
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), config.PluginPrefix) {
				paths = append(paths, filepath.Join(d.Path, e.Name()))
			}
		}
	}
	for _, list := range [][]config.SandboxPath{cfg.Sandbox.AllowWrite, cfg.Sandbox.AllowRead, cfg.Sandbox.DenyRead} {
		for _, p := range list {
			paths = append(paths, config.ExpandHome(p.Path))
		}
	}
	paths = append(paths, exe)
	for _, s := range specs {
		paths = append(paths, s.Path)
		if s.Standalone != "" {
			paths = append(paths, s.Standalone)
		}
	}
	// Each once: the host looks at every path before each turn, and the
	// builtin plugins are all riot's own executable.
	seen := make(map[string]bool, len(paths))
	return slices.DeleteFunc(paths, func(p string) bool {
		dup := seen[p]
		seen[p] = true
		return dup
	})
}
