package config

import (
	_ "embed"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/riot-tools/riot/config/trust"
)

//go:embed defaults.toml
var defaultsTOML []byte

// Defaults is the text of the embedded defaults.
func Defaults() []byte { return slices.Clone(defaultsTOML) }

// Options says where to find the layers.
type Options struct {
	// Workspace is the working directory; its .riot/ holds the workspace
	// layers.
	Workspace string
	// UserFile is the user layer; empty means $XDG_CONFIG_HOME/riot/config.toml
	// or ~/.config/riot/config.toml.
	UserFile string
	// ExtraFile is the --config file, read after the workspace layers. It
	// must exist.
	ExtraFile string
	// TrustFile is the workspace trust record; empty means trusted.json
	// in UserConfigDir.
	TrustFile string
	// Getenv reads the environment; nil means os.Getenv.
	Getenv func(string) string
	// Flags are the command-line overrides, the last layer.
	Flags Flags
}

// Flags are the values flags set; zero values are unset.
type Flags struct {
	Mode    string
	Allow   []string
	Ask     []string
	Deny    []string
	AddDirs []string
}

// envVars are the RIOT_* variables that set a key.
var envVars = []struct{ name, key string }{
	{"RIOT_MODE", "permissions.mode"},
	{"RIOT_STATE_DIR", "state_dir"},
	{"RIOT_MAX_PARALLEL", "limits.max_parallel"},
	{"RIOT_TURN_BUDGET_CHARS", "limits.turn_budget_chars"},
	{"RIOT_CALL_TIMEOUT", "limits.call_timeout"},
	{"RIOT_LOG_LEVEL", "log.level"},
	{"RIOT_LOG_FILE", "log.file"},
}

// Load reads every layer and returns the effective configuration.
func Load(opts Options) (*Config, error) {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	c := &Config{Sources: map[string]Source{}, Serve: Serve{IdleTimeout: DefaultIdleTimeout}}
	// Defaults are reported as "default", not by line: no locator.
	def, err := parseDefaults(defaultsTOML)
	if err != nil {
		return nil, fmt.Errorf("embedded defaults: %w", err)
	}
	if err := c.apply(def); err != nil {
		return nil, err
	}
	userFile := opts.UserFile
	if userFile == "" {
		if dir := UserConfigDir(getenv); dir != "" {
			userFile = filepath.Join(dir, "config.toml")
		}
	}
	// The workspace's own layers are gated by trust.
	type file struct {
		path, layer string
		gated       bool
	}
	var files []file
	if userFile != "" {
		files = append(files, file{userFile, "user", false})
	}
	if opts.Workspace != "" {
		files = append(files,
			file{filepath.Join(opts.Workspace, ".riot", "config.toml"), "workspace", true},
			file{LocalFile(opts.Workspace), "local", true})
	}
	trustFile := opts.TrustFile
	if dir := UserConfigDir(getenv); trustFile == "" && dir != "" {
		trustFile = trust.ForConfigDir(dir).File
	}
	c.Trust = Trust{Record: trustFile, Workspace: opts.Workspace}
	for _, f := range files {
		l, err := readLayer(f.path, f.layer)
		if err != nil {
			return nil, err
		}
		if l == nil {
			continue
		}
		c.Files = append(c.Files, f.path)
		if f.layer == "local" {
			c.Trust.LocalSum = l.sum
		}
		if f.gated {
			if err := c.lookupTrust(); err != nil {
				return nil, err
			}
			if f.layer == "local" && c.Trust.pin == l.sum {
				c.Trust.LocalPinned = true
			} else if !c.Trust.Trusted() {
				// A bad value is an error even where it would be ignored:
				// the file is wrong either way.
				if err := (&Config{Sources: map[string]Source{}}).apply(l); err != nil {
					return nil, err
				}
				c.Trust.Ignored = append(c.Trust.Ignored, l.gate()...)
			}
		}
		if err := c.apply(l); err != nil {
			return nil, err
		}
	}
	if dir := workspacePlugins(opts.Workspace); dir != "" {
		if err := c.lookupTrust(); err != nil {
			return nil, err
		}
		if !c.Trust.Trusted() {
			c.Trust.Ignored = append(c.Trust.Ignored, Ignored{Key: "discovery", Source: Source{Layer: "workspace", File: dir}})
		}
	}
	if opts.ExtraFile != "" {
		if _, err := os.Stat(opts.ExtraFile); err != nil {
			return nil, &Error{Source: Source{Layer: "flag", Name: "--config"}, Msg: fmt.Sprintf("cannot read %s: it does not exist or is not readable", opts.ExtraFile)}
		}
		l, err := readLayer(opts.ExtraFile, "--config")
		if err != nil {
			return nil, err
		}
		c.Files = append(c.Files, opts.ExtraFile)
		if err := c.apply(l); err != nil {
			return nil, err
		}
	}
	if err := c.applyEnv(getenv); err != nil {
		return nil, err
	}
	c.applyFlags(opts.Flags)
	if c.ResolvedStateDir(getenv) == "" {
		return nil, &Error{Msg: "riot needs a directory for its state, and without a home directory it has none: set RIOT_STATE_DIR (or state_dir, XDG_STATE_HOME or HOME)"}
	}
	return c, c.validateFlags()
}

