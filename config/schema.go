package config

import (
	"fmt"
	"time"
)

// Config is the effective configuration after every layer.
//
// Its fields, and those of the types below, are the schema: each key is
// declared once, by its field's tags (see types.go).
type Config struct {
	StateDir    string      `toml:"state_dir" trust:"loosen" env:"RIOT_STATE_DIR"`
	PluginDirs  []string    `toml:"plugin_dirs" trust:"loosen"`
	Permissions Permissions `toml:"permissions"`
	Limits      Limits      `toml:"limits"`
	Results     Results     `toml:"results"`
	Log         Log         `toml:"log"`
	Sandbox     Sandbox     `toml:"sandbox"`
	// Plugins are in order: the builtins of the defaults first, then each
	// plugin in the order a later layer first names it.
	Plugins []Plugin `toml:"plugins,named" trust:"loosen"`
	// Hooks run before and after calls; see Hook.
	Hooks Hooks `toml:"hooks"`
	// Serve configures session hosts; see Serve.
	Serve Serve `toml:"serve"`
	// MCP holds what applies to every MCP server riot wraps and to riot mcp.
	MCP MCP `toml:"mcp"`
	// MCPServers are the MCP servers, in the order a layer first names
	// them, then those of a trusted workspace's .mcp.json.
	MCPServers []MCPServer `toml:"mcp_servers,named" trust:"loosen"`
	// Remote sends riot run's turns to a session served elsewhere.
	Remote Remote `toml:"remote"`

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
	Mode           Mode       `toml:"mode" trust:"loosen" check:"mode" env:"RIOT_MODE"`
	Allow          []Rule     `toml:"allow" trust:"loosen"`
	Ask            []Rule     `toml:"ask" trust:"tighten"`
	Deny           []Rule     `toml:"deny" trust:"tighten"`
	AdditionalDirs []string   `toml:"additional_dirs" trust:"loosen"`
	Classifier     Classifier `toml:"classifier"`
}

// Rule is one permission rule as written, with where it was written. The
// core parses and matches it.
type Rule struct {
	Text   string
	Source Source
}

func (r *Rule) locate(text string, src Source) { r.Text, r.Source = text, src }

// Classifier is [permissions.classifier]: the auto-mode judge.
type Classifier struct {
	URL     string        `toml:"url" trust:"loosen" check:"url"`
	Model   string        `toml:"model" trust:"loosen"`
	Timeout time.Duration `toml:"timeout" trust:"loosen"`
}

// MCP is the [mcp] table.
type MCP struct {
	// ProgressInterval is how long a call through riot mcp runs before riot
	// reports it with a progress notification, and how often after that,
	// so that a client's own timeout sees the call alive.
	ProgressInterval time.Duration `toml:"progress_interval" trust:"loosen" check:"positive"`
	// DeferThreshold defers the tools of a server that serves more than
	// this many, unless its defer_loading says otherwise.
	DeferThreshold int `toml:"defer_threshold" trust:"loosen" min:"0" max:"100000"`
}

// Remote is the [remote] table: a session served by `riot mcp --listen`
// elsewhere (a pod, say), which riot run sends its turns to when URL is
// set. It loosens: it decides where calls run and whose token they carry.
type Remote struct {
	URL string `toml:"url" trust:"loosen" check:"url"`
	// TokenFile holds the session's bearer token.
	TokenFile string `toml:"token_file" trust:"loosen" check:"relative_to_file"`
	// Timeout is how long a call may go without word from the session
	// (its progress heartbeat or its result) before it fails.
	Timeout time.Duration `toml:"timeout" trust:"loosen" check:"positive"`
}

// Limits is the [limits] table.
type Limits struct {
	MaxParallel     int           `toml:"max_parallel" trust:"loosen" min:"1" max:"1000" env:"RIOT_MAX_PARALLEL"`
	TurnBudgetChars int           `toml:"turn_budget_chars" trust:"loosen" min:"1000" env:"RIOT_TURN_BUDGET_CHARS"`
	CallTimeout     time.Duration `toml:"call_timeout" trust:"loosen" check:"positive" env:"RIOT_CALL_TIMEOUT"`
	// StartTimeout bounds a plugin's handshake.
	StartTimeout time.Duration `toml:"start_timeout" trust:"loosen" check:"positive"`
}

