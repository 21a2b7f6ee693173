package main

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/riot-tools/riot/config/lock"
	"github.com/riot-tools/riot/core/sessionhost"
)

// A session host reads its config again only when a file it came from
// changed: every layer config.Load read, .mcp.json, the trust record, the
// plugin lock, the plugin directories and each riot-tool-* in them (even
// one not yet executable), and each plugin binary. Each of them, changed,
// makes the next turn read the config again; unchanged, none does.
func TestSessionHostWatchesEveryFileItsConfigComesFrom(t *testing.T) {
	root := t.TempDir()
	home, ws, pdir := filepath.Join(root, "home"), filepath.Join(root, "ws"), filepath.Join(root, "plugins")
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(root, "state"))
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, ".local", "share"))
	write := func(path, body string, mode os.FileMode) string {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
		return path
	}
	// Never started: resolving the plugins only looks at it.
	write(filepath.Join(pdir, "riot-tool-testkit"), "#!/bin/sh\nexit 1\n", 0o755)
	write(filepath.Join(pdir, "riot-tool-later"), "", 0o644) // not executable, so not discovered
	write(filepath.Join(home, ".config", "riot", "config.toml"), "plugin_dirs = [\""+pdir+"\"]\n\n[plugins.testkit]\nenabled = true\n", 0o644)
	write(filepath.Join(ws, ".riot", "config.toml"), "[permissions]\nallow = [\"Read\"]\n", 0o644)
	write(filepath.Join(ws, ".riot", "config.local.toml"), "[permissions]\nallow = [\"Grep\"]\n", 0o644)
	write(filepath.Join(ws, ".mcp.json"), "{\"mcpServers\": {}}\n", 0o644)
	extra := write(filepath.Join(root, "extra.toml"), "[limits]\nmax_parallel = 3\n", 0o644)
	// In the past, so that a new entry moves the directory's times even
	// within the file system clock's tick of the fixture.
	past := time.Now().Add(-time.Hour)
	if err := os.Chtimes(pdir, past, past); err != nil {
		t.Fatal(err)
	}

	a := &app{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, cwd: ws, configFile: extra, session: "S"}
	stateDir := filepath.Join(root, "state", "riot")
	cfg, _, paths, err := a.hostConfig(stateDir)
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	want := append(slices.Clone(cfg.Files), filepath.Join(ws, ".mcp.json"), cfg.Trust.Record, lock.Path(ws),
		filepath.Join(pdir, "riot-tool-later"))
	for _, d := range cfg.SearchDirs(ws, filepath.Dir(exe), nil) {
		want = append(want, d.Path)
	}
	specs, _, _ := a.resolved(cfg, ws)
	for _, s := range specs {
		want = append(want, s.Path)
	}
	if len(cfg.Files) != 4 {
		t.Fatalf("the fixture should make config.Load read four layers: %v", cfg.Files)
	}
	for _, p := range want {
		if !slices.Contains(paths, p) {
			t.Errorf("the host does not watch %s, which its config depends on", p)
		}
	}

	far := time.Now().Add(time.Hour)
	for _, c := range []struct {
		name   string
		change func() error
	}{
		{"the user config", func() error { return appendTo(cfg.Files[0], "# edited\n") }},
		{"the workspace config", func() error { return appendTo(filepath.Join(ws, ".riot", "config.toml"), "# edited\n") }},
		{"the local layer", func() error { return appendTo(filepath.Join(ws, ".riot", "config.local.toml"), "# edited\n") }},
		{"the --config file", func() error { return appendTo(extra, "# edited\n") }},
		{".mcp.json", func() error { return appendTo(filepath.Join(ws, ".mcp.json"), " ") }},
		{"a plugin binary", func() error { return os.Chmod(filepath.Join(pdir, "riot-tool-testkit"), 0o700) }},
		{"a plugin made executable", func() error { return os.Chmod(filepath.Join(pdir, "riot-tool-later"), 0o755) }},
		{"a plugin directory", func() error { return os.WriteFile(filepath.Join(pdir, "riot-tool-new"), nil, 0o755) }},
		{"the plugin lock", func() error { return appendTo(lock.Path(ws), "") }},
		// Last: an empty record is one the config cannot use.
		{"the trust record", func() error { return appendTo(cfg.Trust.Record, "") }},
	} {
		t.Run(c.name, func(t *testing.T) {
			loads := 0
			w := sessionhost.ConfigWatch{Now: func() time.Time { return far }}
			load := func() (string, []string, error) {
				loads++
				_, fp, paths, err := a.hostConfig(stateDir)
				return fp, paths, err
			}
			for range 3 {
				if _, err := w.Current(load); err != nil {
					t.Fatal(err)
				}
			}
			n := loads
			if _, err := w.Current(load); err != nil || loads != n {
				t.Fatalf("an unchanged config should not be read again (%d reads, %v)", loads-n, err)
			}
			if err := c.change(); err != nil {
				t.Fatal(err)
			}
			if _, _ = w.Current(load); loads != n+1 {
				t.Fatalf("a changed %s should make the host read its config again (%d reads)", c.name, loads-n)
			}
		})
	}
}

// appendTo appends s to the file, creating it when it does not exist.
func appendTo(path, s string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(s); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}
