package core

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core/permission"
)

// riot's state and user config are hidden in every profile, whatever
// shows them; of the state, only the session's own spilled results are
// shown, read-only, and a root inside the state dir stays usable.
func TestProfileHidesRiotStateAndConfig(t *testing.T) {
	h, _, home, _ := cachedHost(t)
	own := filepath.Join(h.stateDir, "results", "s1")
	other := filepath.Join(h.stateDir, "results", "s2")
	inner := filepath.Join(h.stateDir, "ws2")
	for _, d := range []string{own, other, inner, filepath.Join(h.stateDir, "hosts")} {
		mkdir(t, d)
	}
	h.resultDir = own
	h.cfg.Permissions.AdditionalDirs = append(h.cfg.Permissions.AdditionalDirs, inner, filepath.Dir(h.stateDir))
	h.cfg.Sandbox.AllowRead = append(h.cfg.Sandbox.AllowRead, config.SandboxPath{Path: other}, config.SandboxPath{Path: h.stateDir})
	h.cfg.Sandbox.AllowWrite = append(h.cfg.Sandbox.AllowWrite, config.SandboxPath{Path: filepath.Join(h.stateDir, "hosts")})
	conf := filepath.Join(home, ".config", "riot")
	for _, readOnly := range []bool{true, false} {
		p := h.startProfile(readOnly, permission.Request{Subjects: []permission.Subject{
			{Kind: permission.PathSubject, Value: filepath.Join(other, "x.txt"), Access: permission.Read},
		}}, permission.Decision{Behavior: permission.Allow, ByUser: true})
		for _, hidden := range []string{h.stateDir, conf} {
			if !slices.Contains(p.MaskedPaths, hidden) {
				t.Errorf("read-only %v: %s is not hidden: %v", readOnly, hidden, p.MaskedPaths)
			}
		}
		for _, l := range [][]string{p.ReadPaths, p.WritePaths} {
			for _, path := range l {
				if within(path, h.stateDir) && path != own && path != inner || within(path, conf) {
					t.Errorf("read-only %v: %s of riot's state or config is shown: read %v write %v", readOnly, path, p.ReadPaths, p.WritePaths)
				}
			}
		}
		if !slices.Contains(p.ReadPaths, own) || slices.Contains(p.WritePaths, own) {
			t.Errorf("read-only %v: the session's own results must be shown read-only: read %v write %v", readOnly, p.ReadPaths, p.WritePaths)
		}
		if !slices.Contains(p.WritePaths, inner) {
			t.Errorf("read-only %v: a root inside the state dir must stay: %v", readOnly, p.WritePaths)
		}
	}
}