// Results is the [results] table: how long spilled results are kept.
type Results struct {
	// MaxAge is how old a spilled result of a session no process has open
	// may get before it is pruned.
	MaxAge time.Duration `toml:"max_age" trust:"loosen" check:"positive"`
	// MaxTotalMB bounds all sessions' spilled results together; the oldest
	// of sessions no process has open go first.
	MaxTotalMB int `toml:"max_total_mb" trust:"loosen" min:"1"`
}

// Log is the [log] table.
type Log struct {
	Level string `toml:"level" trust:"loosen" check:"log_level" env:"RIOT_LOG_LEVEL"`
	File  string `toml:"file" trust:"loosen" env:"RIOT_LOG_FILE"`
	// MaxSizeMB is the size at which the log file is rotated to FILE.1.
	MaxSizeMB int `toml:"max_size_mb" trust:"loosen" min:"1"`
}

// Plugin is one [plugins.NAME] table.
type Plugin struct {
	Name    string
	Enabled bool `toml:"enabled"`
	// Source is where `riot plugins install` gets the plugin: a Go package
	// path, a local directory or binary, or an https:// or file:// URL. A
	// plugin with a source runs only as .riot/plugins.lock pins it. Kept
	// as written: the lock compares it, and a relative directory or binary
	// is relative to the workspace root.
	Source string `toml:"source"`
	// Version is the version or constraint of a Go package source.
	Version string `toml:"version"`
	// Path replaces a builtin with an external binary, or names a
	// third-party plugin's binary instead of discovering it; relative to
	// the file that says it.
	Path string `toml:"path" check:"relative_to_file"`
	// SHA256 pins the binary; a mismatch stops it from starting.
	SHA256 string   `toml:"sha256" check:"sha256"`
	Args   []string `toml:"args"`
	// Env is added to the plugin's environment, and so to the environment
	// of any process its tools start.
	Env map[string]string `toml:"env"`
	// Timeout is the deadline of one call of this plugin's tools; zero
	// means limits.call_timeout.
	Timeout time.Duration `toml:"timeout" unset:"limits.call_timeout"`
}

func (p *Plugin) begin(name string, _ Source) { p.Name = name }

func (p *Plugin) finish(_ []string, src Source) error {
	if !pluginName().MatchString(p.Name) {
		return &Error{Source: src, Msg: fmt.Sprintf("plugin name %q must be lowercase letters, digits, - and _, as in riot-tool-NAME", p.Name)}
	}
	return nil
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

// Mode is a permission mode, as Claude Code names it: what the chain's last
// step does with a call no earlier step decided.
type Mode string

// The permission modes. A new one is also added to Modes, and to every
// switch over Mode (the exhaustive linter finds them).
const (
	ModeDefault           Mode = "default"
	ModeAcceptEdits       Mode = "acceptEdits"
	ModePlan              Mode = "plan"
	ModeAuto              Mode = "auto"
	ModeDontAsk           Mode = "dontAsk"
	ModeBypassPermissions Mode = "bypassPermissions"
)

// Modes are the permission modes in the order riot lists them: the
// check:"mode" tag, its suggestions, the --mode flag's help and its
// completion read it.
var Modes = []Mode{ModeDefault, ModeAcceptEdits, ModePlan, ModeAuto, ModeDontAsk, ModeBypassPermissions}

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

// parseDuration reads a duration as a config file writes it, "90s" or
// "10m", and says what is wrong in words the user can act on.
func parseDuration(s string) (time.Duration, error) {
	v, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration; write one such as \"90s\" or \"10m\"", s)
	}
	if v < 0 {
		return 0, fmt.Errorf("%q is negative; a duration must be positive", s)
	}
	return v, nil
}
