package core

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/config/trust"
)

// TestResolveStandalone: a builtin may be served by the riot-tool-NAME in
// riot's own directory, never by one a workspace provides, and never when
// the config pins the builtin to riot's own binary.
func TestResolveStandalone(t *testing.T) {
	root := t.TempDir()
	exeDir, ws := filepath.Join(root, "bin"), filepath.Join(root, "ws")
	touch := func(path string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	exe := filepath.Join(exeDir, "riot")
	touch(exe)
	touch(filepath.Join(exeDir, "riot-tool-grep"))
	touch(filepath.Join(exeDir, "riot-tool-bash"))
	touch(filepath.Join(ws, ".riot", "plugins", "riot-tool-read"))
	pin := strings.Repeat("a", 64)
	if err := os.WriteFile(filepath.Join(ws, ".riot", "config.toml"), []byte("[plugins.bash]\nsha256 = \""+pin+"\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) string {
		if k == "XDG_CONFIG_HOME" || k == "HOME" {
			return root
		}
		return ""
	}
	// Trusted, so that its pin applies and its plugin directory is searched.
	sums, err := config.ContentSums(ws)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := trust.ForConfigDir(config.UserConfigDir(getenv)).Trust(ws, sums, time.Now()); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(config.Options{Workspace: ws, Getenv: getenv})
	if err != nil {
		t.Fatal(err)
	}
	specs, statuses := Resolver{Workspace: ws, Exe: exe, Builtins: []string{"bash", "grep", "read"}, Getenv: getenv}.ResolvePlugins(cfg)
	want := map[string]string{
		"grep": filepath.Join(exeDir, "riot-tool-grep"), // beside riot
		"bash": "",                                      // pinned to riot's binary
		"read": "",                                      // only in the workspace's plugin directory
	}
	for _, s := range specs {
		if w, ok := want[s.Name]; ok && (s.Standalone != w || s.Path != exe) {
			t.Errorf("%s: served by %s, standalone %q; want riot with standalone %q", s.Name, s.Path, s.Standalone, w)
		}
	}
	for _, st := range statuses {
		if w, ok := want[st.Name]; ok && st.Standalone != w {
			t.Errorf("%s status: standalone %q, want %q", st.Name, st.Standalone, w)
		}
	}
}
