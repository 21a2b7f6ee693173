package config

import (
	"fmt"
	"time"
)

// Config is the effective configuration after every layer.
type Config struct {
	StateDir    string
	PluginDirs  []string
	Permissions Permissions
	Limits      Limits
	Results     Results
	Log         Log
	Sandbox     Sandbox
	// Plugins are in order: the builtins of the defaults first, then each
	// plugin in the order a later layer first names it.
	Plugins []Plugin
	// Hooks run before and after calls; see Hook.
	Hooks Hooks
	// Serve configures session hosts; see Serve.
	Serve Serve
	// MCPServers are the MCP servers, in the order a layer first names
	// them, then those of a trusted workspace's .mcp.json.
	MCPServers []MCPServer

	// Sources says where each effective value came from, by dotted key.
	Sources map[string]Source
	// Files are the config files that were read, in layer order.
	Files []string
	// Trust says whether the workspace's own layers applied, and what was
	// ignored because they did not.
	Trust Trust

	trustRead bool
}

// Permissions is the [permissions] table.
type Permissions struct {
	Mode           string
	Allow          []Rule
	Ask            []Rule
	Deny           []Rule
	AdditionalDirs []string
	Classifier     Classifier
}

// Rule is one permission rule as written, with where it was written. The
// core parses and matches it.
type Rule struct {
	Text   string
	Source Source
}

// Classifier is [permissions.classifier]: the auto-mode judge.
type Classifier struct {
	URL     string
	Model   string
	Timeout time.Duration
}

// Limits is the [limits] table.
type Limits struct {
	MaxParallel     int
	TurnBudgetChars int
	CallTimeout     time.Duration
	// StartTimeout bounds a plugin's handshake.
	StartTimeout time.Duration
}

// Results is the [results] table: how long spilled results are kept.
type Results struct {
	// MaxAge is how old a spilled result of a session no process has open
	// may get before it is pruned.
	MaxAge time.Duration
	// MaxTotalMB bounds all sessions' spilled results together; the oldest
	// of sessions no process has open go first.
	MaxTotalMB int
}

// Log is the [log] table.
type Log struct {
	Level string
	File  string
	// MaxSizeMB is the size at which the log file is rotated to FILE.1.
	MaxSizeMB int
}

// Plugin is one [plugins.NAME] table.
type Plugin struct {
	Name    string
	Enabled bool
	// Source is where `riot plugins install` gets the plugin: a Go package
	// path, a local directory or binary, or an https:// or file:// URL. A
	// plugin with a source runs only as .riot/plugins.lock pins it.
	Source string
	// Version is the version or constraint of a Go package source.
	Version string
	// Path replaces a builtin with an external binary, or names a
	// third-party plugin's binary instead of discovering it.
	Path string
	// SHA256 pins the binary; a mismatch stops it from starting.
	SHA256 string
	Args   []string
	// Env is added to the plugin's environment, and so to the environment
	// of any process its tools start.
	Env map[string]string
	// Timeout is the deadline of one call of this plugin's tools; zero
	// means limits.call_timeout.
	Timeout time.Duration
}

// Plugin returns the named plugin's entry.
func (c *Config) Plugin(name string) (Plugin, bool) {
	for _, p := range c.Plugins {
		if p.Name == name {
			return p, true
		}
	}
	return Plugin{}, false
}

// Source is where a value came from.
type Source struct {
	// Layer is "default", "user", "workspace", "local", "--config", "env"
	// or "flag"; "trust" for an error in the workspace trust record.
	Layer string
	// File and Line locate a value read from a file.
	File string
	Line int
	// Name is the environment variable or flag, for those layers.
	Name string
}

func (s Source) String() string {
	switch {
	case s.File != "" && s.Line > 0:
		return fmt.Sprintf("%s:%d", s.File, s.Line)
	case s.File != "":
		return s.File
	case s.Name != "":
		return s.Layer + " " + s.Name
	default:
		return s.Layer
	}
}

// Modes are the permission modes, as Claude Code names them.
var Modes = []string{"default", "acceptEdits", "plan", "auto", "dontAsk", "bypassPermissions"}

// logLevels are the levels [log] level takes.
var logLevels = []string{"trace", "debug", "info", "warn", "error"}

// Error is a configuration error: exit status 2 at the CLI.
type Error struct {
	Source Source
	Msg    string
}

func (e *Error) Error() string {
	if s := e.Source.String(); s != "" {
		return s + ": " + e.Msg
	}
	return e.Msg
}

// duration is a TOML string such as "90s" or "10m".
type duration struct{ time.Duration }

func (d *duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("%q is not a duration; write one such as \"90s\" or \"10m\"", string(b))
	}
	if v < 0 {
		return fmt.Errorf("%q is negative; a duration must be positive", string(b))
	}
	d.Duration = v
	return nil
}
