package bash

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// envTree is the setup of issue 11: a workspace ws (a git repository below the repository's root, repo), the
// symlinks lnk -> out/sub and olnk -> out, a denied secret.txt, and an outside directory out.
type envTree struct {
	root, repo, ws, out string
}

func newEnvTree(t testing.TB) envTree {
	t.Helper()
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	tr := envTree{root: root, repo: root + "/repo", ws: root + "/repo/ws", out: root + "/out"}
	files := map[string]string{
		"repo/topsecret.txt":   "top\n",
		"repo/ws/a.txt":        "a\n",
		"repo/ws/b.txt":        "b\n",
		"repo/ws/secret.txt":   "SECRET\n",
		"repo/ws/d/x":          "x\n",
		"repo/ws/d/.hidden":    "h\n",
		"repo/ws/d/e/deep.go":  "package e\n",
		"out/osecret.txt":      "OSECRET\n",
		"home/.bashrc":         "# rc\n",
		"repo/ws/.gif/hooks/h": "h\n",
		"out/sub/x":            "sub\n",
	}
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"repo/ws/lnk": tr.out + "/sub", "repo/ws/olnk": tr.out} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	return tr
}

// git runs git in dir, for building fixtures.
func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.email=t@example.com", "-c", "user.name=t", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func (tr envTree) env() Env {
	return Env{
		Dir: tr.ws, Home: tr.root + "/home", Roots: []string{tr.ws},
		Denied: func(abs string) bool {
			if real, err := filepath.EvalSymlinks(abs); err == nil {
				abs = real
			}
			return filepath.Base(abs) == "secret.txt"
		},
		DeniedName: func(abs string) bool { return filepath.Base(abs) == "secret.txt" },
	}
}

// expand replaces $WS, $OUT, $REPO and $HOME in s.
func (tr envTree) expand(s string) string {
	return strings.NewReplacer("$WS", tr.ws, "$OUT", tr.out, "$REPO", tr.repo, "$HOME", tr.root+"/home").Replace(s)
}

type envCase struct {
	cmd    string
	ro     bool
	why    string
	reads  []string // every one must be among ReadPaths
	writes []string // every one must be among WritePaths
	noRead []string // none may be among ReadPaths
	cmds   []string // every one must be among Commands
	ask    string   // a substring of the first Ask reason; "" means no Ask
	denied []string // Denied, exactly
	opaque bool
}

