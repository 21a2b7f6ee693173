package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/riot-tools/riot/config"
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

// attachedTurn runs uses in the session's host when one serves this
// session and workspace (starting one first when daemon is set); ok is
// false when the caller must run the turn itself, as without a host.
func (a *app) attachedTurn(ctx context.Context, uses []core.ToolUse, daemon, knownOnly bool, onProgress func(core.Progress)) (_ []core.ToolResult, ok bool, _ error) {
	if a.session == "" {
		return nil, false, nil
	}
	cfg, ws, err := a.trustedConfig()
	if err != nil {
		return nil, false, err
	}
	specs, _, err := a.resolved(cfg, ws)
	if err != nil {
		return nil, false, err
	}
	paths := a.hostPaths(cfg, ws)
	term := interactive(a.stdin, a.stderr)
	hello := sessionhost.Hello{Build: buildID(), Session: a.session, Workspace: ws, Config: fingerprint(cfg, specs), Terminal: term, KnownOnly: knownOnly}
	var prompter permission.Prompter
	if term {
		prompter = &permission.TTYPrompter{In: a.stdin, Out: a.stderr}
	}
	results, err := sessionhost.Turn(ctx, paths.Socket, hello, uses, prompter, onProgress)
	if errors.Is(err, sessionhost.ErrNoHost) && (daemon || cfg.Serve.Daemon) {
		if err = a.startDaemon(ctx, ws, paths); err == nil {
			results, err = sessionhost.Turn(ctx, paths.Socket, hello, uses, prompter, onProgress)
		}
	}
	var refused *sessionhost.RefusedError
	switch {
	case err == nil:
		return results, true, nil
	case errors.Is(err, sessionhost.ErrNoHost):
		return nil, false, nil
	case errors.Is(err, sessionhost.ErrHostDied):
		return hostDied(uses), true, nil
	case errors.As(err, &refused):
		fmt.Fprintf(a.stderr, "riot: warning: %s; running this turn here.\n", refused.Reason)
	case errors.Is(err, sessionhost.ErrUnsafe):
		fmt.Fprintf(a.stderr, "riot: warning: not using the session host: %v; running this turn here.\n", err)
	default:
		fmt.Fprintf(a.stderr, "riot: warning: cannot use the session host (%v); running this turn here.\n", err)
	}
	return nil, false, nil
}

// hostDied is the turn's results when the host went away with it: the
// calls may have run in part, so they are not run again here.
func hostDied(uses []core.ToolUse) []core.ToolResult {
	out := make([]core.ToolResult, len(uses))
	for i, u := range uses {
		out[i] = core.ToolResult{ToolUseID: u.ID, Name: u.Name, Status: core.StatusFailed, Content: []core.Block{{Type: "text",
			Text: "The session host exited before this call finished, so it may have run in part. Check its effects (read the files, or run a read-only command) before you run it again."}}}
	}
	return out
}
