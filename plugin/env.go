package plugin

import (
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/riot-tools/riot/internal/paths"
	"github.com/riot-tools/riot/internal/tmpview"
	"github.com/riot-tools/riot/plugin/sandbox"
	"github.com/riot-tools/riot/shared"
)

// Env is what a call knows about the session it serves and the world it may
// touch. The host fills the session fields on every call; plugins keep no
// state between calls.
type Env struct {
	// SessionID identifies the host session.
	SessionID string
	// CallID is the tool_use id of this call.
	CallID string
	// Cwd is the workspace's working directory. Relative paths in the input
	// resolve against it.
	Cwd string
	// Roots are the workspace roots the permission fence allows.
	Roots []string
	// ResultsDirs are where the host stores spilled results, which read-like
	// tools may read without asking.
	ResultsDirs []string
	// DenyRead are the user's Read(...) deny rules as absolute doublestar
	// globs; see Denied.
	DenyRead []string
	// AllowedReads are the call's read paths as the host's permission
	// chain resolved and allowed them; see OpenRead. Empty in Prepare.
	AllowedReads []string
	// AllowedWrites are the call's write paths as the host's permission
	// chain resolved and allowed them (symlinks followed); Edit and Write
	// create or replace only these. Empty in Prepare.
	AllowedWrites []string
	// Mode is the permission mode, for tools whose behaviour depends on it.
	Mode string
	// Deadline is when the host gives up on the call; zero means none.
	Deadline time.Time
	// OneShotHost: the host serves one invocation (`riot call`, `riot
	// run`) and ends this plugin when it exits, so nothing a call leaves
	// running outlives that invocation.
	OneShotHost bool

	// Sandbox is the kernel sandbox the host decided for this call, as wide
	// as its permission decision; nil means none. Proc applies it.
	Sandbox *sandbox.Profile

	// Clock, Proc and Net are the tool's access to time, processes and the
	// network. plugintest replaces them with FixedClock and null versions.
	// Proc starts processes in Sandbox.
	Clock Clock
	Proc  Proc
	Net   Net
	// Log goes to the plugin's stderr, which the host keeps in its log.
	// Never to stdout: stdout is the plugin protocol.
	Log hclog.Logger

	// tmp is the session's /tmp, where the sandbox shows it (Abs), or nil.
	tmp      *tmpview.View
	state    map[string]string
	baseProc Proc
	shared   map[string]map[string]string
	output   io.Writer
	progress func(string)
}

// ProcIn is a Proc whose processes run in profile instead of the call's
// own sandbox, such as Sandbox.AllowedCall() for a checker that runs build
// scripts. A nil profile, or a Proc that cannot sandbox, gives Proc.
func (e *Env) ProcIn(profile *sandbox.Profile) Proc {
	if sp, ok := e.baseProc.(SandboxingProc); ok && profile != nil {
		return sp.Sandboxed(profile)
	}
	return e.Proc
}

// State is the session state recorded by earlier outcomes of this plugin's
// tools, or "".
func (e *Env) State(key string) string { return e.state[key] }

// StateKeys are the keys of this plugin's session state, sorted.
func (e *Env) StateKeys() []string { return slices.Sorted(maps.Keys(e.state)) }

// StateOf is the session state another plugin's tools recorded under key,
// or "": Edit reads what Read saw. plugin is the plugin's name in the
// host's config, such as "read". It is for reading only; an outcome
// updates only its own plugin's keys.
func (e *Env) StateOf(plugin, key string) string { return e.shared[plugin][key] }

// Output is the call's streamed text content. What a tool writes here
// reaches the host as it is produced, in order, ahead of the content of the
// final Outcome; the host spills it to a file as it arrives if it is large.
// Outside Call it discards.
func (e *Env) Output() io.Writer {
	if e.output == nil {
		return io.Discard
	}
	return e.output
}

// Progress reports progress, such as "checked 12 of 40 packages", which a
// host shows beside the call on a terminal.
func (e *Env) Progress(message string) {
	if e.progress != nil {
		e.progress(message)
	}
}

// Abs resolves a path from the input: ~ and ~/x are under the home
// directory, a relative path is under Cwd, a path in /tmp that the
// session's sandbox shows from the session's temporary directory is that
// directory's file (so the tool finds what Bash's commands left in /tmp;
// Shown names it back), and `.` and `..` are applied
// as the kernel applies them: a `..` after a symlink is the parent of the
// link's target, so `lnk/../x`, where lnk points to /outside/sub, is
// /outside/x (filepath.Clean would say x beside lnk, and the host would
// check a file the tool does not open). Other symlinks stay as written;
// the host's fence resolves them. A path whose `..` cannot be applied (a
// broken link before it) is returned unclean, for the host to refuse.
func (e *Env) Abs(path string) string {
	abs := e.unclean(path)
	if !filepath.IsAbs(abs) {
		return filepath.Clean(abs) // no Cwd to put it under
	}
	if c, err := paths.Clean(paths.OS{}, abs); err == nil {
		return c
	}
	return abs
}

// Rel shows path relative to Cwd when it lies under it, and absolute
// otherwise (as Shown): the form the model reads most easily.
func (e *Env) Rel(path string) string {
	path = e.Shown(path)
	if e.Cwd == "" {
		return path
	}
	rel, err := filepath.Rel(e.Cwd, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return path
	}
	return rel
}

// Shown is an absolute path as the model knows it: a file of the
// session's temporary directory by its /tmp name, where the session's
// commands see it, and any other path as it is. Every path a tool shows
// the model goes through Shown or Rel: the host's name of the directory
// is not the model's to use.
func (e *Env) Shown(path string) string { return e.tmp.Shown(path) }

// expandHome puts ~ and ~/x under the home directory; other paths, and ~
// when there is no home directory, stay as they are.
func expandHome(path string) string {
	if path == "~" || strings.HasPrefix(path, "~/") {
		if home, err := paths.Home(); err == nil {
			return home + path[1:]
		}
	}
	return path
}

// SessionLastsOneInvocation reports whether the call's session ends with
// the host that serves it (`riot run` or `riot call` without --session):
// what calls recorded in an earlier invocation is not known to this one.
func (e *Env) SessionLastsOneInvocation() bool { return shared.Ephemeral(e.SessionID) }