// envTable is issue 11's holes, by class, as the analysis in the session's world sees them, and its false alarms.
var envTable = []envCase{
	// 1. Brace expansion.
	{cmd: "cat {,/}etc/hostname", ro: true, why: "every alternative is a path", reads: []string{"$WS/etc/hostname", "/etc/hostname"}},
	{cmd: "cat {secret,a}.txt", ro: true, why: "the denied file is one alternative", reads: []string{"$WS/secret.txt", "$WS/a.txt"}},
	{cmd: "cat {'secret',a}.txt", ro: true, why: "quoted alternatives expand too", reads: []string{"$WS/secret.txt"}},
	{cmd: "cat \\{secret,a}.txt", ro: true, why: "an escaped brace does not expand", reads: []string{"$WS/{secret,a}.txt"}, noRead: []string{"$WS/secret.txt"}},
	{cmd: "cat x{1..3}", ro: true, why: "a sequence", reads: []string{"$WS/x1", "$WS/x2", "$WS/x3"}},
	{cmd: "{cat,secret.txt}", ro: true, why: "braces in command position give cat secret.txt", cmds: []string{"cat secret.txt"}, reads: []string{"$WS/secret.txt"}},
	{cmd: "cat {1..100000}", ro: true, why: "past the bound", ask: "too many words", opaque: true},
	{cmd: "cat < {secret,a}.txt", ro: true, why: "a redirection's braces", reads: []string{"$WS/secret.txt", "$WS/a.txt"}},
	// 2. Options that read a list of files.
	{cmd: "printf 'secret.txt\\0' | sort --files0-from=-", ro: true, why: "a list on stdin", ask: "`sort --files0-from` reads the names"},
	{cmd: "wc --files0-from=list.txt", ro: true, why: "a list in a file", reads: []string{"$WS/list.txt"}, ask: "`wc --files0-from` reads the names"},
	{cmd: "du --files0-from list.txt", ro: true, why: "du too, without reading .", ask: "`du --files0-from` reads the names"},
	{cmd: "find -files0-from list.txt", ro: true, why: "find too", ask: "`find -files0-from` reads its starting points"},
	{cmd: "file -f list.txt", ro: true, why: "file -f", ask: "`file -f` reads the names"},
	{cmd: "sha256sum -c sums.txt", ro: true, why: "sha256sum -c reads the files its list names", ask: "`sha256sum -c` reads the names"},
	{cmd: "md5sum --check sums.txt", ro: true, why: "md5sum --check", ask: "`md5sum --check` reads the names"},
	{cmd: "md5sum a.txt", ro: true, why: "without -c, a file to sum", reads: []string{"$WS/a.txt"}},
	{cmd: "wc --files0-from", ro: true, why: "the list option without its value only fails"},
	{cmd: "tar -T list.txt -cf x.tar", why: "tar -T", ask: "`tar -T` reads the names"},
	{cmd: "tar -cT list.txt -f x.tar", why: "tar -T in a cluster", ask: "`tar -T` reads the names"},
	{cmd: "tar --files-from=list.txt -cf x.tar", why: "tar --files-from", ask: "`tar --files-from` reads the names"},
	{cmd: "xargs -a list.txt cat", why: "xargs -a", ask: "`xargs -a` reads the names"},
	{cmd: "grep -f pats.txt a.txt", ro: true, why: "a pattern file is a read path", reads: []string{"$WS/pats.txt", "$WS/a.txt"}},
	{cmd: "diff --from-file=secret.txt a.txt", ro: true, why: "--from-file names a file", reads: []string{"$WS/secret.txt"}},
	{cmd: "sed -n -f script.sed a.txt", why: "sed -f", reads: []string{"$WS/script.sed"}},
	// 3. -- hides operands.
	{cmd: "find -- $OUT -maxdepth 1", ro: true, why: "after --, a starting point", reads: []string{"$OUT"}},
	{cmd: "find -L -- $OUT", ro: true, why: "after global options and --", reads: []string{"$OUT"}},
	{cmd: "cat -- secret.txt", ro: true, why: "after --", reads: []string{"$WS/secret.txt"}},
	// 4. .. after a symlink stays for the core to resolve.
	{cmd: "cat lnk/../osecret.txt", ro: true, why: "not cleaned", reads: []string{"$WS/lnk/../osecret.txt"}, noRead: []string{"$WS/osecret.txt"}},
	{cmd: "cat a/../../x", ro: true, why: "not cleaned", reads: []string{"$WS/a/../../x"}},
	// 5. Globs.
	{cmd: "cat secre*", ro: true, why: "the glob's match", reads: []string{"$WS/secret.txt"}},
	{cmd: "head -100 *", ro: true, why: "every match", reads: []string{"$WS/secret.txt", "$WS/a.txt", "$WS/d", "$WS/lnk", "$WS/olnk"}},
	{cmd: "cat d/*", ro: true, why: "no hidden files, as bash", reads: []string{"$WS/d/x"}, noRead: []string{"$WS/d/.hidden"}},
	{cmd: "cat d/.*", ro: true, why: "a leading dot matches them", reads: []string{"$WS/d/.hidden"}},
	{cmd: "cat d/**/*.go", ro: true, why: "** is * without globstar", reads: []string{"$WS/d/e/deep.go"}},
	{cmd: "cat *.none", ro: true, why: "no match: the pattern as written", reads: []string{"$WS/*.none"}},
	{cmd: "cat '*'.txt", ro: true, why: "a quoted star is no glob", reads: []string{"$WS/*.txt"}, noRead: []string{"$WS/a.txt"}},
	{cmd: "echo $OUT/*", ro: true, why: "the listing of an outside directory is a read", reads: []string{"$OUT"}},
	{cmd: "cp d/x .gi?/hooks/", why: "the command subject has the glob expanded", cmds: []string{"cp d/x .gif/hooks/"}},
	{cmd: "cp d/x ~/.bash?c", why: "tilde and glob", cmds: []string{"cp d/x $HOME/.bashrc"}},
	{cmd: "cat olnk/*", ro: true, why: "a glob through a symlink out", reads: []string{"$WS/olnk/osecret.txt"}},
	{cmd: "cat lnk/../*", ro: true, why: "a glob after lnk/.. (mvdan.cc/sh would clean it)", ask: "has `..` in it", opaque: true},
	{cmd: "for f in *.txt; do wc -l \"$f\"; done", ro: true, why: "the loop's values are the matches (false alarm)", reads: []string{"$WS/a.txt", "$WS/secret.txt"}},
	{cmd: "for f in a b; do cat \"$f.txt\"; done", ro: true, why: "a loop variable inside a word", reads: []string{"$WS/a.txt", "$WS/b.txt"}},
	{cmd: "for f in 'a b'; do cat $f; done", ro: true, why: "an unquoted value that splits is unknown", opaque: true},
	// 6. Recursive reads.
	{cmd: "grep -r SECRET .", ro: true, why: "the walk finds the denied file", denied: []string{"$WS/secret.txt"}},
	{cmd: "rg SECRET", ro: true, why: "rg walks the directory", denied: []string{"$WS/secret.txt"}},
	{cmd: "diff -r d .", ro: true, why: "diff -r follows symlinks", ask: "leads out of the workspace", denied: []string{"$WS/secret.txt"}},
	{cmd: "grep -rl x d", ro: true, why: "a subtree without the denied file"},
	{cmd: "grep -R x d", ro: true, why: "following symlinks in a subtree without one"},
	{cmd: "grep -R SECRET d lnk", ro: true, why: "a symlink operand is a read path the fence resolves", reads: []string{"$WS/lnk"}},
	{cmd: "find -L d -name x", ro: true, why: "find -L in a subtree without symlinks"},
	{cmd: "find -L . -name x", ro: true, why: "find -L follows olnk out", ask: "leads out of the workspace", denied: []string{"$WS/secret.txt"}},
	{cmd: "rg -L x d olnk", ro: true, why: "rg -L: olnk is an operand (a read path)", reads: []string{"$WS/olnk"}},
	{cmd: "ls -R", ro: true, why: "ls -R", denied: []string{"$WS/secret.txt"}},
	{cmd: "du -sh d", ro: true, why: "du in a subtree"},
	{cmd: "wc -l $(git ls-files)", ro: true, why: "the tracked names below here are checked (false alarm)", denied: []string{"$WS/secret.txt"}, ask: "is a symlink out of the workspace"},
	{cmd: "cat $(git ls-files --format=/etc/passwd)", ro: true, why: "--format prints any text", opaque: true},
	// Copies and archives off the allow-list read trees too.
	{cmd: "cp -r . ../backup", why: "cp -r reads the tree", denied: []string{"$WS/secret.txt"}},
	{cmd: "cp -r d/e backup", why: "a subtree without the denied file"},
	{cmd: "cp d/x backup", why: "not recursive"},
	{cmd: "tar czf x.tgz .", why: "tar c", denied: []string{"$WS/secret.txt"}},
	{cmd: "tar xzf x.tgz", why: "tar x reads no tree"},
	{cmd: "tar -ch -f /tmp/x.tar d/e olnk", why: "tar -h follows olnk's contents", ask: "leads out of the workspace"},
	{cmd: "tar -C d -cf x.tar e", why: "tar -C moves the operands", ask: "`tar -C` reads its operands from another directory"},
	{cmd: "cp -rL olnk ../b", why: "cp -L follows a symlink operand out", ask: "leads out of the workspace"},
	{cmd: "cp -r olnk ../b", why: "cp -r copies a symlink operand as a link"},
	{cmd: "zip -r x.zip d/e", why: "zip -r without the denied file"},
	{cmd: "rsync -a . ../b", why: "rsync -a", denied: []string{"$WS/secret.txt"}},
	{cmd: "cp -r", why: "no operands"},
	{cmd: "tar -Tlist.txt -cf x.tar", why: "an attached list option", ask: "`tar -T` reads the names"},
	{cmd: "tar --directory=d -cf x.tar e", why: "tar --directory", ask: "`tar --directory` reads its operands"},
	{cmd: "zip -r x.zip .", why: "zip follows symlinks", ask: "leads out of the workspace", denied: []string{"$WS/secret.txt"}},
	{cmd: "zip -ry x.zip .", why: "zip -y does not", denied: []string{"$WS/secret.txt"}},
	{cmd: "find -L -P . -name x", ro: true, why: "-P after -L: no following", denied: []string{"$WS/secret.txt"}},
	{cmd: "find . -follow -name x", ro: true, why: "-follow follows", ask: "leads out of the workspace", denied: []string{"$WS/secret.txt"}},
	{cmd: "# nothing", why: "nothing to run"},
	{cmd: "echo {$x,b}", ro: true, why: "an alternative that is an expansion keeps the source", cmds: []string{"echo {$x,b} b"}},
	{cmd: "cat a.txt/*", ro: true, why: "a glob through a file matches nothing", reads: []string{"$WS/a.txt/*"}},
	{cmd: "cat d*/e/*.go", ro: true, why: "each directory a glob lists", reads: []string{"$WS", "$WS/d/e", "$WS/d/e/deep.go"}},
	// cd.
	{cmd: "cd d && cat x", ro: true, why: "paths after cd resolve there (false alarm)", reads: []string{"$WS/d", "$WS/d/x"}},
	{cmd: "cd d; cd e; cat deep.go", ro: true, why: "cd after cd", reads: []string{"$WS/d/e/deep.go"}},
	{cmd: "cd $OUT && ls", ro: true, why: "a cd out is a read the fence judges", reads: []string{"$OUT"}},
	{cmd: "true || cd d; cat x", ro: true, why: "a cd that may not run: both directories", reads: []string{"$WS/x", "$WS/d/x"}},
	{cmd: "(cd d); cat x", ro: true, why: "a cd in a subshell does not last", reads: []string{"$WS/x"}, noRead: []string{"$WS/d/x"}},
	{cmd: "cd d | cat x", ro: true, why: "a cd in a pipeline does not last", reads: []string{"$WS/x"}},
	{cmd: "cd \"$D\"; cat x", ro: true, why: "an unknown cd makes what follows opaque", opaque: true},
	{cmd: "f() { cd /; }; f; cat x", why: "a function may cd", opaque: true},
	{cmd: "cd; cat x", ro: true, why: "cd alone goes home", reads: []string{"$HOME", "$HOME/x"}},
	// 9. Options that write.
	{cmd: "sort -T $OUT a.txt", why: "sort -T writes there", writes: []string{"$OUT"}},
	// 13. /proc/self is kept as written, for the core to call outside.
	{cmd: "cat /proc/self/cwd/osecret.txt", ro: true, why: "as written", reads: []string{"/proc/self/cwd/osecret.txt"}},
	// False alarms.
	{cmd: "uname -a", ro: true, why: "uname"},
	{cmd: "printenv", ro: true, why: "printenv"},
	{cmd: "readlink lnk", ro: true, why: "readlink", reads: []string{"$WS/lnk"}},
	{cmd: "sha256sum a.txt && md5sum a.txt", ro: true, why: "checksums", reads: []string{"$WS/a.txt"}},
	{cmd: "seq 1 10", ro: true, why: "seq"},
	{cmd: "cat /dev/null", ro: true, why: "/dev/null is read like any path; subjects drop it", reads: []string{"/dev/null"}},
	{cmd: "echo $((1+1))", ro: true, why: "constant arithmetic"},
}

