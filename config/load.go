package config

import (
	_ "embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"sync"

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
	Mode    Mode
	Allow   []string
	Ask     []string
	Deny    []string
	AddDirs []string
}

// Load reads every layer and returns the effective configuration.
func Load(opts Options) (*Config, error) {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	c := &Config{Sources: map[string]Source{}}
	def, err := decodeLayer(defaultsTOML, Source{Layer: "default"})
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
	// The workspace's own layers are gated by trust; gated names the
	// file among ContentFiles.
	type file struct {
		path, layer, gated string
	}
	var files []file
	if userFile != "" {
		files = append(files, file{userFile, "user", ""})
	}
	if opts.Workspace != "" {
		files = append(files,
			file{filepath.Join(opts.Workspace, ".riot", "config.toml"), "workspace", ".riot/config.toml"},
			file{LocalFile(opts.Workspace), "local", trust.LocalName})
	}
	trustFile := opts.TrustFile
	if dir := UserConfigDir(getenv); trustFile == "" && dir != "" {
		trustFile = trust.ForConfigDir(dir).File
	}
	c.Trust = Trust{Record: trustFile, Workspace: opts.Workspace}
	// Trust is the workspace's, not a layer's: looked up when any of its
	// files exists, so that .mcp.json alone sees it too. A workspace with
	// none has nothing to gate, and does not depend on the record.
	if hasContent(opts.Workspace) {
		if err := c.lookupTrust(); err != nil {
			return nil, err
		}
	}
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
		if f.gated != "" {
			if f.layer == "local" && !c.Trust.Trusted() && c.Trust.status.Vouches(f.gated, l.sum) {
				c.Trust.LocalPinned = true
			}
			if !c.Trust.gateFile(f.gated, f.path, l.sum) {
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
		sum, err := pluginsSum(dir)
		if err != nil {
			return nil, err
		}
		c.Trust.searchPlugins = c.Trust.gateFile(PluginsDirName, dir, sum)
		if !c.Trust.searchPlugins {
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
	if err := c.importClaudeHooks(opts.Workspace, getenv); err != nil {
		return nil, err
	}
	if c.ResolvedStateDir(getenv) == "" {
		return nil, &Error{Msg: "riot needs a directory for its state, and without a home directory it has none: set RIOT_STATE_DIR (or state_dir, XDG_STATE_HOME or HOME)"}
	}
	return c, c.validateFlags()
}

// lookupTrust reads the record's word on the workspace, once.
func (c *Config) lookupTrust() error {
	if c.trustRead || c.Trust.Workspace == "" {
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
	c.Trust.State, c.Trust.status = st.State, st
	c.Trust.Unsummed = st.State == trust.Trusted && st.Files == nil
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

// Compiled on first use, not at start: riot links every package, so each
// package's init runs before any command.
var pluginName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`) })

// ValidPluginName reports whether name can name a plugin (riot-tool-NAME).
func ValidPluginName(name string) bool { return pluginName().MatchString(name) }

var sha256Hex = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{64}$`) })

// applyEnv applies the RIOT_* variables the schema's env tags name, each
// checked as a file's value is.
func (c *Config) applyEnv(getenv func(string) string) error {
	return c.applyEnvIn(reflect.TypeFor[Config](), nil, getenv)
}

func (c *Config) applyEnvIn(t reflect.Type, path []string, getenv func(string) string) error {
	for f := range fields(t) {
		key := append(slices.Clip(path), f.key)
		if f.shape == table {
			if err := c.applyEnvIn(f.Type, key, getenv); err != nil {
				return err
			}
			continue
		}
		name := f.Tag.Get("env")
		v := getenv(name)
		if name == "" || v == "" {
			continue
		}
		l := &parsedLayer{src: Source{Layer: "env", Name: name}}
		var value any = v
		if f.Type.Kind() == reflect.Int {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return &Error{Source: l.src, Msg: fmt.Sprintf("%q is not an integer", v)}
			}
			value = n
		}
		for i := len(key) - 1; i >= 0; i-- {
			value = map[string]any{key[i]: value}
		}
		l.values = value.(map[string]any)
		if err := checkTypes(l.values, reflect.TypeFor[Config](), nil, l.at); err != nil {
			return err
		}
		if err := c.apply(l); err != nil {
			return err
		}
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
		return &Error{Source: c.Sources["permissions.mode"], Msg: badMode(string(c.Permissions.Mode))}
	}
	return nil
}

func badMode(m string) string {
	msg := fmt.Sprintf("unknown permission mode %q; use one of %s", m, join(Modes, ", "))
	if s := nearest(m, Modes); s != "" {
		msg = fmt.Sprintf("unknown permission mode %q; did you mean %q? The modes are %s", m, s, join(Modes, ", "))
	}
	return msg
}
