package config_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/riot-tools/riot/config"
)

// A plugin's path and an MCP server's cwd are relative to the file that
// says them; an absolute or empty one is kept as written.
func TestPathsRelativeToTheirFile(t *testing.T) {
	ws := workspace(t, map[string]string{"user.toml": `
[plugins.rel]
path = "bin/riot-tool-rel"
[plugins.abs]
path = "/opt/riot-tool-abs"
[plugins.none]
path = ""
[mcp_servers.srv]
command = "srv"
cwd = "sub"
`})
	c, err := load(t, ws, nil, config.Flags{})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"rel": filepath.Join(ws, "bin/riot-tool-rel"), "abs": "/opt/riot-tool-abs", "none": ""} {
		if p, _ := c.Plugin(name); p.Path != want {
			t.Errorf("plugins.%s.path = %q, want %q", name, p.Path, want)
		}
	}
	if got := c.MCPServers[0].Cwd; got != filepath.Join(ws, "sub") {
		t.Errorf("mcp_servers.srv.cwd = %q", got)
	}
}

// A sandbox path a file lists must exist; the defaults' toolchain paths
// need not, since each toolchain is installed only here and there.
func TestSandboxPathsMustExistOnlyInFiles(t *testing.T) {
	t.Setenv("HOME", t.TempDir()) // where none of the defaults' paths exist
	if _, err := load(t, t.TempDir(), nil, config.Flags{}); err != nil {
		t.Fatalf("the defaults' missing toolchain paths failed the load: %v", err)
	}
	ws := workspace(t, map[string]string{"user.toml": "[sandbox]\nallow_write = [\"/nonexistent/riot-test\"]\n"})
	_, err := load(t, ws, nil, config.Flags{})
	if err == nil || !strings.Contains(err.Error(), `user.toml:2: [sandbox] allow_write: "/nonexistent/riot-test" does not exist; create it or remove it from the list`) {
		t.Fatalf("err = %v", err)
	}
}

// An http(s) URL needs a host.
func TestClassifierURLNeedsAHost(t *testing.T) {
	ws := workspace(t, map[string]string{"user.toml": "[permissions.classifier]\nurl = \"http:///v1\"\n"})
	if _, err := load(t, ws, nil, config.Flags{}); err == nil || !strings.Contains(err.Error(), `classifier url "http:///v1" is not an http(s) URL`) {
		t.Fatalf("err = %v", err)
	}
}

// A RIOT_* variable is checked as its key is in a file: the bounds are
// declared once, on the key.
func TestEnvHasTheKeysBounds(t *testing.T) {
	for env, want := range map[string]string{
		"RIOT_MAX_PARALLEL=5000":    "env RIOT_MAX_PARALLEL: max_parallel must be from 1 to 1000, not 5000",
		"RIOT_MAX_PARALLEL=ten":     `env RIOT_MAX_PARALLEL: "ten" is not an integer`,
		"RIOT_TURN_BUDGET_CHARS=10": "env RIOT_TURN_BUDGET_CHARS: turn_budget_chars must be at least 1000, not 10",
		"RIOT_CALL_TIMEOUT=0s":      "env RIOT_CALL_TIMEOUT: call_timeout must be more than zero",
		"RIOT_LOG_LEVEL=loud":       `env RIOT_LOG_LEVEL: unknown log level "loud"; use one of trace, debug, info, warn, error`,
		"RIOT_MODE=yolo":            `env RIOT_MODE: unknown permission mode "yolo"`,
	} {
		name, value, _ := strings.Cut(env, "=")
		_, err := load(t, t.TempDir(), map[string]string{name: value}, config.Flags{})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", env, err, want)
		}
	}
	c, err := load(t, t.TempDir(), map[string]string{"RIOT_MAX_PARALLEL": "7", "RIOT_CALL_TIMEOUT": "90s", "RIOT_STATE_DIR": "/st"}, config.Flags{})
	if err != nil || c.Limits.MaxParallel != 7 || c.Limits.CallTimeout.String() != "1m30s" || c.StateDir != "/st" || c.Sources["state_dir"].String() != "env RIOT_STATE_DIR" {
		t.Fatalf("env: %v, %+v", err, c)
	}
}
