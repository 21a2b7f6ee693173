package bash

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestReadGitConfig: the config parser places every line, and refuses one it cannot place.
func TestReadGitConfig(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config")
	body := "# comment\n; comment\n[core]\n\tfsmonitor = \"touch #x\" # trailing\n\tbare\n[remote \"Origin\"]\n\turl = a\\\n b\n" +
		"[Branch.Main] merge = refs/heads/main\n[diff \"x\"] ; comment\n\ttextconv = cat\n[alias]\nst = \"!sh\" ; c\n"
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := readGitConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, s := range got {
		keys = append(keys, s.key+"="+s.value)
	}
	want := []string{"core.fsmonitor=touch #x", "core.bare=", "remote.Origin.url=ab", "branch.Main.merge=refs/heads/main",
		"diff.x.textconv=cat", "alias.st=!sh"}
	if !slices.Equal(keys, want) {
		t.Errorf("settings %q, want %q", keys, want)
	}
	for _, bad := range []string{"[core\nx = 1\n", "x = 1\n"} {
		if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := readGitConfig(path); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	if s, err := readGitConfig(filepath.Join(dir, "missing")); s != nil || err != nil {
		t.Errorf("a missing config has no settings: %v %v", s, err)
	}
	if _, err := readGitConfig(dir); err == nil {
		t.Error("a directory in place of a config is an error")
	}
}

func TestGitProgramKey(t *testing.T) {
	for kv, want := range map[[2]string]bool{
		{"core.fsmonitor", "true"}: true, {"core.fsmonitor", "false"}: false, {"core.fsmonitor", "No"}: false,
		{"core.fsmonitor", ""}: false, {"core.fsmonitor", "0"}: false, {"core.fsmonitor", "off"}: false,
		{"core.pager", "less"}: true, {"core.hookspath", "h"}: true, {"diff.external", "x"}: true,
		{"diff.x.textconv", "cat"}: true, {"diff.x.command", "c"}: true, {"diff.x.binary", "true"}: false,
		{"filter.lfs.smudge", "x"}: true, {"merge.x.driver", "d"}: true, {"merge.x.name", "n"}: false,
		{"alias.st", "!sh"}: true, {"alias.st", " !sh"}: true, {"alias.st", "status"}: false,
		{"credential.helper", "h"}: true, {"credential.https://x.helper", "h"}: true, {"credential.x.username", "u"}: false,
		{"gpg.program", "g"}: true, {"gpg.ssh.program", "g"}: true, {"gpg.format", "ssh"}: false,
		{"remote.o.uploadpack", "x"}: true, {"remote.o.url", "u"}: false, {"submodule.s.update", "!x"}: true,
		{"submodule.s.update", "checkout"}: false, {"man.x.cmd", "c"}: true, {"pager.log", "x"}: true,
		{"user.name", "n"}: false, {"core.editor", "vi"}: true, {"web.browser", "b"}: true,
	} {
		if got := gitProgramKey(kv[0], kv[1]); got != want {
			t.Errorf("gitProgramKey(%q, %q) = %v, want %v", kv[0], kv[1], got, want)
		}
	}
}

// TestTrackedRefusesBadIndexes: an index riot cannot read is not an empty one.
func TestTrackedRefusesBadIndexes(t *testing.T) {
	dir := t.TempDir()
	r := &gitRepo{gitDir: dir}
	if names, ok := r.tracked(10); !ok || names != nil {
		t.Errorf("no index is an empty one: %q %v", names, ok)
	}
	header := func(version, count uint32) []byte {
		b := []byte("DIRC")
		b = binary.BigEndian.AppendUint32(b, version)
		return binary.BigEndian.AppendUint32(b, count)
	}
	for name, b := range map[string][]byte{
		"short":       []byte("DIRC"),
		"bad magic":   append([]byte("DIRX"), header(2, 0)[4:]...),
		"version 1":   header(1, 0),
		"version 5":   header(5, 0),
		"too many":    header(2, 11),
		"truncated":   append(header(2, 1), make([]byte, 30)...),
		"no name end": append(header(2, 1), make([]byte, 62)...),
	} {
		if name == "no name end" {
			b = append(b, 'a', 'b')
		}
		if err := os.WriteFile(filepath.Join(dir, "index"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		if names, ok := r.tracked(10); ok {
			t.Errorf("%s: read as %q", name, names)
		}
	}
	// The limit itself is allowed.
	if err := os.WriteFile(filepath.Join(dir, "index"), header(2, 0), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := r.tracked(0); !ok {
		t.Error("an empty index within a limit of 0")
	}
}

// TestFindRepo: a bare repository, a linked worktree's config.worktree, and a .git file that is not one.
func TestFindRepo(t *testing.T) {
	dir := t.TempDir()
	gitIn(t, dir, "init", "-q", "--bare", "b.git")
	if r := findRepo(filepath.Join(dir, "b.git")); r == nil || r.top != "" || r.gitDir != filepath.Join(dir, "b.git") {
		t.Errorf("a bare repository: %+v", r)
	}
	if r := findRepo(filepath.Join(dir, "nowhere")); r != nil && r.gitDir != "" && isGitDir(filepath.Join(dir, "nowhere")) {
		t.Errorf("no repository: %+v", r)
	}
	ws := filepath.Join(dir, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".git"), []byte("not a gitdir line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := findRepo(ws); r == nil || r.problem == "" {
		t.Errorf("an unreadable .git file is a problem: %+v", r)
	}
	// A linked worktree reads its own config.worktree too.
	main := filepath.Join(dir, "main")
	gitIn(t, dir, "init", "-q", "main")
	if err := os.WriteFile(filepath.Join(main, "f"), []byte("f\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, main, "add", "f")
	gitIn(t, main, "commit", "-qm", "x")
	gitIn(t, main, "worktree", "add", "-q", filepath.Join(dir, "wt"))
	r := findRepo(filepath.Join(dir, "wt"))
	if r == nil || r.commonDir != filepath.Join(main, ".git") || r.top != filepath.Join(dir, "wt") {
		t.Fatalf("a linked worktree: %+v", r)
	}
	if err := os.WriteFile(filepath.Join(r.gitDir, "config.worktree"), []byte("[core]\n\tpager = x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if hit, _ := scanRepos(findRepo(filepath.Join(dir, "wt"))); hit == nil || hit.key != "core.pager" {
		t.Errorf("config.worktree is read: %+v", r.config)
	}
}
