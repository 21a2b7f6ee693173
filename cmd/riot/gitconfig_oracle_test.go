package main_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Issue 29, class 7: git runs programs named in every config it reads for a command (a submodule's, an
// embedded repository's, config.worktree, an include), not only the top repository's, and the hook it runs when
// it refreshes the index, in each of them. The oracle does not
// trust the analysis: each source points a setting at a marker script, real git run directly shows that the
// source is live (the marker appears), and the same commands sent through the real riot in default mode, with
// the sandbox off so that only the analysis stands between them and the script, leave no marker. riot explain
// shows the decision and a reason naming the file and the key.

// gitOracleCommands are the read-only git commands of the class.
var gitOracleCommands = []string{"git status", "git diff", "git log -p", "git show", "git log -c -1"}

// gitOracle is one workspace repository with a marker script outside it.
type gitOracle struct {
	e      *env
	ws     string
	script string // a program that records that it ran, in marker
	marker string
	// dirty are the files changed in the work trees; stale gives them a new mtime before each run, so that
	// each run finds the index out of date and refreshes it, as the first one did.
	dirty []string
	stamp int
}

// stale gives each dirty file an mtime no run has seen yet.
func (o *gitOracle) stale(t *testing.T) {
	t.Helper()
	o.stamp++
	when := time.Date(2020, 1, 1, 0, 0, o.stamp, 0, time.UTC)
	for _, f := range o.dirty {
		if err := os.Chtimes(f, when, when); err != nil {
			t.Fatal(err)
		}
	}
}

func newGitOracle(t *testing.T) *gitOracle {
	e := newEnv(t)
	e.sandboxOff()
	ws, err := filepath.EvalSymlinks(e.ws)
	if err != nil {
		t.Fatal(err)
	}
	o := &gitOracle{e: e, ws: ws, script: filepath.Join(e.home, "mark.sh"), marker: filepath.Join(e.home, "ran")}
	if err := os.WriteFile(o.script, []byte("#!/bin/sh\necho ran >> "+o.marker+"\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.write("a.txt", "a\n")
	e.write(".gitattributes", "*.txt diff=x\n")
	o.git(t, ws, "init", "-q")
	o.git(t, ws, "add", ".")
	o.git(t, ws, "commit", "-qm", "init")
	return o
}

// git runs git in dir as the user would, with the test's home (its global config).
func (o *gitOracle) git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.email=t@example.com", "-c", "user.name=t",
		"-c", "init.defaultBranch=main", "-c", "protocol.file.allow=always"}, args...)...)
	cmd.Dir, cmd.Env = dir, o.e.environ()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v in %s: %v\n%s", args, dir, err, out)
	}
	return string(out)
}