// lookupTrust reads the record's word on the workspace, once.
func (c *Config) lookupTrust() error {
	if c.trustRead {
		return nil
	}
	c.trustRead = true
	st, err := trust.Store{File: c.Trust.Record}.Lookup(c.Trust.Workspace)
	var re *trust.RecordError
	if errors.As(err, &re) {
		return &Error{Source: Source{Layer: "trust", File: re.File}, Msg: "the workspace trust record cannot be used: " + re.Reason()}
	}
	if err != nil {
		return &Error{Source: Source{Layer: "trust", File: c.Trust.Record}, Msg: err.Error()}
	}
	c.Trust.State, c.Trust.pin = st.State, st.Local
	return nil
}

// LocalFile is the workspace's untracked layer, where "always allow"
// answers are written.
func LocalFile(workspace string) string {
	return filepath.Join(workspace, ".riot", "config.local.toml")
}

// UserConfigDir is $XDG_CONFIG_HOME/riot, or ~/.config/riot; "" without
// either, and then there is no user layer.
func UserConfigDir(getenv func(string) string) string {
	if d := getenv("XDG_CONFIG_HOME"); d != "" {
		return filepath.Join(d, "riot")
	}
	home, err := HomeDir()
	if err != nil {
		return "" // no user layer
	}
	return filepath.Join(home, ".config", "riot")
}