func TestAnalyzeInTable(t *testing.T) {
	tr := newEnvTree(t)
	gitIn(t, tr.repo, "init", "-q")
	gitIn(t, tr.repo, "add", "-A")
	for _, c := range envTable {
		t.Run(c.cmd, func(t *testing.T) {
			a := AnalyzeIn(tr.expand(c.cmd), tr.env())
			checkEnvCase(t, tr, c, a)
		})
	}
}

func checkEnvCase(t *testing.T, tr envTree, c envCase, a Analysis) {
	t.Helper()
	if a.ReadOnly != c.ro {
		t.Errorf("ReadOnly = %v, want %v: %s", a.ReadOnly, c.ro, c.why)
	}
	for _, r := range c.reads {
		if !slices.Contains(a.ReadPaths, tr.expand(r)) {
			t.Errorf("ReadPaths %q lack %q: %s", a.ReadPaths, tr.expand(r), c.why)
		}
	}
	for _, r := range c.noRead {
		if slices.Contains(a.ReadPaths, tr.expand(r)) {
			t.Errorf("ReadPaths %q hold %q: %s", a.ReadPaths, tr.expand(r), c.why)
		}
	}
	for _, r := range c.writes {
		if !slices.Contains(a.WritePaths, tr.expand(r)) {
			t.Errorf("WritePaths %q lack %q: %s", a.WritePaths, tr.expand(r), c.why)
		}
	}
	for _, cm := range c.cmds {
		if !slices.Contains(a.Commands, tr.expand(cm)) {
			t.Errorf("Commands %q lack %q: %s", a.Commands, tr.expand(cm), c.why)
		}
	}
	switch {
	case c.ask == "" && len(a.Asks) > 0:
		t.Errorf("asks %q: %s", a.Asks, c.why)
	case c.ask != "" && (len(a.Asks) == 0 || !strings.Contains(a.Asks[0], c.ask)):
		t.Errorf("Asks = %q, want one with %q: %s", a.Asks, c.ask, c.why)
	}
	var denied []string
	for _, d := range c.denied {
		denied = append(denied, tr.expand(d))
	}
	if !slices.Equal(a.Denied, denied) {
		t.Errorf("Denied = %q, want %q: %s", a.Denied, denied, c.why)
	}
	for _, d := range denied {
		if !slices.Contains(a.ReadPaths, d) {
			t.Errorf("a denied file is a read path too: %q", a.ReadPaths)
		}
	}
	if a.Opaque != c.opaque {
		t.Errorf("Opaque = %v, want %v: %s", a.Opaque, c.opaque, c.why)
	}
	for _, p := range append(append([]string(nil), a.ReadPaths...), a.WritePaths...) {
		if !filepath.IsAbs(p) {
			t.Errorf("a path is not absolute: %q", p)
		}
	}
}