// repo makes a repository at dir with a committed f.txt.
func (o *gitOracle) repo(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte("f\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o.git(t, dir, "init", "-q")
	o.git(t, dir, "add", ".")
	o.git(t, dir, "commit", "-qm", "f")
}

// change changes a tracked file in dir, so that status and diff have something to look at.
func (o *gitOracle) change(t *testing.T, dir, name string) {
	t.Helper()
	o.dirty = append(o.dirty, filepath.Join(dir, name))
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString("changed\n"); err != nil {
		t.Fatal(err)
	}
}

// restat makes a tracked file of dir stat-dirty on every run (stale) but
// leaves its content: git's refresh then updates its index entry and writes
// the index, which is what runs post-index-change. A modified file alone
// does not: refresh leaves a changed entry as it is, and whether git writes
// the index then depends on the racy-git timing.
func (o *gitOracle) restat(dir, name string) {
	o.dirty = append(o.dirty, filepath.Join(dir, name))
}

// ran reports whether the marker script ran, and clears the record.
func (o *gitOracle) ran(t *testing.T) bool {
	t.Helper()
	_, err := os.Stat(o.marker)
	if err == nil {
		if err := os.Remove(o.marker); err != nil {
			t.Fatal(err)
		}
		return true
	}
	if !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return false
}

// direct runs a command with bash in the workspace, outside riot, and reports whether the script ran.
func (o *gitOracle) direct(t *testing.T, command string) bool {
	t.Helper()
	o.stale(t)
	cmd := exec.Command("bash", "-c", command)
	cmd.Dir, cmd.Env = o.ws, o.e.environ()
	_ = cmd.Run() // the script fails on purpose; whether it ran is the point
	return o.ran(t)
}

// turn sends the commands to riot as one turn with flags, and returns each result's text.
func (o *gitOracle) turn(t *testing.T, commands []string, flags ...string) []string {
	t.Helper()
	o.stale(t)
	var uses []string
	for i, c := range commands {
		in, _ := json.Marshal(map[string]any{"type": "tool_use", "id": fmt.Sprintf("g%d", i), "name": "Bash",
			"input": map[string]string{"command": c + "\ntrue"}})
		uses = append(uses, string(in))
	}
	cmd := o.e.command("["+strings.Join(uses, ",")+"]", append([]string{"run"}, flags...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("riot run: %v\n%s\n%s", err, out, stderr.String())
	}
	var results []struct {
		Content string `json:"content"`
	}
	if err := json.Unmarshal(out, &results); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var texts []string
	for _, r := range results {
		texts = append(texts, r.Content)
	}
	return texts
}

// TestPermBashGitConfigSourcesOracle: for each config source git reads besides the top repository's, a
// program there runs when git runs directly and through riot in bypassPermissions, but riot in default mode
// calls none of the commands read-only (explain names the file and the key) and runs nothing.
func TestPermBashGitConfigSourcesOracle(t *testing.T) {
	for _, c := range []struct {
		name string // short: the socket paths below t.TempDir() are bounded
		// setup plants the setting and returns the file that holds it, the key ("" for a hook), and the
		// directory the commands run in (relative to the workspace).
		setup func(t *testing.T, o *gitOracle) (file, key, cd string)
	}{
		{"submodule", func(t *testing.T, o *gitOracle) (string, string, string) {
			o.repo(t, filepath.Join(o.e.home, "inner"))
			o.git(t, o.ws, "submodule", "add", "-q", filepath.Join(o.e.home, "inner"), "sub")
			o.git(t, o.ws, "commit", "-qm", "sub")
			o.git(t, o.ws, "config", "-f", ".git/modules/sub/config", "core.fsmonitor", o.script)
			o.change(t, o.ws+"/sub", "f.txt")
			return o.ws + "/.git/modules/sub/config", "core.fsmonitor", ""
		}},
		{"nested submodule", func(t *testing.T, o *gitOracle) (string, string, string) {
			deep, inner := filepath.Join(o.e.home, "deep"), filepath.Join(o.e.home, "inner")
			o.repo(t, deep)
			o.repo(t, inner)
			o.git(t, inner, "submodule", "add", "-q", deep, "deep")
			o.git(t, inner, "commit", "-qm", "deep")
			o.git(t, o.ws, "submodule", "add", "-q", inner, "sub")
			o.git(t, o.ws, "submodule", "update", "-q", "--init", "--recursive")
			o.git(t, o.ws, "commit", "-qm", "sub")
			o.git(t, o.ws, "config", "-f", ".git/modules/sub/modules/deep/config", "core.fsmonitor", o.script)
			o.change(t, o.ws+"/sub/deep", "f.txt")
			return o.ws + "/.git/modules/sub/modules/deep/config", "core.fsmonitor", ""
		}},
		{"embedded repo", func(t *testing.T, o *gitOracle) (string, string, string) {
			o.repo(t, o.ws+"/emb")
			o.git(t, o.ws, "add", "emb")
			o.git(t, o.ws, "commit", "-qm", "emb")
			o.git(t, o.ws+"/emb", "config", "core.fsmonitor", o.script)
			o.change(t, o.ws+"/emb", "f.txt")
			return o.ws + "/emb/.git/config", "core.fsmonitor", ""
		}},
		{"config.worktree", func(t *testing.T, o *gitOracle) (string, string, string) {
			o.git(t, o.ws, "config", "extensions.worktreeConfig", "true")
			o.git(t, o.ws, "config", "--worktree", "diff.external", o.script)
			o.change(t, o.ws, "a.txt")
			return o.ws + "/.git/config.worktree", "diff.external", ""
		}},
		{"include", func(t *testing.T, o *gitOracle) (string, string, string) {
			o.e.write("inc.cfg", "[diff \"x\"]\n\ttextconv = "+o.script+"\n")
			o.git(t, o.ws, "config", "include.path", "../inc.cfg")
			o.change(t, o.ws, "a.txt")
			return o.ws + "/inc.cfg", "diff.x.textconv", ""
		}},
		{"linked worktree", func(t *testing.T, o *gitOracle) (string, string, string) {
			o.git(t, o.ws, "worktree", "add", "-q", o.ws+"/wt")
			o.git(t, o.ws, "config", "extensions.worktreeConfig", "true")
			o.git(t, o.ws+"/wt", "config", "--worktree", "diff.x.textconv", o.script)
			o.change(t, o.ws+"/wt", "a.txt")
			return o.ws + "/.git/worktrees/wt/config.worktree", "diff.x.textconv", "wt"
		}},
		{"index hook", func(t *testing.T, o *gitOracle) (string, string, string) {
			hook := o.ws + "/.git/hooks/post-index-change"
			if err := os.WriteFile(hook, []byte("#!/bin/sh\nexec "+o.script+"\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			o.change(t, o.ws, "a.txt")
			o.restat(o.ws, ".gitattributes")
			return hook, "", ""
		}},
		{"submodule hook", func(t *testing.T, o *gitOracle) (string, string, string) {
			o.repo(t, filepath.Join(o.e.home, "inner"))
			o.git(t, o.ws, "submodule", "add", "-q", filepath.Join(o.e.home, "inner"), "sub")
			o.git(t, o.ws, "commit", "-qm", "sub")
			hook := o.ws + "/.git/modules/sub/hooks/post-index-change"
			if err := os.WriteFile(hook, []byte("#!/bin/sh\nexec "+o.script+"\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			o.restat(o.ws+"/sub", "f.txt")
			return hook, "", ""
		}},
		{"global include", func(t *testing.T, o *gitOracle) (string, string, string) {
			o.e.write("team.cfg", "[core]\n\tfsmonitor = "+o.script+"\n")
			if err := os.WriteFile(filepath.Join(o.e.home, ".gitconfig"), []byte("[include]\n\tpath = "+o.ws+"/team.cfg\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			o.change(t, o.ws, "a.txt")
			return o.ws + "/team.cfg", "core.fsmonitor", ""
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := newGitOracle(t)
			file, key, cd := c.setup(t, o)
			o.ran(t) // what setting up ran is no part of the check
			var commands []string
			live := 0
			for _, g := range gitOracleCommands {
				if cd != "" {
					g = "cd " + cd + " && " + g
				}
				commands = append(commands, g)
				if o.direct(t, g) {
					live++
				}
			}
			// The oracle sees the class: run directly, some of the commands run the program.
			if live == 0 {
				t.Fatalf("no command ran the program when run directly: the fixture is dead")
			}
			// And so does riot where nothing is checked.
			o.turn(t, commands, "--mode", "bypassPermissions")
			if !o.ran(t) {
				t.Fatal("riot in bypassPermissions ran none of the programs: the oracle cannot see the class")
			}
			// (explain's read_only is the verdict on the text alone, which Prepare reports; what the repository
			// holds is the tool's own check, which asks in every mode but bypassPermissions.)
			want := fmt.Sprintf("The git config file %s sets %s, which makes git run a program", file, key)
			mark := key
			if key == "" {
				want = fmt.Sprintf("The git hook %s runs when git refreshes the index", file)
				mark = filepath.Base(file)
			}
			for _, g := range commands {
				if ex := o.e.explainBash(g); ex.Decision != "ask" || ex.Step != "tool check" || !strings.Contains(ex.Reason, want) {
					t.Errorf("%s: %s by %s (%s); want ask by the tool with %q", g, ex.Decision, ex.Step, ex.Reason, want)
				}
			}
			results := o.turn(t, commands)
			if o.ran(t) {
				t.Errorf("riot in default mode let git run the program of %s; results: %q", file, results)
			}
			for i, r := range results {
				if !strings.Contains(r, mark) {
					t.Errorf("%s: the result does not name %s: %q", commands[i], mark, r)
				}
			}
		})
	}
}

// TestPermBashIssue29FalseAlarms: `git log -c -1` (-c after the subcommand is the combined diff) and a carriage
// return inside single quotes are read-only and allowed; their neighbours stay flagged, with their reasons.
func TestPermBashIssue29FalseAlarms(t *testing.T) {
	o := newGitOracle(t)
	for _, cmd := range []string{"git log -c -1", "echo 'a\rb'", "git diff -c", "git show -c HEAD"} {
		ex := o.e.explainBash(cmd)
		if ex.Decision != "allow" || !ex.ReadOnly || ex.Reason != "Read-only calls are allowed in default mode." {
			t.Errorf("%q: %s, read-only %v (%s); want allowed as read-only", cmd, ex.Decision, ex.ReadOnly, ex.Reason)
		}
	}
	// It runs, and prints the carriage return bash was given.
	out := o.turn(t, []string{"echo 'a\rb'"})
	if len(out) != 1 || !strings.Contains(out[0], "a\rb") {
		t.Errorf("echo 'a\\rb' printed %q", out)
	}
	for _, c := range []struct{ cmd, reason string }{
		{"echo a\rb", "holds a control character"},
		{"echo \"a\rb\"", "holds a control character"},
		{"echo 'a'\r'b'", "holds a control character"},
		{"git -c core.pager=x log", "git -c core.pager=x log"},
	} {
		ex := o.e.explainBash(c.cmd)
		if ex.Decision != "ask" || ex.ReadOnly || !strings.Contains(ex.Reason, c.reason) {
			t.Errorf("%q: %s, read-only %v (%s); want ask with %q", c.cmd, ex.Decision, ex.ReadOnly, ex.Reason, c.reason)
		}
	}
	// -c prints the contents of merges: with a tracked file denied to read, it asks as -p does.
	o.e.write("secret.txt", "SECRET\n")
	o.git(t, o.ws, "add", "secret.txt")
	o.git(t, o.ws, "commit", "-qm", "secret")
	ex := o.e.explainBash("git log -c -1", "--deny", denySecret)
	if ex.Decision != "ask" || !strings.Contains(ex.Reason, "prints file contents from history, and the repository tracks "+o.ws+"/secret.txt") {
		t.Errorf("git log -c with a denied tracked file: %+v", ex)
	}
}