// apply merges one file layer into c.
func (c *Config) apply(l *parsedLayer) error {
	set := func(key string, src Source) { c.Sources[key] = src }
	if l.StateDir != nil {
		c.StateDir = *l.StateDir
		set("state_dir", l.at("state_dir"))
	}
	c.PluginDirs = append(c.PluginDirs, l.PluginDirs...)
	if len(l.PluginDirs) > 0 {
		set("plugin_dirs", l.at("plugin_dirs"))
	}
	if p := l.Permissions; p != nil {
		if p.Mode != nil {
			if !slices.Contains(Modes, *p.Mode) {
				return &Error{Source: l.at("permissions", "mode"), Msg: badMode(*p.Mode)}
			}
			c.Permissions.Mode = *p.Mode
			set("permissions.mode", l.at("permissions", "mode"))
		}
		for _, list := range []struct {
			key string
			in  []string
			out *[]Rule
		}{{"allow", p.Allow, &c.Permissions.Allow}, {"ask", p.Ask, &c.Permissions.Ask}, {"deny", p.Deny, &c.Permissions.Deny}} {
			for _, r := range list.in {
				src := l.src
				src.Line = l.loc.element([]string{"permissions", list.key}, r)
				*list.out = append(*list.out, Rule{Text: r, Source: src})
			}
		}
		c.Permissions.AdditionalDirs = append(c.Permissions.AdditionalDirs, p.AdditionalDirs...)
		if len(p.AdditionalDirs) > 0 {
			set("permissions.additional_dirs", l.at("permissions", "additional_dirs"))
		}
		if cl := p.Classifier; cl != nil {
			if cl.URL != nil {
				if err := checkURL(*cl.URL); err != "" {
					return &Error{Source: l.at("permissions", "classifier", "url"), Msg: err}
				}
				c.Permissions.Classifier.URL = *cl.URL
				set("permissions.classifier.url", l.at("permissions", "classifier", "url"))
			}
			if cl.Model != nil {
				c.Permissions.Classifier.Model = *cl.Model
				set("permissions.classifier.model", l.at("permissions", "classifier", "model"))
			}
			if cl.Timeout != nil {
				c.Permissions.Classifier.Timeout = cl.Timeout.Duration
				set("permissions.classifier.timeout", l.at("permissions", "classifier", "timeout"))
			}
		}
	}
	if lim := l.Limits; lim != nil {
		if lim.MaxParallel != nil {
			if *lim.MaxParallel < 1 || *lim.MaxParallel > 1000 {
				return &Error{Source: l.at("limits", "max_parallel"), Msg: fmt.Sprintf("max_parallel must be from 1 to 1000, not %d", *lim.MaxParallel)}
			}
			c.Limits.MaxParallel = *lim.MaxParallel
			set("limits.max_parallel", l.at("limits", "max_parallel"))
		}
		if lim.TurnBudgetChars != nil {
			if *lim.TurnBudgetChars < 1000 {
				return &Error{Source: l.at("limits", "turn_budget_chars"), Msg: fmt.Sprintf("turn_budget_chars must be at least 1000, not %d", *lim.TurnBudgetChars)}
			}
			c.Limits.TurnBudgetChars = *lim.TurnBudgetChars
			set("limits.turn_budget_chars", l.at("limits", "turn_budget_chars"))
		}
		if lim.CallTimeout != nil {
			if lim.CallTimeout.Duration == 0 {
				return &Error{Source: l.at("limits", "call_timeout"), Msg: "call_timeout must be more than zero"}
			}
			c.Limits.CallTimeout = lim.CallTimeout.Duration
			set("limits.call_timeout", l.at("limits", "call_timeout"))
		}
		if lim.StartTimeout != nil {
			if lim.StartTimeout.Duration == 0 {
				return &Error{Source: l.at("limits", "start_timeout"), Msg: "start_timeout must be more than zero"}
			}
			c.Limits.StartTimeout = lim.StartTimeout.Duration
			set("limits.start_timeout", l.at("limits", "start_timeout"))
		}
	}
	if r := l.Results; r != nil {
		if r.MaxAge != nil {
			if r.MaxAge.Duration == 0 {
				return &Error{Source: l.at("results", "max_age"), Msg: "max_age must be more than zero"}
			}
			c.Results.MaxAge = r.MaxAge.Duration
			set("results.max_age", l.at("results", "max_age"))
		}
		if r.MaxTotalMB != nil {
			if *r.MaxTotalMB < 1 {
				return &Error{Source: l.at("results", "max_total_mb"), Msg: fmt.Sprintf("max_total_mb must be at least 1, not %d", *r.MaxTotalMB)}
			}
			c.Results.MaxTotalMB = *r.MaxTotalMB
			set("results.max_total_mb", l.at("results", "max_total_mb"))
		}
	}
	if lg := l.Log; lg != nil {
		if lg.Level != nil {
			if !slices.Contains(logLevels, *lg.Level) {
				return &Error{Source: l.at("log", "level"), Msg: fmt.Sprintf("unknown log level %q; use one of %s", *lg.Level, strings.Join(logLevels, ", "))}
			}
			c.Log.Level = *lg.Level
			set("log.level", l.at("log", "level"))
		}
		if lg.File != nil {
			c.Log.File = *lg.File
			set("log.file", l.at("log", "file"))
		}
		if lg.MaxSizeMB != nil {
			if *lg.MaxSizeMB < 1 {
				return &Error{Source: l.at("log", "max_size_mb"), Msg: fmt.Sprintf("max_size_mb must be at least 1, not %d", *lg.MaxSizeMB)}
			}
			c.Log.MaxSizeMB = *lg.MaxSizeMB
			set("log.max_size_mb", l.at("log", "max_size_mb"))
		}
	}
	if err := c.applySandbox(l); err != nil {
		return err
	}
	for _, name := range l.order {
		if err := c.applyPlugin(l, name, l.Plugins[name]); err != nil {
			return err
		}
	}
	c.applyServe(l)
	for _, name := range l.mcpOrder {
		if err := c.applyMCPServer(l, name, l.MCPServers[name]); err != nil {
			return err
		}
	}
	return c.applyHooks(l)
}

// Compiled on first use, not at start: riot links every package, so each
// package's init runs before any command.
var pluginName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`) })

// ValidPluginName reports whether name can name a plugin (riot-tool-NAME).
func ValidPluginName(name string) bool { return pluginName().MatchString(name) }

var sha256Hex = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{64}$`) })

