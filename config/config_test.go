package config_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/config/trust"
)

// workspace makes a workspace whose .riot/ holds the given files.
func workspace(t *testing.T, files map[string]string) string {
	t.Helper()
	ws := t.TempDir()
	for name, body := range files {
		p := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

// load loads ws's layers as a workspace the user trusts.
func load(t *testing.T, ws string, env map[string]string, flags config.Flags) (*config.Config, error) {
	t.Helper()
	return config.Load(config.Options{
		Workspace: ws,
		UserFile:  filepath.Join(ws, "user.toml"),
		TrustFile: trustedRecord(t, ws),
		Getenv:    func(k string) string { return env[k] },
		Flags:     flags,
	})
}

// trustedRecord is a trust record, outside ws, that trusts ws.
func trustedRecord(t *testing.T, ws string) string {
	t.Helper()
	st := trust.Store{File: filepath.Join(t.TempDir(), "trusted.json")}
	sums, err := config.ContentSums(ws)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Trust(ws, sums, time.Now()); err != nil {
		t.Fatal(err)
	}
	return st.File
}

func TestDefaults(t *testing.T) {
	c, err := load(t, t.TempDir(), nil, config.Flags{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range c.Plugins {
		names = append(names, p.Name)
		if !p.Enabled {
			t.Errorf("builtin %s is not enabled", p.Name)
		}
	}
	if got := strings.Join(names, ","); got != "bash,grep,read,diagnostics,edit" {
		t.Fatalf("builtins in order %s", got)
	}
	if c.Permissions.Mode != "default" || c.Limits.MaxParallel != 10 || c.Limits.TurnBudgetChars != 200_000 || c.Limits.CallTimeout != 10*time.Minute {
		t.Fatalf("defaults: %+v %+v", c.Permissions, c.Limits)
	}
	if s := c.Sources["permissions.mode"]; s.Layer != "default" {
		t.Fatalf("mode source = %v", s)
	}
	if c.Limits.StartTimeout != 5*time.Second || c.Results.MaxAge != 168*time.Hour || c.Results.MaxTotalMB != 256 || c.Log.MaxSizeMB != 10 {
		t.Fatalf("defaults: %+v %+v %+v", c.Limits, c.Results, c.Log)
	}
}

func TestLayersOverrideAndListsMerge(t *testing.T) {
	ws := workspace(t, map[string]string{
		"user.toml": `
[permissions]
mode = "plan"
allow = ["Bash(git log:*)"]
`,
		".riot/config.toml": `
[permissions]
allow = [
  "Read(./src/**)",
]
deny = ["Read(**/.env)"]

[limits]
max_parallel = 4

[plugins.hello]
enabled = true
env = { GREETING = "hi" }

[plugins.bash]
timeout = "2m"
`,
		".riot/config.local.toml": `
[permissions]
mode = "acceptEdits"
allow = ["Bash(npm test)"]
`,
	})
	c, err := load(t, ws, map[string]string{"RIOT_MAX_PARALLEL": "3"}, config.Flags{Allow: []string{"Bash(ls:*)"}})
	if err != nil {
		t.Fatal(err)
	}
	if c.Permissions.Mode != "acceptEdits" {
		t.Fatalf("mode = %s", c.Permissions.Mode)
	}
	var allow []string
	for _, r := range c.Permissions.Allow {
		allow = append(allow, r.Text+"@"+r.Source.String())
	}
	want := []string{
		"Read(./**)@default",
		"Bash(git log:*)@" + filepath.Join(ws, "user.toml") + ":4",
		"Read(./src/**)@" + filepath.Join(ws, ".riot/config.toml") + ":4",
		"Bash(npm test)@" + filepath.Join(ws, ".riot/config.local.toml") + ":4",
		"Bash(ls:*)@flag --allow",
	}
	if strings.Join(allow, "\n") != strings.Join(want, "\n") {
		t.Fatalf("allow rules:\n%s\nwant:\n%s", strings.Join(allow, "\n"), strings.Join(want, "\n"))
	}
	if c.Limits.MaxParallel != 3 || c.Sources["limits.max_parallel"].String() != "env RIOT_MAX_PARALLEL" {
		t.Fatalf("max_parallel = %d from %v", c.Limits.MaxParallel, c.Sources["limits.max_parallel"])
	}
	bash, _ := c.Plugin("bash")
	if bash.Timeout != 2*time.Minute || !bash.Enabled {
		t.Fatalf("bash = %+v", bash)
	}
	hello, ok := c.Plugin("hello")
	if !ok || !hello.Enabled || hello.Env["GREETING"] != "hi" || c.Plugins[len(c.Plugins)-1].Name != "hello" {
		t.Fatalf("hello = %+v", hello)
	}
	if got := c.Sources["permissions.mode"].String(); got != filepath.Join(ws, ".riot/config.local.toml")+":3" {
		t.Fatalf("mode source = %s", got)
	}
}

func configErr(t *testing.T, body string) *config.Error {
	t.Helper()
	ws := workspace(t, map[string]string{".riot/config.toml": body})
	_, err := load(t, ws, nil, config.Flags{})
	var ce *config.Error
	if !errors.As(err, &ce) {
		t.Fatalf("err = %v, want a *config.Error", err)
	}
	if ce.Source.File != filepath.Join(ws, ".riot/config.toml") {
		t.Fatalf("error names %q", ce.Source.File)
	}
	return ce
}

// Config errors name the file, the line and the nearest valid key.
func TestConfigErrors(t *testing.T) {
	cases := []struct {
		name, body string
		line       int
		msg        string
	}{
		{"unknown key suggests", "[permissions]\n\nmood = \"plan\"\n", 3, `unknown key "mood" in [permissions]; did you mean "mode"?`},
		{"unknown table", "# x\n[permissionz]\nmode = \"plan\"\n", 2, `unknown key "permissionz"; did you mean "permissions"?`},
		{"unknown plugin key", "[plugins.hello]\nenabeld = true\n", 2, `unknown key "enabeld" in [plugins.hello]; did you mean "enabled"?`},
		{"unknown limits key", "[limits]\nmax_parallell = 3\n", 2, `did you mean "max_parallel"?`},
		{"no near key", "[limits]\nbananas = 3\n", 2, "valid keys are max_parallel, turn_budget_chars, call_timeout"},
		{"bad mode", "[permissions]\nmode = \"yolo\"\n", 2, `unknown permission mode "yolo"; use one of default, acceptEdits, plan, auto, dontAsk, bypassPermissions`},
		{"near mode", "[permissions]\nmode = \"acceptEdit\"\n", 2, `did you mean "acceptEdits"?`},
		{"bad duration", "[limits]\ncall_timeout = \"soon\"\n", 2, `"soon" is not a duration`},
		{"bad type", "[limits]\nmax_parallel = \"ten\"\n", 2, "max_parallel must be an integer, not a string"},
		{"out of range", "[limits]\n\nmax_parallel = 0\n", 3, "max_parallel must be from 1 to 1000, not 0"},
		{"bad sha", "[plugins.x]\nsha256 = \"abc\"\n", 2, "sha256 must be 64 hexadecimal digits"},
		{"bad url", "[permissions.classifier]\nurl = \"ollama\"\n", 2, `classifier url "ollama" is not an http(s) URL`},
		{"bad plugin name", "[plugins.\"Bad Name\"]\nenabled = true\n", 1, `plugin name "Bad Name" must be lowercase`},
		{"syntax", "[permissions]\nmode = \n", 2, ""},
		{"bad log level", "[log]\nlevel = \"loud\"\n", 2, `unknown log level "loud"`},
		{"zero start timeout", "[limits]\nstart_timeout = \"0s\"\n", 2, "start_timeout must be more than zero"},
		{"zero results age", "[results]\nmax_age = \"0s\"\n", 2, "max_age must be more than zero"},
		{"no results room", "[results]\nmax_total_mb = 0\n", 2, "max_total_mb must be at least 1, not 0"},
		{"unknown results key", "[results]\nmax_ages = \"1h\"\n", 2, `did you mean "max_age"?`},
		{"no log room", "[log]\nmax_size_mb = 0\n", 2, "max_size_mb must be at least 1, not 0"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ce := configErr(t, tc.body)
			if ce.Source.Line != tc.line {
				t.Fatalf("line = %d, want %d (%v)", ce.Source.Line, tc.line, ce)
			}
			if !strings.Contains(ce.Msg, tc.msg) {
				t.Fatalf("message = %q, want it to contain %q", ce.Msg, tc.msg)
			}
			if !strings.HasPrefix(ce.Error(), ce.Source.File+":") {
				t.Fatalf("error = %q does not start with the file", ce.Error())
			}
		})
	}
}

func TestFlagAndEnvErrors(t *testing.T) {
	_, err := load(t, t.TempDir(), nil, config.Flags{Mode: "planning"})
	if err == nil || !strings.Contains(err.Error(), `flag --mode: unknown permission mode "planning"; did you mean "plan"?`) {
		t.Fatalf("err = %v", err)
	}
	_, err = load(t, t.TempDir(), map[string]string{"RIOT_CALL_TIMEOUT": "forever"}, config.Flags{})
	if err == nil || !strings.Contains(err.Error(), "env RIOT_CALL_TIMEOUT") {
		t.Fatalf("err = %v", err)
	}
}

func TestExtraConfigFile(t *testing.T) {
	ws := workspace(t, map[string]string{"extra.toml": "[permissions]\nmode = \"dontAsk\"\n"})
	c, err := config.Load(config.Options{Workspace: ws, UserFile: filepath.Join(ws, "none"), ExtraFile: filepath.Join(ws, "extra.toml"), Getenv: func(string) string { return "" }})
	if err != nil || c.Permissions.Mode != "dontAsk" {
		t.Fatalf("mode = %v, err = %v", c, err)
	}
	_, err = config.Load(config.Options{Workspace: ws, UserFile: filepath.Join(ws, "none"), ExtraFile: filepath.Join(ws, "missing.toml"), Getenv: func(string) string { return "" }})
	if err == nil || !strings.Contains(err.Error(), "missing.toml: it does not exist") {
		t.Fatalf("err = %v", err)
	}
}

func TestStateDir(t *testing.T) {
	c, _ := load(t, t.TempDir(), nil, config.Flags{})
	if got := c.ResolvedStateDir(func(k string) string { return map[string]string{"XDG_STATE_HOME": "/xdg"}[k] }); got != "/xdg/riot" {
		t.Fatalf("state dir = %s", got)
	}
	c.StateDir = "/custom"
	if got := c.ResolvedStateDir(nil); got != "/custom" {
		t.Fatalf("state dir = %s", got)
	}
}

func TestDiscovery(t *testing.T) {
	ws := t.TempDir()
	dirA, dirB := filepath.Join(ws, "a"), filepath.Join(ws, ".riot", "plugins")
	for _, f := range []struct {
		dir, name string
		mode      os.FileMode
	}{
		{dirA, "riot-tool-hello", 0o755},
		{dirB, "riot-tool-hello", 0o755}, // shadowed by dirA
		{dirB, "riot-tool-lint", 0o755},
		{dirB, "riot-tool-noexec", 0o644},
		{dirB, "other-binary", 0o755},
	} {
		if err := os.MkdirAll(f.dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(f.dir, f.name), []byte("#!/bin/sh\n"), f.mode); err != nil {
			t.Fatal(err)
		}
	}
	c, _ := load(t, ws, nil, config.Flags{})
	found := c.Discover(ws, "", func(k string) string {
		return map[string]string{"RIOT_PLUGIN_PATH": dirA, "XDG_DATA_HOME": filepath.Join(ws, "data")}[k]
	})
	var got []string
	for _, d := range found {
		got = append(got, d.Name+"="+d.Path+" via "+d.Via)
	}
	want := []string{
		"hello=" + filepath.Join(dirA, "riot-tool-hello") + " via $RIOT_PLUGIN_PATH",
		"lint=" + filepath.Join(dirB, "riot-tool-lint") + " via .riot/plugins",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("found:\n%s", strings.Join(got, "\n"))
	}
}