// TestAnalyzeInGit is classes 7, 8 and 14 of issue 11: the repository is found and judged before a git command
// is called read-only.
func TestAnalyzeInGit(t *testing.T) {
	write := func(t *testing.T, path, body string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A workspace that is its repository, tracking the denied file.
	own := func(t *testing.T, indexVersion string) envTree {
		tr := newEnvTree(t)
		tr.ws = tr.repo // the roots are the whole repository
		gitIn(t, tr.repo, "init", "-q")
		gitIn(t, tr.repo, "add", "ws/a.txt", "ws/secret.txt", "topsecret.txt")
		gitIn(t, tr.repo, "update-index", "--index-version", indexVersion)
		gitIn(t, tr.repo, "commit", "-qm", "x")
		return tr
	}
	tests := []struct {
		name  string
		setup func(t *testing.T) envTree
		envCase
	}{
		{"rev:path is from the top level", func(t *testing.T) envTree {
			tr := newEnvTree(t)
			gitIn(t, tr.repo, "init", "-q")
			return tr
		}, envCase{cmd: "git show HEAD:topsecret.txt", ro: true, why: "class 7", reads: []string{"$REPO/topsecret.txt"}, ask: "is not inside the workspace"}},
		{"history of a repository whose top level is outside", func(t *testing.T) envTree {
			tr := newEnvTree(t)
			gitIn(t, tr.repo, "init", "-q")
			return tr
		}, envCase{cmd: "git log -p", ro: true, why: "class 7", ask: "is not inside the workspace"}},
		{"status below the top level is fine", func(t *testing.T) envTree {
			tr := newEnvTree(t)
			gitIn(t, tr.repo, "init", "-q")
			return tr
		}, envCase{cmd: "git status", ro: true, why: "names only"}},
		{"log -p in a repository tracking a denied file", func(t *testing.T) envTree { return own(t, "2") },
			envCase{cmd: "git log -p", ro: true, why: "class 7", ask: "tracks $REPO/ws/secret.txt"}},
		{"git show, index version 4", func(t *testing.T) envTree { return own(t, "4") },
			envCase{cmd: "git show HEAD", ro: true, why: "class 7", ask: "tracks $REPO/ws/secret.txt"}},
		{"git diff, index version 3", func(t *testing.T) envTree { return own(t, "3") },
			envCase{cmd: "git diff", ro: true, why: "diff prints tracked contents", ask: "tracks $REPO/ws/secret.txt"}},
		{"log without a patch", func(t *testing.T) envTree { return own(t, "2") },
			envCase{cmd: "git log --oneline -3", ro: true, why: "messages only"}},
		{"reflog without a patch", func(t *testing.T) envTree { return own(t, "2") },
			envCase{cmd: "git reflog -5", ro: true, why: "messages only"}},
		{"reflog with a patch", func(t *testing.T) envTree { return own(t, "2") },
			envCase{cmd: "git reflog -p -1", ro: true, why: "reflog is log -g", ask: "tracks $REPO/ws/secret.txt"}},
		{"a stash's patch", func(t *testing.T) envTree { return own(t, "2") },
			envCase{cmd: "git stash show -p", ro: true, why: "stash show prints history", ask: "tracks $REPO/ws/secret.txt"}},
		{"read-only git commands (false alarms)", func(t *testing.T) envTree { return own(t, "2") },
			envCase{cmd: "git remote -v && git tag -l && git describe --always && git stash list && git rev-list HEAD && git ls-files && git blame ws/a.txt && git shortlog -s HEAD", ro: true, why: "all read-only", reads: []string{"$REPO/ws/a.txt"}}},
		{"core.fsmonitor runs a program", func(t *testing.T) envTree {
			tr := own(t, "2")
			gitIn(t, tr.repo, "config", "core.fsmonitor", "touch pwned")
			return tr
		}, envCase{cmd: "git status", why: "class 8", ask: "sets core.fsmonitor"}},
		{"a program in an included config", func(t *testing.T) envTree {
			tr := own(t, "2")
			write(t, tr.repo+"/.git/extra.cfg", "[diff \"x\"]\n\ttextconv = cat\n")
			gitIn(t, tr.repo, "config", "include.path", "extra.cfg")
			return tr
		}, envCase{cmd: "git log --oneline", why: "class 8, through include.path", ask: "sets diff.x.textconv"}},
		{"a ! alias", func(t *testing.T) envTree {
			tr := own(t, "2")
			gitIn(t, tr.repo, "config", "alias.st", "!touch pwned")
			return tr
		}, envCase{cmd: "git status", why: "class 8", ask: "sets alias.st"}},
		{"git stash pushes", func(t *testing.T) envTree { return own(t, "2") },
			envCase{cmd: "git stash", why: "stash alone is push"}},
		{"git config writes .git/config", func(t *testing.T) envTree { return own(t, "2") },
			envCase{cmd: "git config core.pager 'touch x'", why: "class 8", writes: []string{"$REPO/.git/config"}}},
		{"git config below the top level writes the repository's config", func(t *testing.T) envTree {
			tr := newEnvTree(t)
			gitIn(t, tr.repo, "init", "-q")
			return tr
		}, envCase{cmd: "git config user.name x", why: "class 8", writes: []string{"$REPO/.git/config"}}},
		{"a .git file pointing outside", func(t *testing.T) envTree {
			tr := newEnvTree(t)
			gitIn(t, tr.out, "init", "-q", "--bare", "repo.git")
			write(t, tr.ws+"/.git", "gitdir: "+tr.out+"/repo.git\n")
			return tr
		}, envCase{cmd: "git ls-files", ro: true, why: "class 14", ask: "is outside the workspace"}},
		{"a linked worktree of an outside repository", func(t *testing.T) envTree {
			tr := newEnvTree(t)
			gitIn(t, tr.out, "init", "-q", "main")
			write(t, tr.out+"/main/f", "f\n")
			gitIn(t, tr.out+"/main", "add", "f")
			gitIn(t, tr.out+"/main", "commit", "-qm", "x")
			if err := os.RemoveAll(tr.ws); err != nil {
				t.Fatal(err)
			}
			gitIn(t, tr.out+"/main", "worktree", "add", "-q", tr.ws)
			return tr
		}, envCase{cmd: "git status", ro: true, why: "class 14", ask: "is outside the workspace"}},
		{"core.worktree outside", func(t *testing.T) envTree {
			tr := own(t, "2")
			gitIn(t, tr.repo, "config", "core.worktree", tr.out)
			return tr
		}, envCase{cmd: "git log -p", ro: true, why: "class 14", ask: "is not inside the workspace"}},
	}
	t.Run("GIT_DIR in the environment", func(t *testing.T) {
		tr := own(t, "2")
		env := tr.env()
		env.GitEnv = "GIT_DIR"
		checkEnvCase(t, tr, envCase{cmd: "git status", ro: true, why: "git would use another repository", ask: "GIT_DIR is set in the environment"}, AnalyzeIn("git status", env))
	})
	// The index is read up to 64 entries a unit of the walk's bound: three entries within a bound of 3.
	t.Run("the index within the bound", func(t *testing.T) {
		tr := own(t, "2")
		env := tr.env()
		env.Limit = 3
		checkEnvCase(t, tr, envCase{cmd: "git log -p", ro: true, why: "class 7", ask: tr.expand("tracks $REPO/ws/secret.txt")}, AnalyzeIn("git log -p", env))
	})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := tt.setup(t)
			c := tt.envCase
			c.ask = tr.expand(c.ask)
			checkEnvCase(t, tr, c, AnalyzeIn(tr.expand(c.cmd), tr.env()))
		})
	}
}

