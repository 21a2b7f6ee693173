package main_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// An enabled plugin that cannot start gets one warning line naming it and
// riot plugins, and no raw log line.
func TestPluginThatCannotStartWarnsOnce(t *testing.T) {
	e := newEnv(t)
	e.write(".riot/config.toml", fmt.Sprintf("plugin_dirs = [%q]\n\n[plugins.testkit]\nenabled = true\nsha256 = %q\n\n[plugins.ghost]\nenabled = true\n",
		filepath.Dir(bin.testkit), strings.Repeat("0", 64)))
	e.trust() // the workspace file sets what only a trusted workspace may
	r := e.riot("", "tools")
	r.want(t, 0, "Read")
	want := "riot: warning: the plugin testkit is enabled but cannot start, so its tools are left out; `riot plugins` says why.\n" +
		"riot: warning: the plugin ghost is enabled but cannot start, so its tools are left out; `riot plugins` says why.\n"
	if r.stderr != want {
		t.Fatalf("stderr = %q, want %q", r.stderr, want)
	}
	// A call of one of its tools says the plugin cannot start.
	e.riot("", "call", "Noop").want(t, 2, `there is no enabled tool named "Noop"`, "Enabled but unable to start, so their tools are missing: testkit, ghost (`riot plugins` says why).")
	// riot plugins says why, and warns no more.
	r = e.riot("", "plugins")
	r.want(t, 0, "does not match its pinned sha256", "riot-tool-ghost does not exist")
	if r.stderr != "" {
		t.Fatalf("riot plugins stderr: %q", r.stderr)
	}
}

// A tool of a discovered plugin that is not enabled is a usage error that
// says the plugin is there and how to enable it.
func TestCallToolOfPluginNotEnabled(t *testing.T) {
	e := newEnv(t)
	e.write(".riot/config.toml", fmt.Sprintf("plugin_dirs = [%q]\n", filepath.Dir(bin.testkit)))
	e.trust() // the workspace file sets what only a trusted workspace may
	e.riot("", "call", "Testkit").want(t, 2, `"Testkit" is likely a tool of the plugin testkit, which is discovered (`+bin.testkit+", in plugin_dirs) but not enabled", "[plugins.testkit]\n  enabled = true")
	e.riot("", "call", "Noop").want(t, 2, `there is no enabled tool named "Noop"`, `Discovered but not enabled, so their tools cannot be called: testkit. If "Noop" is one of theirs, enable its plugin: `+"`riot plugins` shows how.")
}

// One entry, one location: a plugin whose path is set is not also shown
// as found by discovery, nor a builtin as found beside riot.
func TestPluginsShowsOneLocation(t *testing.T) {
	e := newEnv(t)
	missing := filepath.Join(e.ws, "opt", "riot-tool-testkit")
	e.write(".riot/config.toml", fmt.Sprintf("plugin_dirs = [%q]\n\n[plugins.testkit]\nenabled = true\npath = %q\n", filepath.Dir(bin.testkit), missing))
	e.trust() // the workspace file sets what only a trusted workspace may
	r := e.riot("", "plugins")
	r.want(t, 0, "testkit (plugin, enabled)\n  path:     "+missing, "does not exist")
	if strings.Contains(r.stdout, "found in:") {
		t.Fatalf("two locations for one entry:\n%s", r.stdout)
	}
}

// A plugin tool that can be read-only but declares no subjects is outside
// the fence and the deny rules: riot plugins warns, from a started plugin
// and from the manifest cache alike.
func TestPluginsWarnsAboutToolsWithoutSubjects(t *testing.T) {
	e := newEnv(t)
	e.enableTestkit()
	for range 2 { // the second listing reads the manifest cache
		r := e.riot("", "plugins")
		r.want(t, 0, "testkit (plugin, enabled)", "  warning:  Noop, Echo, Crash, Block, Barrier, Fail, Stream, StreamUnlimited, Writes, Image, Sleep, Look, Mark can be read-only but declare no permission subjects", "neither the workspace fence nor a deny rule sees what they read")
		if strings.Count(r.stdout, "warning:") != 1 {
			t.Fatalf("a builtin is warned about:\n%s", r.stdout)
		}
	}
}

// In a turn, an unknown tool's result tells the model which plugins are
// installed but not enabled, and that the user must enable one.
func TestRunUnknownToolNamesPluginsNotEnabled(t *testing.T) {
	e := newEnv(t)
	e.write(".riot/config.toml", fmt.Sprintf("plugin_dirs = [%q]\n", filepath.Dir(bin.testkit)))
	e.trust() // the workspace file sets what only a trusted workspace may
	e.riot(`[{"type":"tool_use","id":"a","name":"Noop","input":{}}]`, "run").want(t, 0,
		`There is no tool named \"Noop\"`, "Installed but not enabled, so their tools cannot be called in this session: testkit.", "tell the user that its plugin must be enabled")
}
