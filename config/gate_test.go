package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/riot-tools/riot/config/trust"
)

// trustCase is a workspace, its user file and trust record, all apart.
type trustCase struct {
	ws, user string
	store    trust.Store
}

func newTrustCase(t *testing.T, files map[string]string) trustCase {
	t.Helper()
	root := t.TempDir()
	tc := trustCase{ws: filepath.Join(root, "ws"), user: filepath.Join(root, "user.toml"), store: trust.Store{File: filepath.Join(root, "cfg", trust.FileName)}}
	for name, body := range files {
		p := filepath.Join(tc.ws, name)
		if name == "user.toml" {
			p = tc.user
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(tc.ws, 0o755); err != nil {
		t.Fatal(err)
	}
	return tc
}

// trust records the workspace as trusted with its files as they are, as
// riot trust does.
func (tc trustCase) trust(t *testing.T) {
	t.Helper()
	sums, err := ContentSums(tc.ws)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tc.store.Trust(tc.ws, sums, time.Now()); err != nil {
		t.Fatal(err)
	}
}

func (tc trustCase) load(t *testing.T, opts Options) *Config {
	t.Helper()
	c, err := tc.tryLoad(opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (tc trustCase) tryLoad(opts Options) (*Config, error) {
	opts.Workspace, opts.UserFile, opts.TrustFile = tc.ws, tc.user, tc.store.File
	if opts.Getenv == nil {
		opts.Getenv = func(string) string { return "" }
	}
	return Load(opts)
}

func ignoredKeys(c *Config) []string {
	var keys []string
	for _, ig := range c.Trust.Ignored {
		keys = append(keys, ig.Key+"@"+ig.Source.String())
	}
	return keys
}

// Every key that loosens or runs code, each in a file of its own, is
// ignored in an untrusted workspace, named with its line, and leaves the
// value the layers below gave.
func TestUntrustedWorkspaceIgnoresEachLooseningKey(t *testing.T) {
	for _, tc := range []struct {
		name, body, key string
		line            int
		kept            func(c *Config) bool
	}{
		{"mode", "[permissions]\nmode = \"bypassPermissions\"\n", "permissions.mode", 2, func(c *Config) bool { return c.Permissions.Mode == "default" }},
		{"allow", "[permissions]\nallow = [\"Bash\"]\n", "permissions.allow", 2, func(c *Config) bool {
			return len(c.Permissions.Allow) == 1 && c.Permissions.Allow[0].Source.Layer == "default"
		}},
		{"additional_dirs", "[permissions]\nadditional_dirs = [\"/\"]\n", "permissions.additional_dirs", 2, func(c *Config) bool { return len(c.Permissions.AdditionalDirs) == 0 }},
		{"plugin_dirs", "plugin_dirs = [\"./bin\"]\n", "plugin_dirs", 1, func(c *Config) bool { return len(c.PluginDirs) == 0 }},
		{"plugin path", "\n[plugins.evil]\nenabled = true\npath = \"./evil\"\n", "plugins.evil", 2, func(c *Config) bool { _, ok := c.Plugin("evil"); return !ok }},
		{"builtin replaced", "[plugins.bash]\npath = \"./bash\"\nsha256 = \"\"\nargs = [\"x\"]\nenv = { LD_PRELOAD = \"./x.so\" }\n", "plugins.bash", 1, func(c *Config) bool {
			p, _ := c.Plugin("bash")
			return p.Path == "" && len(p.Args) == 0 && p.Env == nil
		}},
		{"builtin disabled", "[plugins.grep]\nenabled = false\n", "plugins.grep", 1, func(c *Config) bool { p, _ := c.Plugin("grep"); return p.Enabled }},
		{"state_dir", "state_dir = \"/tmp/elsewhere\"\n", "state_dir", 1, func(c *Config) bool { return c.StateDir == "" }},
		{"classifier url", "[permissions.classifier]\nurl = \"http://evil.example/judge\"\n", "permissions.classifier.url", 2, func(c *Config) bool { return c.Permissions.Classifier.URL == "" }},
		{"classifier model", "[permissions.classifier]\nmodel = \"yes-man\"\n", "permissions.classifier.model", 2, func(c *Config) bool { return c.Permissions.Classifier.Model == "" }},
		{"classifier timeout", "[permissions.classifier]\ntimeout = \"1h\"\n", "permissions.classifier.timeout", 2, func(c *Config) bool { return c.Permissions.Classifier.Timeout == 10*time.Second }},
		{"log file", "[log]\nfile = \"~/.bashrc\"\n", "log.file", 2, func(c *Config) bool { return c.Log.File == "" }},
		{"log level", "[log]\nlevel = \"trace\"\n", "log.level", 2, func(c *Config) bool { return c.Log.Level == "warn" }},
		{"limits", "[limits]\ncall_timeout = \"100h\"\n", "limits.call_timeout", 2, func(c *Config) bool { return c.Limits.CallTimeout == 10*time.Minute }},
		{"max_parallel", "[limits]\nmax_parallel = 1000\n", "limits.max_parallel", 2, func(c *Config) bool { return c.Limits.MaxParallel == 10 }},
		{"hooks", "[[hooks.PreToolUse]]\ncommand = \"./evil\"\n", "hooks.PreToolUse", 1, func(c *Config) bool { return len(c.Hooks.PreToolUse) == 0 }},
		{"turn budget", "[limits]\nturn_budget_chars = 100000000\n", "limits.turn_budget_chars", 2, func(c *Config) bool { return c.Limits.TurnBudgetChars == 200_000 }},
		{"network mode", "[sandbox.network]\nmode = \"host\"\n", "sandbox.network.mode", 2, func(c *Config) bool { return c.Sandbox.Network.Mode == NetworkProxy }},
		{"allowed_domains", "[sandbox.network]\nallowed_domains = [\"*.example.com\"]\n", "sandbox.network.allowed_domains", 2, func(c *Config) bool {
			return !slices.Contains(Texts(c.Sandbox.Network.AllowedDomains), "*.example.com")
		}},
		{"allow_private", "[sandbox.network]\nallow_private = true\n", "sandbox.network.allow_private", 2, func(c *Config) bool { return !c.Sandbox.Network.AllowPrivate }},
		{"excluded_commands", "[sandbox]\nexcluded_commands = [\"docker *\"]\n", "sandbox.excluded_commands", 2, func(c *Config) bool { return len(c.Sandbox.ExcludedCommands) == 0 }},
		{"pass_env", "[sandbox]\npass_env = [\"AWS_SECRET_ACCESS_KEY\"]\n", "sandbox.pass_env", 2, func(c *Config) bool { return len(c.Sandbox.PassEnv) == 0 }},
	} {
		for _, file := range []string{".riot/config.toml", ".riot/config.local.toml"} {
			t.Run(tc.name+" in "+file, func(t *testing.T) {
				w := newTrustCase(t, map[string]string{file: tc.body})
				c := w.load(t, Options{})
				want := tc.key + "@" + filepath.Join(w.ws, file) + ":" + strconv.Itoa(tc.line)
				if got := strings.Join(ignoredKeys(c), " "); got != want {
					t.Fatalf("ignored %q, want %q", got, want)
				}
				if !tc.kept(c) {
					t.Fatalf("the untrusted value applied: %+v", c)
				}
				if c.Trust.Trusted() || c.Trust.State != trust.Unknown {
					t.Fatalf("trust = %+v", c.Trust)
				}
				// Trusted, the same file applies and nothing is ignored.
				w.trust(t)
				c = w.load(t, Options{})
				if len(c.Trust.Ignored) != 0 || tc.kept(c) || !c.Trust.Trusted() {
					t.Fatalf("trusted: ignored %v, value kept back: %v", ignoredKeys(c), tc.kept(c))
				}
			})
		}
	}
}

// Deny and ask rules tighten, so they apply untrusted, with their source;
// the rest of the same file does not.
func TestUntrustedWorkspaceKeepsTightening(t *testing.T) {
	w := newTrustCase(t, map[string]string{
		".riot/config.toml":       "[permissions]\nmode = \"bypassPermissions\"\ndeny = [\"Read(**/secret.txt)\"]\nask = [\"Bash(git push:*)\"]\nallow = [\"Bash\"]\n",
		".riot/config.local.toml": "[permissions]\ndeny = [\"Bash(curl:*)\"]\n",
	})
	c := w.load(t, Options{})
	var deny, ask []string
	for _, r := range c.Permissions.Deny {
		deny = append(deny, r.Text+"@"+r.Source.String())
	}
	for _, r := range c.Permissions.Ask {
		ask = append(ask, r.Text+"@"+r.Source.String())
	}
	cfgFile, local := filepath.Join(w.ws, ".riot/config.toml"), filepath.Join(w.ws, ".riot/config.local.toml")
	if got := strings.Join(deny, " "); got != "Read(**/secret.txt)@"+cfgFile+":3 Bash(curl:*)@"+local+":2" {
		t.Fatalf("deny = %s", got)
	}
	if got := strings.Join(ask, " "); got != "Bash(git push:*)@"+cfgFile+":4" {
		t.Fatalf("ask = %s", got)
	}
	if got := strings.Join(ignoredKeys(c), " "); got != "permissions.mode@"+cfgFile+":2 permissions.allow@"+cfgFile+":5" {
		t.Fatalf("ignored = %s", got)
	}
	if got := strings.Join(c.Trust.IgnoredFiles(), " "); got != cfgFile {
		t.Fatalf("ignored files = %s", got)
	}
	if got := strings.Join(c.Trust.IgnoredKeys(cfgFile), ","); got != "permissions.mode,permissions.allow" {
		t.Fatalf("IgnoredKeys = %s", got)
	}
	if got := c.Trust.IgnoredKeys(local); len(got) != 0 {
		t.Fatalf("IgnoredKeys(local) = %v", got)
	}
	if c.Permissions.Mode != "default" {
		t.Fatalf("mode = %s", c.Permissions.Mode)
	}
}

// The user's own file, --config, RIOT_* and flags are the user's: they
// apply whatever the workspace's trust.
func TestUserLayersNeedNoTrust(t *testing.T) {
	w := newTrustCase(t, map[string]string{
		"user.toml":  "plugin_dirs = [\"/u\"]\n[permissions]\nallow = [\"Bash(make:*)\"]\n",
		"extra.toml": "[permissions]\nmode = \"acceptEdits\"\nadditional_dirs = [\"/x\"]\n",
	})
	c := w.load(t, Options{
		ExtraFile: filepath.Join(w.ws, "extra.toml"),
		Getenv:    func(k string) string { return map[string]string{"RIOT_STATE_DIR": "/st"}[k] },
		Flags:     Flags{Allow: []string{"Bash(ls:*)"}, AddDirs: []string{"/y"}},
	})
	if len(c.Trust.Ignored) != 0 || c.Permissions.Mode != "acceptEdits" || c.StateDir != "/st" || len(c.PluginDirs) != 1 || len(c.Permissions.Allow) != 3 || len(c.Permissions.AdditionalDirs) != 2 {
		t.Fatalf("user layers: %+v, ignored %v", c, ignoredKeys(c))
	}
	// Nothing to gate: the record is not even read.
	if err := os.MkdirAll(filepath.Dir(w.store.File), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(w.store.File, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := w.tryLoad(Options{}); err != nil {
		t.Fatalf("a workspace without layers read the record: %v", err)
	}
}

// A workspace the user declined is untrusted; a bad record is an error
// naming it, never trust.
func TestDeclinedAndBadRecord(t *testing.T) {
	w := newTrustCase(t, map[string]string{".riot/config.toml": "[permissions]\nmode = \"dontAsk\"\n"})
	if _, err := w.store.Decline(w.ws, time.Now()); err != nil {
		t.Fatal(err)
	}
	c := w.load(t, Options{})
	if c.Trust.State != trust.Declined || c.Permissions.Mode != "default" || len(c.Trust.Ignored) != 1 || c.Trust.Record != w.store.File || c.Trust.Workspace != w.ws {
		t.Fatalf("declined: %+v", c.Trust)
	}
	if err := os.WriteFile(w.store.File, []byte(`{"version":7}`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := w.tryLoad(Options{})
	var ce *Error
	if !errors.As(err, &ce) || ce.Source.Layer != "trust" || ce.Source.File != w.store.File || !strings.Contains(ce.Msg, "its version is 7") {
		t.Fatalf("bad record: %v", err)
	}
}

// A bad value is an error in an untrusted file too: the file is wrong
// whether or not it applies.
func TestUntrustedBadValueIsAnError(t *testing.T) {
	for body, msg := range map[string]string{
		"[permissions]\nmode = \"yolo\"\n":           `unknown permission mode "yolo"`,
		"[plugins.x]\nsha256 = \"abc\"\n":            "sha256 must be 64 hexadecimal digits",
		"[permissions]\nmood = \"plan\"\n":           `did you mean "mode"?`,
		"[permissions.classifier]\nurl = \"x\"\n":    "is not an http(s) URL",
		"[plugins.\"Bad\"]\nenabled = true\n":        "must be lowercase",
		"[permissions]\ndeny = [\"Read(a)\"]\nx = 1": `unknown key "x" in [permissions]`,
	} {
		w := newTrustCase(t, map[string]string{".riot/config.toml": body})
		_, err := w.tryLoad(Options{})
		var ce *Error
		if !errors.As(err, &ce) || !strings.Contains(ce.Msg, msg) || ce.Source.File != filepath.Join(w.ws, ".riot/config.toml") {
			t.Errorf("%q: err = %v, want %q", body, err, msg)
		}
	}
}

// .riot/plugins holds the repository's binaries: not searched, and said
// so, until the workspace is trusted.
func TestUntrustedPluginDirectory(t *testing.T) {
	w := newTrustCase(t, map[string]string{".riot/plugins/riot-tool-evil": "#!/bin/sh\n", "user.toml": "[plugins.evil]\nenabled = true\n"})
	dir := filepath.Join(w.ws, ".riot", "plugins")
	getenv := func(k string) string { return map[string]string{"XDG_DATA_HOME": filepath.Join(w.ws, "data")}[k] }
	c := w.load(t, Options{})
	if got := strings.Join(ignoredKeys(c), " "); got != "discovery@"+dir {
		t.Fatalf("ignored = %s", got)
	}
	for _, d := range c.SearchDirs(w.ws, "", getenv) {
		if d.Path == dir {
			t.Fatalf("searched %s untrusted", dir)
		}
	}
	if found := c.Discover(w.ws, "", getenv); len(found) != 0 {
		t.Fatalf("discovered %v untrusted", found)
	}
	if got := c.Trust.IgnoredFiles(); len(got) != 1 || got[0] != dir {
		t.Fatalf("ignored files %v", got)
	}
	w.trust(t)
	c = w.load(t, Options{})
	if found := c.Discover(w.ws, "", getenv); len(c.Trust.Ignored) != 0 || len(found) != 1 || found[0].Via != ".riot/plugins" {
		t.Fatalf("trusted: ignored %v, found %v", ignoredKeys(c), found)
	}
	// A directory with no plugin binary in it is nothing to ignore.
	w = newTrustCase(t, map[string]string{".riot/plugins/README": "x"})
	if c := w.load(t, Options{}); len(c.Trust.Ignored) != 0 {
		t.Fatalf("ignored %v", ignoredKeys(c))
	}
	if workspacePlugins("") != "" {
		t.Fatal("no workspace has no plugin directory")
	}
}

// What is not declared tightening is loosening: a table or key added to
// the schema later is ignored untrusted until its field says
// trust:"tighten".
func TestFutureKeysAreLoosening(t *testing.T) {
	type sandbox struct {
		Enabled   bool          `toml:"enabled" trust:"tighten"`
		AllowRead []string      `toml:"allow_read"`
		Network   bool          `toml:"network"`
		Timeout   time.Duration `toml:"timeout"`
	}
	type future struct {
		Sandbox    sandbox     `toml:"sandbox"`
		MCPServers []MCPServer `toml:"mcp_servers,named"`
		Hooks      []Hook      `toml:"hooks"`
		Source     string      `toml:"source"`
		Empty      []string    `toml:"empty"`
		Unset      sandbox     `toml:"unset"`
	}
	values := map[string]any{
		"sandbox":     map[string]any{"enabled": true, "allow_read": []any{"/"}, "network": true, "timeout": "1h"},
		"mcp_servers": map[string]any{"b": map[string]any{}, "a": map[string]any{}},
		"hooks":       []map[string]any{{"command": "x"}},
		"source":      "",
		"empty":       []any{},
	}
	var got []string
	gateValues(reflect.TypeFor[future](), values, nil, func(key []string) { got = append(got, strings.Join(key, ".")) })
	if s := strings.Join(got, " "); s != "sandbox.allow_read sandbox.network sandbox.timeout mcp_servers.a mcp_servers.b hooks source" {
		t.Fatalf("reported %q", s)
	}
	want := map[string]any{"sandbox": map[string]any{"enabled": true}}
	if !reflect.DeepEqual(values, want) {
		t.Fatalf("left %v, want only the tightening key", values)
	}
}

// The local file riot wrote for the user's "always allow" answers applies
// in full, byte for byte; a changed byte, or the same text in the
// committed file, is gated again.
func TestPinnedLocalFile(t *testing.T) {
	local := "[permissions]\nallow = [\"Bash(touch:*)\"]\n"
	w := newTrustCase(t, map[string]string{
		".riot/config.local.toml": local,
		".riot/config.toml":       "[permissions]\nmode = \"dontAsk\"\n",
	})
	c := w.load(t, Options{})
	if c.Trust.LocalPinned || len(c.Trust.Ignored) != 2 {
		t.Fatalf("unpinned: %+v", c.Trust)
	}
	if _, err := w.store.PinLocal(w.ws, c.Trust.LocalSum, time.Now()); err != nil {
		t.Fatal(err)
	}
	c = w.load(t, Options{})
	cfgFile := filepath.Join(w.ws, ".riot/config.toml")
	if !c.Trust.LocalPinned || c.Trust.Trusted() || strings.Join(ignoredKeys(c), " ") != "permissions.mode@"+cfgFile+":2" {
		t.Fatalf("pinned: %+v", c.Trust)
	}
	if r := c.Permissions.Allow[len(c.Permissions.Allow)-1]; r.Text != "Bash(touch:*)" || r.Source.File != LocalFile(w.ws) {
		t.Fatalf("the pinned rule did not apply: %+v", c.Permissions.Allow)
	}
	// One byte more, and it is the repository's again.
	if err := os.WriteFile(LocalFile(w.ws), []byte(local+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c = w.load(t, Options{})
	if c.Trust.LocalPinned || len(c.Trust.Ignored) != 2 {
		t.Fatalf("changed: %+v", c.Trust)
	}
	// The pin is of the local file only.
	if err := os.Remove(LocalFile(w.ws)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfgFile, []byte(local), 0o644); err != nil {
		t.Fatal(err)
	}
	c = w.load(t, Options{})
	if c.Trust.LocalPinned || c.Trust.LocalSum != "" || len(c.Trust.Ignored) != 1 {
		t.Fatalf("the committed file took the pin: %+v", c.Trust)
	}
	// Trusted, a local file written after the trust is not vouched for,
	// pinned or not.
	w.trust(t)
	if err := os.WriteFile(LocalFile(w.ws), []byte(local+"# mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if c = w.load(t, Options{}); c.Trust.LocalPinned || !c.Trust.ChangedSince(LocalFile(w.ws)) || len(c.Trust.Ignored) != 1 {
		t.Fatalf("trusted: %+v", c.Trust)
	}
}