// TestAnalyzeInBounds: each bound holds at its value and asks (or forgets) just past it.
func TestAnalyzeInBounds(t *testing.T) {
	tr := newEnvTree(t)
	env := tr.env()
	env.Limit = 3
	if a := AnalyzeIn("cat a b", env); len(a.Asks) > 0 || a.Opaque {
		t.Errorf("three words are within a limit of 3: %+v", a)
	}
	if a := AnalyzeIn("cat a b c", env); len(a.Asks) == 0 || !strings.Contains(a.Asks[0], "more words than riot checks") || !a.Opaque {
		t.Errorf("four words are past a limit of 3: %+v", a)
	}
	if a := AnalyzeIn("{a,b,c}", env); len(a.Asks) > 0 {
		t.Errorf("three alternatives are within the limit: %+v", a)
	}
	if a := AnalyzeIn("echo {a,b,c,d}", env); len(a.Asks) == 0 || !strings.Contains(a.Asks[0], "too many words") {
		t.Errorf("four alternatives are past the limit: %+v", a)
	}
	env.Limit = 4
	if a := AnalyzeIn("cat {1..9} {1..9}", env); len(a.Asks) != 1 {
		t.Errorf("one reason is given once: %q", a.Asks)
	}
	env.Limit = 6 // d holds x, e and .hidden, and the glob reads it twice (d exists, then d/*)
	if a := AnalyzeIn("cat d/*", env); len(a.Asks) > 0 {
		t.Errorf("6 entries read are within a limit of 6: %q", a.Asks)
	}
	env.Limit = 5
	if a := AnalyzeIn("cat d/*", env); len(a.Asks) == 0 || !strings.Contains(a.Asks[0], "matches more files than riot checks") {
		t.Errorf("6 entries read are past a limit of 5: %q", a.Asks)
	}
	env = tr.env()
	// Outside a repository, git config writes the .git/config it would create here.
	if a := AnalyzeIn("git config a.b c", env); !slices.Contains(a.WritePaths, tr.ws+"/.git/config") {
		t.Errorf("git config outside a repository: %+v", a)
	}
	// With $CDPATH, a relative cd may land elsewhere; ./, .., absolute and ~ do not search it.
	env.CDPath = tr.out
	for cmd, known := range map[string]bool{
		"cd d; cat x": false, "cd ./d; cat x": true, "cd ..; cat x": true, "cd " + tr.ws + "/d; cat x": true,
		"cd .; cat x": true, "cd ~; cat x": true,
	} {
		if a := AnalyzeIn(cmd, env); a.Opaque == known {
			t.Errorf("%s with $CDPATH: opaque %v", cmd, a.Opaque)
		}
	}
	env = tr.env()
	values := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, " v%d", i)
		}
		return b.String()
	}
	a := AnalyzeIn("for f in"+values(maxLoopValues)+"; do cat \"$f\"; done", env)
	if a.Opaque || !slices.Contains(a.ReadPaths, tr.ws+fmt.Sprintf("/v%d", maxLoopValues-1)) {
		t.Errorf("a loop of %d values is walked per value: %+v", maxLoopValues, a.ReadPaths)
	}
	if a := AnalyzeIn("for f in"+values(maxLoopValues+1)+"; do cat \"$f\"; done", env); !a.Opaque {
		t.Errorf("a loop past %d values is walked once, its variable unknown", maxLoopValues)
	}
	// Each `true || cd dN` adds a directory the command may be in.
	cds := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "true || cd %s/d%d; ", tr.ws, i)
		}
		return b.String() + "cat x"
	}
	if a := AnalyzeIn(cds(maxDirs-1), env); a.Opaque || !slices.Contains(a.ReadPaths, tr.ws+"/d0/x") || !slices.Contains(a.ReadPaths, tr.ws+"/x") {
		t.Errorf("%d possible directories are tracked: %+v", maxDirs, a)
	}
	if a := AnalyzeIn(cds(maxDirs), env); !a.Opaque {
		t.Errorf("past %d possible directories, none is known: %+v", maxDirs, a)
	}
}