// What runs code later or holds riot's configuration is protected in
// every profile, whether it exists or not, and the profile follows it
// being made: a root's .riot/ and .git/hooks are made empty, a root's
// .git/* is listed once .git exists, .mcp.json and Claude Code's settings
// once they exist.
func TestProfileProtectsWhatRunsLater(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("RIOT_PLUGIN_PATH", "")
	h, ws, home, _ := cachedHost(t)
	inRootDir := filepath.Join(ws, "tools")
	h.cfg.PluginDirs = []string{inRootDir}
	plugin := filepath.Join(t.TempDir(), "riot-tool-x")
	writeFile(t, plugin)
	missingPlugin := filepath.Join(t.TempDir(), "riot-tool-y")
	h.opts.Plugins = []PluginSpec{{Name: "x", Path: plugin}, {Name: "y", Path: missingPlugin}}
	bare := filepath.Join(t.TempDir(), "bare")
	repo := filepath.Join(t.TempDir(), "repo")
	mkdir(t, bare)
	mkdir(t, filepath.Join(repo, ".git"))
	h.cfg.Permissions.AdditionalDirs = append(h.cfg.Permissions.AdditionalDirs, bare, repo)
	allowed := permission.Decision{Behavior: permission.Allow}
	p := h.startProfile(false, permission.Request{}, allowed)
	want := []string{plugin, filepath.Join(home, ".local", "share", "riot", "plugins"),
		filepath.Join(bare, ".riot"), filepath.Join(repo, ".riot"), filepath.Join(repo, ".git", "hooks"), filepath.Join(repo, ".git", "config")}
	for _, rel := range protectedInHome {
		want = append(want, filepath.Join(home, rel))
	}
	for _, w := range want {
		if !slices.Contains(p.ProtectedPaths, w) {
			t.Errorf("%s is not protected: %v", w, p.ProtectedPaths)
		}
	}
	for _, made := range []string{filepath.Join(bare, ".riot"), filepath.Join(repo, ".riot"), filepath.Join(repo, ".git", "hooks")} {
		if fi, err := os.Stat(made); err != nil || !fi.IsDir() {
			t.Errorf("%s was not made: %v", made, err)
		}
	}
	for _, never := range []string{filepath.Join(bare, ".git", "hooks"), filepath.Join(bare, ".git", "config"), filepath.Join(ws, ".mcp.json"), filepath.Join(ws, ".claude", "settings.json"), missingPlugin, inRootDir} {
		if slices.Contains(p.ProtectedPaths, never) {
			t.Errorf("%s is listed while missing (its parent would be frozen): %v", never, p.ProtectedPaths)
		}
	}
	if _, err := os.Lstat(filepath.Join(bare, ".git")); err == nil {
		t.Fatal("riot made a .git")
	}
	// Made since, each is protected from the next call on; a directory
	// riot made and someone removed is made again.
	mkdir(t, filepath.Join(bare, ".git"))
	mkdir(t, inRootDir)
	writeFile(t, filepath.Join(ws, ".mcp.json"))
	mkdir(t, filepath.Join(ws, ".claude"))
	writeFile(t, filepath.Join(ws, ".claude", "settings.json"))
	writeFile(t, filepath.Join(ws, ".claude", "settings.local.json"))
	writeFile(t, missingPlugin)
	if err := os.Remove(filepath.Join(bare, ".riot")); err != nil {
		t.Fatal(err)
	}
	p = h.startProfile(false, permission.Request{}, allowed)
	for _, w := range []string{filepath.Join(bare, ".git", "hooks"), filepath.Join(bare, ".git", "config"), filepath.Join(ws, ".mcp.json"), filepath.Join(ws, ".claude", "settings.json"), filepath.Join(ws, ".claude", "settings.local.json"), missingPlugin, filepath.Join(bare, ".riot"), inRootDir} {
		if !slices.Contains(p.ProtectedPaths, w) {
			t.Errorf("%s made since is not protected on the next call: %v", w, p.ProtectedPaths)
		}
	}
	if fi, err := os.Stat(filepath.Join(bare, ".riot")); err != nil || !fi.IsDir() {
		t.Errorf(".riot removed is not made again: %v", err)
	}
	// $XDG_CONFIG_HOME elsewhere: its systemd, autostart and git dirs too.
	xdg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", xdg)
	p = h.startProfile(false, permission.Request{}, allowed)
	for _, sub := range []string{"systemd/user", "autostart", "git", "fish"} {
		if !slices.Contains(p.ProtectedPaths, filepath.Join(xdg, sub)) {
			t.Errorf("$XDG_CONFIG_HOME/%s is not protected: %v", sub, p.ProtectedPaths)
		}
	}
	if !slices.Contains(p.MaskedPaths, filepath.Join(xdg, "riot")) && !slices.Contains(p.ProtectedPaths, filepath.Join(xdg, "riot")) {
		t.Errorf("riot's config dir in $XDG_CONFIG_HOME is neither hidden nor protected")
	}
	// The user's answer naming .git uncovers .git's paths only.
	u := h.startProfile(false, permission.Request{}, permission.Decision{Behavior: permission.Allow, ByUser: true, Check: "protected path in command: " + filepath.Join(repo, ".git")})
	if slices.Contains(u.ProtectedPaths, filepath.Join(repo, ".git", "hooks")) || !slices.Contains(u.ProtectedPaths, filepath.Join(home, ".bashrc")) {
		t.Errorf("the user's answer: %v", u.ProtectedPaths)
	}
}

// The session's results dir, made by the first spill, is shown from the
// next call on, though the base was computed while it did not exist; and
// a protected directory the base made (it was missing) is made again once
// it is removed.
func TestProfileFollowsResultsAndMadeDirs(t *testing.T) {
	h, ws, _, _ := cachedHost(t)
	h.resultDir = filepath.Join(h.stateDir, "results", "s1")
	riotDir := filepath.Join(ws, ".riot")
	if err := os.RemoveAll(riotDir); err != nil {
		t.Fatal(err)
	}
	allow := permission.Decision{Behavior: permission.Allow}
	for i, step := range []func(){
		func() {},
		func() {
			if err := os.Remove(riotDir); err != nil {
				t.Fatal(err)
			}
		},
		func() { mkdir(t, h.resultDir) },
	} {
		step()
		p := h.startProfile(false, permission.Request{}, allow)
		if _, err := os.Stat(riotDir); err != nil || !slices.Contains(p.ProtectedPaths, riotDir) {
			t.Fatalf("step %d: a missing .riot is not made and protected: %v, %v", i, err, p.ProtectedPaths)
		}
		if shown := slices.Contains(p.ReadPaths, h.resultDir); shown != (i == 2) {
			t.Fatalf("step %d: results dir shown %v, want %v: %v", i, shown, i == 2, p.ReadPaths)
		}
	}
}
