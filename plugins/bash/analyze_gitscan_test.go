package bash

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// scanWorld is a workspace ws that is a git repository tracking a.txt (diff driver x by .gitattributes), with
// a home directory beside it, for issue 29 class 7: every config git reads for a command counts.
type scanWorld struct {
	root, ws, home string
}

func newScanWorld(t *testing.T) scanWorld {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := scanWorld{root: root, ws: root + "/ws", home: root + "/home"}
	writeScan(t, w.ws+"/a.txt", "a\n")
	writeScan(t, w.ws+"/.gitattributes", "*.txt diff=x\n")
	writeScan(t, w.home+"/.keep", "")
	gitIn(t, w.ws, "init", "-q")
	gitIn(t, w.ws, "add", ".")
	gitIn(t, w.ws, "commit", "-qm", "init")
	return w
}

// writeScan writes a fixture file, making its directory.
func writeScan(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (w scanWorld) env() Env {
	return Env{Dir: w.ws, Home: w.home, Roots: []string{w.ws}, GitConfigs: []string{w.home + "/.gitconfig"}}
}

// repo makes a repository at dir with one commit.
func (w scanWorld) repo(t *testing.T, dir string) {
	t.Helper()
	writeScan(t, dir+"/f.txt", "f\n")
	gitIn(t, dir, "init", "-q")
	gitIn(t, dir, "add", ".")
	gitIn(t, dir, "commit", "-qm", "f")
}

// submodule adds the repository inner (outside ws) as the submodule sub.
func (w scanWorld) submodule(t *testing.T) {
	t.Helper()
	w.repo(t, w.root+"/inner")
	gitIn(t, w.ws, "-c", "protocol.file.allow=always", "submodule", "add", "-q", "../inner", "sub")
	gitIn(t, w.ws, "commit", "-qm", "sub")
}

// embedded adds a repository made inside the work tree (its git dir is emb/.git) as a gitlink.
func (w scanWorld) embedded(t *testing.T) {
	t.Helper()
	w.repo(t, w.ws+"/emb")
	gitIn(t, w.ws, "add", "emb")
	gitIn(t, w.ws, "commit", "-qm", "emb")
}

// TestGitConfigSources: a setting that runs a program, in each config git reads besides the top one, makes
// status, diff, log -p and show not read-only, with a reason that names the file and the key. Before issue
// 29's fix only the top repository's config counted, so each of these passed as read-only.
func TestGitConfigSources(t *testing.T) {
	for _, c := range []struct {
		name  string
		setup func(t *testing.T, w scanWorld) (file, key string)
	}{
		{"a submodule's config under .git/modules", func(t *testing.T, w scanWorld) (string, string) {
			w.submodule(t)
			gitIn(t, w.ws, "config", "-f", ".git/modules/sub/config", "core.fsmonitor", "touch pwned")
			return w.ws + "/.git/modules/sub/config", "core.fsmonitor"
		}},
		{"an embedded repository's own config", func(t *testing.T, w scanWorld) (string, string) {
			w.embedded(t)
			gitIn(t, w.ws+"/emb", "config", "diff.external", "touch pwned")
			return w.ws + "/emb/.git/config", "diff.external"
		}},
		{"config.worktree of the main worktree", func(t *testing.T, w scanWorld) (string, string) {
			gitIn(t, w.ws, "config", "extensions.worktreeConfig", "true")
			gitIn(t, w.ws, "config", "--worktree", "diff.x.textconv", "touch pwned")
			return w.ws + "/.git/config.worktree", "diff.x.textconv"
		}},
		{"an include.path target", func(t *testing.T, w scanWorld) (string, string) {
			writeScan(t, w.ws+"/inc.cfg", "[diff \"x\"]\n\ttextconv = touch pwned\n")
			gitIn(t, w.ws, "config", "include.path", "../inc.cfg")
			return w.ws + "/inc.cfg", "diff.x.textconv"
		}},
		{"a submodule of a submodule, unpopulated", func(t *testing.T, w scanWorld) (string, string) {
			d := w.ws + "/.git/modules/sub/modules/deep"
			writeScan(t, d+"/HEAD", "ref: refs/heads/main\n")
			writeScan(t, d+"/config", "[core]\n\tfsmonitor = touch pwned\n")
			return d + "/config", "core.fsmonitor"
		}},
		{"a submodule whose name holds a slash", func(t *testing.T, w scanWorld) (string, string) {
			d := w.ws + "/.git/modules/lib/one"
			writeScan(t, d+"/config", "[filter \"f\"]\n\tclean = touch pwned\n")
			return d + "/config", "filter.f.clean"
		}},
		{"an include in the user's config that lies in the workspace", func(t *testing.T, w scanWorld) (string, string) {
			writeScan(t, w.home+"/.gitconfig", "[include]\n\tpath = "+w.ws+"/team.cfg\n")
			writeScan(t, w.ws+"/team.cfg", "[core]\n\tpager = touch pwned\n")
			return w.ws + "/team.cfg", "core.pager"
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newScanWorld(t)
			file, key := c.setup(t, w)
			want := fmt.Sprintf("The git config file %s sets %s, which makes git run a program", file, key)
			for _, cmd := range []string{"git status", "git diff", "git log -p", "git show", "git log -c -1"} {
				a := AnalyzeIn(cmd, w.env())
				if a.ReadOnly || len(a.Asks) == 0 || !strings.Contains(a.Asks[0], want) {
					t.Errorf("%s: read-only %v, asks %q; want not read-only, asking %q", cmd, a.ReadOnly, a.Asks, want)
				}
			}
		})
	}
}

// TestGitConfigSourcesNotCounted: what git does not read for the command, and the user's own config, leave
// read-only commands read-only.
func TestGitConfigSourcesNotCounted(t *testing.T) {
	for _, c := range []struct {
		name  string
		setup func(t *testing.T, w scanWorld)
	}{
		{"a clean submodule", func(t *testing.T, w scanWorld) { w.submodule(t) }},
		{"a nested repository the index does not record", func(t *testing.T, w scanWorld) {
			w.repo(t, w.ws+"/nested")
			gitIn(t, w.ws+"/nested", "config", "core.fsmonitor", "touch pwned")
		}},
		{"the user's global config", func(t *testing.T, w scanWorld) {
			writeScan(t, w.home+"/.gitconfig", "[filter \"lfs\"]\n\tclean = git-lfs clean -- %f\n[core]\n\tpager = less\n")
		}},
		{"an include of the user's config outside the workspace", func(t *testing.T, w scanWorld) {
			writeScan(t, w.home+"/.gitconfig", "[include]\n\tpath = ~/.gitconfig.local\n")
			writeScan(t, w.home+"/.gitconfig.local", "[credential]\n\thelper = store\n")
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newScanWorld(t)
			c.setup(t, w)
			for _, cmd := range []string{"git status", "git diff", "git log -p", "git show"} {
				if a := AnalyzeIn(cmd, w.env()); !a.ReadOnly || len(a.Asks) > 0 {
					t.Errorf("%s: read-only %v, asks %q; want read-only", cmd, a.ReadOnly, a.Asks)
				}
			}
		})
	}
	// Inside the nested repository, its config is the repository's: git there runs it.
	w := newScanWorld(t)
	w.repo(t, w.ws+"/nested")
	gitIn(t, w.ws+"/nested", "config", "core.fsmonitor", "touch pwned")
	want := "The git config file " + w.ws + "/nested/.git/config sets core.fsmonitor"
	for _, cmd := range []string{"cd nested && git status", "cd nested; git diff"} {
		if a := AnalyzeIn(cmd, w.env()); a.ReadOnly || len(a.Asks) == 0 || !strings.Contains(a.Asks[0], want) {
			t.Errorf("%s: read-only %v, asks %q; want %q", cmd, a.ReadOnly, a.Asks, want)
		}
	}
	if a := AnalyzeIn("git -C nested status", w.env()); a.ReadOnly {
		t.Error("git -C moves git elsewhere: not read-only")
	}
}

// TestGitConfigSourcesUnreadable: what riot cannot read or bound is not read-only, and asks saying why.
func TestGitConfigSourcesUnreadable(t *testing.T) {
	for _, c := range []struct {
		name, want string
		setup      func(t *testing.T, w scanWorld)
	}{
		{"a submodule's config that is a directory", "riot cannot read the repository's config", func(t *testing.T, w scanWorld) {
			w.submodule(t)
			cfg := w.ws + "/.git/modules/sub/config"
			if err := os.Remove(cfg); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(cfg, 0o755); err != nil {
				t.Fatal(err)
			}
		}},
		{"an embedded repository's .git file that is not one", "riot cannot read the .git file", func(t *testing.T, w scanWorld) {
			w.embedded(t)
			if err := os.RemoveAll(w.ws + "/emb/.git"); err != nil {
				t.Fatal(err)
			}
			writeScan(t, w.ws+"/emb/.git", "not a gitdir line\n")
		}},
		{"a split index", "cannot read the index of the repository", func(t *testing.T, w scanWorld) {
			gitIn(t, w.ws, "update-index", "--split-index")
		}},
		{"submodules nested too deep", "Submodules nest deeper than riot reads", func(t *testing.T, w scanWorld) {
			d := w.ws + "/.git"
			for range maxRepoDepth {
				d += "/modules/m"
				writeScan(t, d+"/HEAD", "ref: refs/heads/main\n")
			}
		}},
		{"too many submodules", "more submodules than riot reads", func(t *testing.T, w scanWorld) {
			for i := range maxRepos {
				writeScan(t, fmt.Sprintf("%s/.git/modules/m%d/HEAD", w.ws, i), "ref: refs/heads/main\n")
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newScanWorld(t)
			c.setup(t, w)
			a := AnalyzeIn("git status", w.env())
			if a.ReadOnly || len(a.Asks) == 0 || !strings.Contains(a.Asks[0], c.want) || !strings.HasSuffix(a.Asks[0], "Running it needs the user's approval.") {
				t.Errorf("read-only %v, asks %q; want not read-only, asking %q", a.ReadOnly, a.Asks, c.want)
			}
		})
	}
	// Just within the bounds, nothing asks.
	w := newScanWorld(t)
	d := w.ws + "/.git"
	for range maxRepoDepth - 1 {
		d += "/modules/m"
		writeScan(t, d+"/HEAD", "ref: refs/heads/main\n")
	}
	for i := range maxRepos - maxRepoDepth {
		writeScan(t, fmt.Sprintf("%s/.git/modules/n%d/HEAD", w.ws, i), "ref: refs/heads/main\n")
	}
	if a := AnalyzeIn("git status", w.env()); !a.ReadOnly || len(a.Asks) > 0 {
		t.Errorf("within the bounds: read-only %v, asks %q", a.ReadOnly, a.Asks)
	}
}

// TestIndexGitlinks: gitlinks are told from files by their mode, and an index riot cannot read whole (a split
// or sparse index, an unknown required extension) is not read.
func TestIndexGitlinks(t *testing.T) {
	w := newScanWorld(t)
	w.embedded(t)
	r := findRepo(w.ws)
	links, ok := r.gitlinks()
	if !ok || len(links) != 1 || links[0] != "emb" {
		t.Fatalf("gitlinks %q %v, want [emb]", links, ok)
	}
	names, ok := r.tracked(10)
	if !ok || len(names) != 3 {
		t.Fatalf("tracked %q %v", names, ok)
	}
	if _, ok := r.tracked(2); ok {
		t.Error("three entries are past a limit of 2")
	}
	if _, ok := r.tracked(0); ok {
		t.Error("three entries are past a limit of 0")
	}
	// Versions 3 (an intent-to-add entry has extended flags) and 4 (names share prefixes) are read alike.
	writeScan(t, w.ws+"/new.txt", "n\n")
	gitIn(t, w.ws, "add", "-N", "new.txt")
	for _, v := range []string{"3", "4"} {
		gitIn(t, w.ws, "update-index", "--index-version", v)
		links, ok := r.gitlinks()
		names, tok := r.tracked(10)
		if !ok || len(links) != 1 || links[0] != "emb" || !tok || strings.Join(names, " ") != ".gitattributes a.txt emb new.txt" {
			t.Errorf("index version %s: gitlinks %q %v, tracked %q %v", v, links, ok, names, tok)
		}
	}
	gitIn(t, w.ws, "rm", "-q", "--cached", "new.txt")
	index := w.ws + "/.git/index"
	b, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	// A required extension after the entries, before the checksum.
	body, sum := b[:len(b)-20], b[len(b)-20:]
	for sig, readable := range map[string]bool{"link": false, "sdir": false, "TREE": true} {
		ext := append([]byte(sig), binary.BigEndian.AppendUint32(nil, 0)...)
		if err := os.WriteFile(index, append(append(append([]byte(nil), body...), ext...), sum...), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, ok := r.gitlinks(); ok != readable {
			t.Errorf("an index with a %q extension read: %v, want %v", sig, ok, readable)
		}
	}
	if err := os.WriteFile(index, b, 0o644); err != nil {
		t.Fatal(err)
	}
	// A sparse directory entry stands for what it holds.
	gitIn(t, w.ws, "update-index", "--index-version", "2")
	b, err = os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	binary.BigEndian.PutUint32(b[12+24:], 0o040000) // the first entry's mode
	if err := os.WriteFile(index, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := r.gitlinks(); ok {
		t.Error("an index with a directory entry read")
	}
}

func TestUserGitConfigs(t *testing.T) {
	for _, c := range []struct {
		environ, want string
	}{
		{"", "/h/.config/git/config /h/.gitconfig /etc/gitconfig"},
		{"XDG_CONFIG_HOME=/x", "/x/git/config /h/.gitconfig /etc/gitconfig"},
		{"GIT_CONFIG_GLOBAL=/g GIT_CONFIG_SYSTEM=/s", "/g /s"},
		{"GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_SYSTEM=", ""},
		{"GIT_CONFIG_NOSYSTEM=1", "/h/.config/git/config /h/.gitconfig /etc/gitconfig"},
	} {
		if got := strings.Join(userGitConfigs(strings.Fields(c.environ), "/h"), " "); got != c.want {
			t.Errorf("userGitConfigs(%s) = %q, want %q", c.environ, got, c.want)
		}
	}
	if got := userGitConfigs(nil, ""); len(got) != 1 || got[0] != "/etc/gitconfig" {
		t.Errorf("without a home: %q", got)
	}
}

// TestGitConfigSourcesBounds: a .git/modules that cannot be listed, or holds more entries than riot reads,
// asks; the user's config file itself is the user's even where the roots take it in (riot's protected paths
// keep commands from writing it), but what it includes from the roots counts.
func TestGitConfigSourcesBounds(t *testing.T) {
	w := newScanWorld(t)
	writeScan(t, w.ws+"/.git/modules", "not a directory\n")
	if a := AnalyzeIn("git status", w.env()); a.ReadOnly || len(a.Asks) == 0 || !strings.Contains(a.Asks[0], "riot cannot list "+w.ws+"/.git/modules") {
		t.Errorf("an unlistable .git/modules: read-only %v, asks %q", a.ReadOnly, a.Asks)
	}
	w = newScanWorld(t)
	for i := range maxModuleEntries {
		writeScan(t, fmt.Sprintf("%s/.git/modules/f%d", w.ws, i), "")
	}
	if a := AnalyzeIn("git status", w.env()); !a.ReadOnly || len(a.Asks) > 0 {
		t.Errorf("%d entries are within the bound: read-only %v, asks %q", maxModuleEntries, a.ReadOnly, a.Asks)
	}
	writeScan(t, w.ws+"/.git/modules/one-more", "")
	if a := AnalyzeIn("git status", w.env()); a.ReadOnly || len(a.Asks) == 0 || !strings.Contains(a.Asks[0], "holds more entries than riot reads") {
		t.Errorf("past the bound: read-only %v, asks %q", a.ReadOnly, a.Asks)
	}

	w = newScanWorld(t)
	env := w.env()
	env.Home = w.ws // --add-dir ~: the home directory is in the roots
	env.GitConfigs = []string{w.ws + "/.gitconfig", w.ws + "/.config/git/config"}
	writeScan(t, w.ws+"/.gitconfig", "[core]\n\tpager = less\n[include]\n\tpath = inc.cfg\n")
	writeScan(t, w.ws+"/.config/git/config", "[credential]\n\thelper = store\n")
	writeScan(t, w.ws+"/inc.cfg", "[user]\n\tname = u\n[include]\n\tpath = .gitconfig\n")
	if a := AnalyzeIn("git status", env); !a.ReadOnly || len(a.Asks) > 0 {
		t.Errorf("the user's own config in the roots, and an include cycle: read-only %v, asks %q", a.ReadOnly, a.Asks)
	}
	// A $GIT_CONFIG_GLOBAL elsewhere in the roots is no protected path: it counts.
	env.GitConfigs = []string{w.ws + "/global.cfg"}
	writeScan(t, w.ws+"/global.cfg", "[core]\n\tpager = less\n")
	if a := AnalyzeIn("git status", env); a.ReadOnly || len(a.Asks) == 0 || !strings.Contains(a.Asks[0], "The git config file "+w.ws+"/global.cfg sets core.pager") {
		t.Errorf("GIT_CONFIG_GLOBAL in the workspace: read-only %v, asks %q", a.ReadOnly, a.Asks)
	}
	env.GitConfigs = []string{w.ws + "/.gitconfig"}
	writeScan(t, w.ws+"/inc.cfg", "[include]\n\tpath = deeper.cfg\n")
	writeScan(t, w.ws+"/deeper.cfg", "[alias]\n\tx = !touch pwned\n")
	want := "The git config file " + w.ws + "/deeper.cfg sets alias.x"
	if a := AnalyzeIn("git status", env); a.ReadOnly || len(a.Asks) == 0 || !strings.Contains(a.Asks[0], want) {
		t.Errorf("an include of an include: read-only %v, asks %q, want %q", a.ReadOnly, a.Asks, want)
	}
	// Outside any repository, the user's config still counts.
	env.Dir = w.home
	if a := AnalyzeIn("git config --list", env); a.ReadOnly || len(a.Asks) == 0 || !strings.Contains(a.Asks[0], want) {
		t.Errorf("outside a repository: read-only %v, asks %q, want %q", a.ReadOnly, a.Asks, want)
	}
}

// TestGitLogPatch: the log options that print file contents (and so are checked against the Read deny rules
// through the index), and some that do not.
func TestGitLogPatch(t *testing.T) {
	for _, opts := range []string{"-p", "-u", "-c -1", "--cc", "-m", "--dd", "--remerge-diff", "--diff-merges=on",
		"--diff-merg=c", "--binary", "--check", "--unified=3", "-U1", "-L1,2:a.txt", "--word-diff=plain", "-3p",
		"--patch-with-stat", "--full-diff"} {
		if !gitLogPatch(words(opts)) {
			t.Errorf("git log %s prints contents", opts)
		}
	}
	for _, opts := range []string{"", "-1", "--stat", "--oneline", "-n3", "--name-only", "-- -p", "--format=%H", "--raw"} {
		if gitLogPatch(words(opts)) {
			t.Errorf("git log %s prints no contents", opts)
		}
	}
	// So `git log -c` asks where the repository tracks a denied file, as `git log -p` does.
	w := newScanWorld(t)
	writeScan(t, w.ws+"/secret.txt", "s\n")
	gitIn(t, w.ws, "add", "secret.txt")
	gitIn(t, w.ws, "commit", "-qm", "s")
	env := w.env()
	env.DeniedName = func(abs string) bool { return strings.HasSuffix(abs, "/secret.txt") }
	want := "`git log` prints file contents from history, and the repository tracks " + w.ws + "/secret.txt"
	if a := AnalyzeIn("git log -c -1", env); len(a.Asks) == 0 || !strings.Contains(a.Asks[0], want) {
		t.Errorf("git log -c with a denied tracked file: asks %q, want %q", a.Asks, want)
	}
	if a := AnalyzeIn("git log -1 --stat", env); len(a.Asks) > 0 || !a.ReadOnly {
		t.Errorf("git log --stat prints no contents: read-only %v, asks %q", a.ReadOnly, a.Asks)
	}
}

// words are the fields of s as literal words.
func words(s string) []word {
	var out []word
	for _, f := range strings.Fields(s) {
		out = append(out, word{text: f, lit: true})
	}
	return out
}

// TestGitIndexHook: the hook git runs when status or diff refresh the index counts, in the repository and in
// its submodules; hooks that only commands which are not read-only run do not.
func TestGitIndexHook(t *testing.T) {
	w := newScanWorld(t)
	writeScan(t, w.ws+"/.git/hooks/pre-commit", "#!/bin/sh\n")
	if a := AnalyzeIn("git status", w.env()); !a.ReadOnly || len(a.Asks) > 0 {
		t.Errorf("a pre-commit hook: read-only %v, asks %q", a.ReadOnly, a.Asks)
	}
	for _, rel := range []string{"/.git/hooks/post-index-change", "/.git/modules/sub/hooks/post-index-change"} {
		w := newScanWorld(t)
		w.submodule(t)
		hook := w.ws + rel
		writeScan(t, hook, "#!/bin/sh\n")
		want := "The git hook " + hook + " runs when git refreshes the index"
		for _, cmd := range []string{"git status", "git diff", "git log"} {
			if a := AnalyzeIn(cmd, w.env()); a.ReadOnly || len(a.Asks) == 0 || !strings.Contains(a.Asks[0], want) {
				t.Errorf("%s: read-only %v, asks %q, want %q", cmd, a.ReadOnly, a.Asks, want)
			}
		}
	}
}

// TestGitConfigSourcesDepth: the bounds hold for each way down: repositories embedded in work trees, a
// submodule's name with slashes, and the includes of the user's config.
func TestGitConfigSourcesDepth(t *testing.T) {
	// Embedded repositories, each recorded by its parent's index, maxRepoDepth levels down: the deepest asks.
	w := newScanWorld(t)
	dirs := []string{w.ws}
	for range maxRepoDepth {
		dirs = append(dirs, dirs[len(dirs)-1]+"/n")
	}
	for i := len(dirs) - 1; i > 0; i-- { // `add .` records the child made before as a gitlink
		writeScan(t, dirs[i]+"/f.txt", "f\n")
		gitIn(t, dirs[i], "init", "-q")
		gitIn(t, dirs[i], "add", ".")
		gitIn(t, dirs[i], "commit", "-qm", "f")
	}
	gitIn(t, w.ws, "add", "n")
	gitIn(t, w.ws, "commit", "-qm", "n")
	if a := AnalyzeIn("git status", w.env()); a.ReadOnly || len(a.Asks) == 0 || !strings.Contains(a.Asks[0], "Submodules nest deeper than riot reads (8 levels) at "+dirs[len(dirs)-1]+"/.git") {
		t.Errorf("embedded %d deep: read-only %v, asks %q", maxRepoDepth, a.ReadOnly, a.Asks)
	}
	env := w.env()
	env.Dir = dirs[1] // one level less below here
	if a := AnalyzeIn("git status", env); !a.ReadOnly || len(a.Asks) > 0 {
		t.Errorf("embedded %d deep: read-only %v, asks %q", maxRepoDepth-1, a.ReadOnly, a.Asks)
	}

	// A git dir below maxRepoDepth-1 directories of a name with slashes is as deep.
	w = newScanWorld(t)
	d := w.ws + "/.git/modules"
	for range maxRepoDepth - 1 {
		d += "/s"
	}
	writeScan(t, d+"/HEAD", "ref: refs/heads/main\n")
	if a := AnalyzeIn("git status", w.env()); !a.ReadOnly || len(a.Asks) > 0 {
		t.Errorf("a name of %d parts: read-only %v, asks %q", maxRepoDepth-1, a.ReadOnly, a.Asks)
	}
	writeScan(t, d+"/s/HEAD", "ref: refs/heads/main\n")
	if err := os.Remove(d + "/HEAD"); err != nil {
		t.Fatal(err)
	}
	if a := AnalyzeIn("git status", w.env()); a.ReadOnly || len(a.Asks) == 0 || !strings.Contains(a.Asks[0], "Submodules nest deeper than riot reads") {
		t.Errorf("a name of %d parts: read-only %v, asks %q", maxRepoDepth, a.ReadOnly, a.Asks)
	}

	// The user's config including a chain of maxIncludes files from the workspace, the last one running a
	// program: it is read to the end. One more include asks.
	w = newScanWorld(t)
	writeScan(t, w.home+"/.gitconfig", "[include]\n\tpath = "+w.ws+"/i1.cfg\n")
	for i := 1; i < maxIncludes; i++ {
		writeScan(t, fmt.Sprintf("%s/i%d.cfg", w.ws, i), fmt.Sprintf("[include]\n\tpath = i%d.cfg\n", i+1))
	}
	last := fmt.Sprintf("%s/i%d.cfg", w.ws, maxIncludes)
	writeScan(t, last, "[alias]\n\tx = !touch pwned\n")
	want := "The git config file " + last + " sets alias.x"
	if a := AnalyzeIn("git status", w.env()); a.ReadOnly || len(a.Asks) == 0 || !strings.Contains(a.Asks[0], want) {
		t.Errorf("%d includes: read-only %v, asks %q, want %q", maxIncludes, a.ReadOnly, a.Asks, want)
	}
	writeScan(t, last, "[include]\n\tpath = one-more.cfg\n")
	if a := AnalyzeIn("git status", w.env()); a.ReadOnly || len(a.Asks) == 0 || !strings.Contains(a.Asks[0], "The user's git config includes more files than riot reads") {
		t.Errorf("%d includes: read-only %v, asks %q", maxIncludes+1, a.ReadOnly, a.Asks)
	}
}