func (c *Config) applyPlugin(l *parsedLayer, name string, pl *pluginLayer) error {
	if !pluginName().MatchString(name) {
		return &Error{Source: l.at("plugins", name), Msg: fmt.Sprintf("plugin name %q must be lowercase letters, digits, - and _, as in riot-tool-NAME", name)}
	}
	i := slices.IndexFunc(c.Plugins, func(p Plugin) bool { return p.Name == name })
	if i < 0 {
		c.Plugins = append(c.Plugins, Plugin{Name: name})
		i = len(c.Plugins) - 1
	}
	p := &c.Plugins[i]
	key := "plugins." + name + "."
	if pl == nil {
		return nil
	}
	if pl.Enabled != nil {
		p.Enabled = *pl.Enabled
		c.Sources[key+"enabled"] = l.at("plugins", name, "enabled")
	}
	if pl.Source != nil {
		// Kept as written: the lock compares it, and a relative directory
		// or binary is relative to the workspace root.
		p.Source = *pl.Source
		c.Sources[key+"source"] = l.at("plugins", name, "source")
	}
	if pl.Version != nil {
		p.Version = *pl.Version
		c.Sources[key+"version"] = l.at("plugins", name, "version")
	}
	if pl.Path != nil {
		p.Path = *pl.Path
		if p.Path != "" && !filepath.IsAbs(p.Path) && l.src.File != "" {
			// A relative path is relative to the file that says it.
			p.Path = filepath.Join(filepath.Dir(l.src.File), p.Path)
		}
		c.Sources[key+"path"] = l.at("plugins", name, "path")
	}
	if pl.SHA256 != nil {
		sum := strings.ToLower(*pl.SHA256)
		if sum != "" && !sha256Hex().MatchString(sum) {
			return &Error{Source: l.at("plugins", name, "sha256"), Msg: "sha256 must be 64 hexadecimal digits, as printed by `sha256sum`"}
		}
		p.SHA256 = sum
		c.Sources[key+"sha256"] = l.at("plugins", name, "sha256")
	}
	if pl.Args != nil {
		p.Args = pl.Args
		c.Sources[key+"args"] = l.at("plugins", name, "args")
	}
	if pl.Env != nil {
		if p.Env == nil {
			p.Env = map[string]string{}
		}
		for k, v := range pl.Env {
			p.Env[k] = v
		}
		c.Sources[key+"env"] = l.at("plugins", name, "env")
	}
	if pl.Timeout != nil {
		p.Timeout = pl.Timeout.Duration
		c.Sources[key+"timeout"] = l.at("plugins", name, "timeout")
	}
	return nil
}

func (c *Config) applyEnv(getenv func(string) string) error {
	for _, ev := range envVars {
		v := getenv(ev.name)
		if v == "" {
			continue
		}
		src := Source{Layer: "env", Name: ev.name}
		bad := func(msg string) error { return &Error{Source: src, Msg: msg} }
		switch ev.key {
		case "permissions.mode":
			if !slices.Contains(Modes, v) {
				return bad(badMode(v))
			}
			c.Permissions.Mode = v
		case "state_dir":
			c.StateDir = v
		case "limits.max_parallel", "limits.turn_budget_chars":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return bad(fmt.Sprintf("%q is not a positive integer", v))
			}
			if ev.key == "limits.max_parallel" {
				c.Limits.MaxParallel = n
			} else {
				c.Limits.TurnBudgetChars = n
			}
		case "limits.call_timeout":
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return bad(fmt.Sprintf("%q is not a duration such as \"90s\"", v))
			}
			c.Limits.CallTimeout = d
		case "log.level":
			if !slices.Contains(logLevels, v) {
				return bad(fmt.Sprintf("unknown log level %q; use one of %s", v, strings.Join(logLevels, ", ")))
			}
			c.Log.Level = v
		case "log.file":
			c.Log.File = v
		}
		c.Sources[ev.key] = src
	}
	return nil
}

func (c *Config) applyFlags(f Flags) {
	if f.Mode != "" {
		c.Permissions.Mode = f.Mode
		c.Sources["permissions.mode"] = Source{Layer: "flag", Name: "--mode"}
	}
	for _, list := range []struct {
		flag string
		in   []string
		out  *[]Rule
	}{{"--allow", f.Allow, &c.Permissions.Allow}, {"--ask", f.Ask, &c.Permissions.Ask}, {"--deny", f.Deny, &c.Permissions.Deny}} {
		for _, r := range list.in {
			*list.out = append(*list.out, Rule{Text: r, Source: Source{Layer: "flag", Name: list.flag}})
		}
	}
	c.Permissions.AdditionalDirs = append(c.Permissions.AdditionalDirs, f.AddDirs...)
	if len(f.AddDirs) > 0 {
		c.Sources["permissions.additional_dirs"] = Source{Layer: "flag", Name: "--add-dir"}
	}
}

// validateFlags checks what a flag can set wrongly; file values were
// checked as they were read.
func (c *Config) validateFlags() error {
	if !slices.Contains(Modes, c.Permissions.Mode) {
		return &Error{Source: c.Sources["permissions.mode"], Msg: badMode(c.Permissions.Mode)}
	}
	return nil
}

func badMode(m string) string {
	msg := fmt.Sprintf("unknown permission mode %q; use one of %s", m, strings.Join(Modes, ", "))
	if s := nearest(m, Modes); s != "" {
		msg = fmt.Sprintf("unknown permission mode %q; did you mean %q? The modes are %s", m, s, strings.Join(Modes, ", "))
	}
	return msg
}

func checkURL(raw string) string {
	if raw == "" {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Sprintf("classifier url %q is not an http(s) URL such as \"http://127.0.0.1:11434/v1/chat/completions\"", raw)
	}
	return ""
}
