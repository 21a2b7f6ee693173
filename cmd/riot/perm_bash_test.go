package main_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Issue 11, the Bash analyzer: every class through the real CLI without a terminal, the false alarms with
// `riot explain` showing why, and an oracle that runs what the chain allows under strace.

const denySecret = "Read(**/secret.txt)"

// bashTree is issue 11's setup in e.ws: a git repository tracking the denied secret.txt, the symlinks
// lnk -> outside/sub and olnk -> outside, and an outside directory holding osecret.txt.
type bashTree struct {
	ws, out string
}

func newBashTree(t *testing.T, e *env, git bool) bashTree {
	t.Helper()
	ws, err := filepath.EvalSymlinks(e.ws)
	if err != nil {
		t.Fatal(err)
	}
	tr := bashTree{ws: ws, out: filepath.Join(filepath.Dir(ws), "outside")}
	for name, body := range map[string]string{
		"a.txt": "alpha\n", "b.txt": "beta\n", "secret.txt": "SECRET-IN\n", "d/x": "x\n", "d/e/deep.go": "package e\n",
		"d/.hidden": "h\n", "d/secret.txt": "SECRET-D\n",
	} {
		e.write(name, body)
	}
	for name, body := range map[string]string{"osecret.txt": "SECRET-OUT\n", "sub/x": "sub\n"} {
		p := filepath.Join(tr.out, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"lnk": tr.out + "/sub", "olnk": tr.out} {
		if err := os.Symlink(target, filepath.Join(ws, link)); err != nil {
			t.Fatal(err)
		}
	}
	if git {
		for _, args := range [][]string{{"init", "-q"}, {"add", "a.txt", "b.txt", "secret.txt", "d"}, {"commit", "-qm", "init"}} {
			cmd := exec.Command("git", append([]string{"-c", "user.email=t@example.com", "-c", "user.name=t"}, args...)...)
			cmd.Dir, cmd.Env = ws, e.environ()
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v\n%s", args, err, out)
			}
		}
	}
	return tr
}

type explained struct {
	ReadOnly bool     `json:"read_only"`
	Subjects []string `json:"subjects"`
	Decision string   `json:"decision"`
	Step     string   `json:"decided_by"`
	Reason   string   `json:"reason"`
}

// explain runs `riot explain Bash` on a command, with extra flags.
func (e *env) explainBash(command string, flags ...string) explained {
	e.t.Helper()
	in, _ := json.Marshal(map[string]string{"command": command})
	r := e.riot("", append([]string{"explain", "Bash", string(in), "--json"}, flags...)...)
	var ex explained
	if err := json.Unmarshal([]byte(r.stdout), &ex); err != nil {
		e.t.Fatalf("explain %q: %v\n%s\n%s", command, err, r.stdout, r.stderr)
	}
	return ex
}

// TestPermBashClasses: each class of issue 11 that belongs to the Bash analyzer, with the example, to
// the decision and its reason, in default mode with the deny rule.
func TestPermBashClasses(t *testing.T) {
	e := newEnv(t)
	tr := newBashTree(t, e, true)
	if err := os.WriteFile(filepath.Join(e.home, ".bashrc"), []byte("# rc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := strings.NewReplacer("$OUT", tr.out, "$WS", tr.ws, "$HOME", e.home)
	for _, c := range []struct {
		class, cmd, decision, reason string
		flags                        []string
	}{
		{"1 braces", "cat {,/}etc/shadow", "ask", "/etc/shadow is outside the workspace roots", nil},
		{"1 braces", "cat {,/}etc/hostname", "allow", "Read-only calls are allowed in default mode.", nil}, // issue 34: a system file
		{"1 braces", "cat {secret,a}.txt", "deny", "on $WS/secret.txt has been denied by the rule `Read(**/secret.txt)`", nil},
		{"2 file lists", "printf 'secret.txt\\0' | sort --files0-from=-", "ask", "`sort --files0-from` reads the names of the files it reads from a list", nil},
		{"2 file lists", "find -files0-from list", "ask", "`find -files0-from` reads its starting points from a list", nil},
		{"2 file lists", "wc --files0-from=list", "ask", "`wc --files0-from` reads the names", nil},
		{"2 file lists", "tar -T list -cf /dev/null", "ask", "`tar -T` reads the names", []string{"--allow", "Bash(tar:*)"}},
		{"2 file lists", "xargs -a list cat", "ask", "`xargs -a` reads the names", []string{"--allow", "Bash(xargs:*)"}},
		{"2 file lists", "grep -f secret.txt a.txt", "deny", "on $WS/secret.txt has been denied", nil},
		{"2 file lists", "diff --from-file=secret.txt a.txt", "deny", "on $WS/secret.txt has been denied", nil},
		{"3 --", "find -- $OUT -maxdepth 1", "ask", "$OUT is outside the workspace roots", nil},
		{"4 .. after a symlink", "cat lnk/../osecret.txt", "ask", "is outside the workspace roots", nil},
		{"5 globs", "cat secre*", "deny", "on $WS/secret.txt has been denied", nil},
		{"5 globs", "head -100 *", "deny", "on $WS/secret.txt has been denied", nil},
		{"5 globs", "echo $OUT/*", "ask", "$OUT is outside the workspace roots", nil},
		{"5 globs", "cp d/x .gi?/hooks/", "ask", "names the protected path $WS/.git", []string{"--allow", "Bash(cp:*)"}},
		{"5 globs", "cp d/x ~/.bash?c", "ask", "names the protected path $HOME/.bashrc", []string{"--allow", "Bash(cp:*)"}},
		{"5 globs", "cat d/*", "deny", "on $WS/d/secret.txt has been denied", nil},
		{"6 recursive", "grep -r SECRET .", "deny", "would read secret.txt, which a Read deny rule forbids. Use the Grep tool", nil},
		{"6 recursive", "rg SECRET", "deny", "Use the Grep tool", nil},
		{"6 recursive", "diff -r d .", "deny", "Use the Grep tool", nil},
		{"6 recursive", "grep -R SECRET d", "deny", "would read d/secret.txt", nil},
		{"6 recursive", "find -L . -name nothing-here", "deny", "Use the Grep tool", nil},
		{"6 recursive", "rg -L x d/e olnk", "ask", "is outside the workspace roots", nil},
		{"7 git history", "git show HEAD", "ask", "which a Read deny rule forbids, so running it needs the user's approval", nil},
		{"7 git history", "git log -p", "ask", "prints file contents from history, and the repository tracks $WS/", nil},
		{"7 git rev:path", "git show HEAD:secret.txt", "deny", "on $WS/secret.txt has been denied", nil},
		{"8 git config", "git config core.pager 'touch pwned'", "ask", "$WS/.git/config is a protected path", []string{"--allow", "Bash(git config:*)"}},
		{"9 options that write", "sort -T $OUT a.txt", "ask", "$OUT is outside the workspace roots", []string{"--allow", "Bash(sort:*)"}},
		{"11 parser and bash", "ls #\\\ntouch x", "allow", "Read-only calls are allowed in default mode.", nil},
		{"11 parser and bash", "echo x\r#; touch x", "ask", "holds a control character", nil},
		{"13 /proc/self", "cat /proc/self/cwd/a.txt", "ask", "goes through /proc/self, /proc/thread-self or /proc/<pid>", nil},
	} {
		t.Run(c.class+": "+c.cmd, func(t *testing.T) {
			ex := e.explainBash(r.Replace(c.cmd), append([]string{"--deny", denySecret}, c.flags...)...)
			if ex.Decision != c.decision || !strings.Contains(ex.Reason, r.Replace(c.reason)) {
				t.Errorf("%s: %s (%s), want %s with %q", c.cmd, ex.Decision, ex.Reason, c.decision, r.Replace(c.reason))
			}
		})
	}
}

// TestPermBashGitConfigRunsPrograms: class 8 for real: with core.fsmonitor set in .git/config, git status is not
// allowed, and nothing runs.
func TestPermBashGitConfigRunsPrograms(t *testing.T) {
	e := newEnv(t)
	tr := newBashTree(t, e, true)
	cmd := exec.Command("git", "config", "core.fsmonitor", "touch pwned")
	cmd.Dir, cmd.Env = tr.ws, e.environ()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	ex := e.explainBash("git status")
	if ex.Decision != "ask" || !strings.Contains(ex.Reason, "sets core.fsmonitor, which makes git run a program") {
		t.Fatalf("git status with core.fsmonitor: %+v", ex)
	}
	e.riot("", "call", "Bash", `{"command":"git status"}`).want(t, 1, "core.fsmonitor")
	if _, err := os.Stat(filepath.Join(tr.ws, "pwned")); !os.IsNotExist(err) {
		t.Fatal("git status ran core.fsmonitor")
	}
}

// TestPermBashParserAndBashAgree: class 11 for real, in every mode but bypassPermissions: the commands the
// analyzer saw are the ones bash runs.
func TestPermBashParserAndBashAgree(t *testing.T) {
	e := newEnv(t)
	for _, mode := range []string{"default", "plan", "dontAsk"} {
		e.riot("", "call", "Bash", `{"command":"ls #\\\ntouch x"}`, "--mode", mode)
		e.riot("", "call", "Bash", `{"command":"echo x\r#; touch x"}`, "--mode", mode)
		if _, err := os.Stat(filepath.Join(e.ws, "x")); !os.IsNotExist(err) {
			t.Fatalf("mode %s: a command hidden from the analyzer ran", mode)
		}
	}
}

// TestPermBashFalseAlarms: read-only commands issue 11 lists are allowed in default mode, and explain says why.
func TestPermBashFalseAlarms(t *testing.T) {
	e := newEnv(t)
	tr := newBashTree(t, e, true)
	// The symlinks out are no part of these checks; a tree without them is what a user has.
	for _, l := range []string{"lnk", "olnk"} {
		if err := os.Remove(filepath.Join(tr.ws, l)); err != nil {
			t.Fatal(err)
		}
	}
	for _, cmd := range []string{
		"cd d", "cd d && ls", "for f in *.txt; do wc -l \"$f\"; done", "git remote -v", "git tag -l", "git describe --always",
		"git stash list", "git cat-file -p HEAD", "git rev-list HEAD", "git ls-files", "git blame a.txt", "git shortlog -s HEAD",
		"uname -a", "printenv", "readlink d", "sha256sum a.txt", "md5sum a.txt", "seq 3", "cat /dev/null",
		"echo $((1+1))", "wc -l $(git ls-files)", "git diff --output-indicator-new=+",
	} {
		ex := e.explainBash(cmd)
		if ex.Decision != "allow" || ex.Reason != "Read-only calls are allowed in default mode." {
			t.Errorf("%s: %s by %s (%s), subjects %q", cmd, ex.Decision, ex.Step, ex.Reason, ex.Subjects)
		}
	}
	// A cd that leaves the roots asks.
	if ex := e.explainBash("cd " + tr.out); ex.Decision != "ask" || !strings.Contains(ex.Reason, "outside the workspace") {
		t.Errorf("cd out: %+v", ex)
	}
	// With the deny rule, the loop and the substitution still read the denied file, and say so.
	if ex := e.explainBash("for f in *.txt; do wc -l \"$f\"; done", "--deny", denySecret); ex.Decision != "deny" {
		t.Errorf("a loop over the denied file: %+v", ex)
	}
	if ex := e.explainBash("wc -l $(git ls-files)", "--deny", denySecret); ex.Decision != "deny" || !strings.Contains(ex.Reason, "Use the Grep tool") {
		t.Errorf("wc over the tracked denied file: %+v", ex)
	}
}

// oracleSystem are the paths outside the roots a program may open to run at all: its libraries, locale and
// terminfo data, the user's own git and ripgrep config, and the like.
var oracleSystem = []string{
	"/usr/", "/lib/", "/lib64/", "/etc/ld.so.", "/etc/locale.alias", "/etc/localtime", "/etc/nsswitch.conf",
	"/etc/passwd", "/etc/group", "/etc/gitconfig", "/etc/magic", "/etc/terminfo", "/proc/self/", "/proc/filesystems",
	"/proc/meminfo", "/sys/devices/system/cpu", "/sys/fs/cgroup", "/dev/null", "/dev/tty", "/dev/urandom", "/proc/sys/",
	// issue 34: a system file a read-only command reads without asking (TestPermBashSystemReads has the class)
	"/etc/hostname",
}

// TestPermBashStraceOracle is the oracle of issue 11, which does not trust the analyzer: a corpus (the issue's
// examples, the false alarms, and generated compositions of braces, globs, `..`, symlinks and recursive reads) is
// sent to the real host as one turn in default mode with the deny rule, every call the chain allows runs under
// `strace -f`, and the test fails if one opened a denied file, opened anything outside the workspace but the
// system paths a program needs, or made a writing system call.
func TestPermBashStraceOracle(t *testing.T) {
	strace := needStrace(t)
	e := newEnv(t)
	// The oracle tests the first line of defence alone: the analysis, not
	// the kernel sandbox behind it (which sandbox_test.go tests with the
	// analysis forced wrong).
	e.sandboxOff()
	tr := newBashTree(t, e, true)
	// The oracle sees what it must refuse: in bypassPermissions (no safety checks), a read through a symlink out,
	// a write, and a listing of an outside directory are all reported.
	_, control := runOracle(t, e, tr, strace, []string{"cat olnk/sub/x", "touch made", "ls " + tr.out}, "--mode", "bypassPermissions")
	for _, want := range []string{"an open outside the workspace", "an open for writing", "an open outside the workspace: openat(AT_FDCWD"} {
		if !slices.ContainsFunc(control, func(v string) bool { return strings.Contains(v, want) }) {
			t.Fatalf("the oracle missed %q in bypassPermissions: %q", want, control)
		}
	}
	if err := os.Remove(filepath.Join(tr.ws, "made")); err != nil {
		t.Fatal(err)
	}
	corpus := oracleCorpus(tr, rand.New(rand.NewPCG(11, 5)), 160)
	ran, violations := runOracle(t, e, tr, strace, corpus)
	for _, v := range violations {
		t.Error(v)
	}
	if ran < 40 {
		t.Fatalf("only %d of %d calls ran: the oracle checked too little", ran, len(corpus))
	}
}

// oracleCorpus is the examples and n generated commands.
func oracleCorpus(tr bashTree, r *rand.Rand, n int) []string {
	corpus := []string{
		"cat {,/}etc/hostname", "cat {secret,a}.txt", "printf 'secret.txt\\0' | sort --files0-from=-",
		"find -- " + tr.out + " -maxdepth 1", "cat lnk/../osecret.txt", "cat secre*", "head -100 *", "echo " + tr.out + "/*",
		"grep -r SECRET .", "rg SECRET", "diff -r d .", "grep -R SECRET .", "rg -L SECRET", "find -L .", "git show HEAD",
		"git log -p", "git show HEAD:secret.txt", "cat /proc/self/cwd/a.txt", "ls #\\\ntouch x", "echo x\r#; touch x",
		"cd d && ls", "for f in *.txt; do wc -l \"$f\"; done", "git remote -v", "git ls-files", "git blame a.txt",
		"uname -a", "cat /dev/null", "echo $((1+1))", "wc -l $(git ls-files)", "git diff --output-indicator-new=+",
		"cd olnk && cat osecret.txt", "cd d; cat ../secret.txt", "cat d/../secret.txt", "cat olnk/../ws/a.txt",
		"sort -T " + tr.out + " a.txt", "ls -R", "du -a", "tree", "cat ~/x", "cat {a,b}.txt d/{x,secret.txt}",
	}
	cmds := []string{"cat", "head -1", "tail -1", "wc -l", "grep -r x", "grep -R x", "rg x", "rg -L x", "find", "find -L",
		"du -a", "ls -R", "diff -r", "stat -c %n", "ls", "file", "grep -l x", "sort", "ls -d", "find -H"}
	words := []string{"a.txt", "{secret,a}.txt", "{,/}etc/hostname", "secre*", "*", "d/*", "olnk/*", "lnk/*", ".*", "d/.*",
		"lnk/../osecret.txt", "olnk/../ws/a.txt", "d/../a.txt", "lnk/x", "olnk", "lnk", ".", "d", "d/e", "-- d",
		"/proc/self/cwd/a.txt", "~/x", tr.out + "/osecret.txt", "d/{x,secret.txt}", "{d,lnk}/x", "d/**", "./*.txt",
		"'secret'.txt", "\"d\"/*", "d/e/*.go", "lnk/..", "olnk/sub/../osecret.txt", "$(echo a.txt)", "{a..b}.txt"}
	for range n {
		c := cmds[r.IntN(len(cmds))]
		for range 1 + r.IntN(2) {
			c += " " + words[r.IntN(len(words))]
		}
		switch r.IntN(6) {
		case 0:
			c = "cd d && " + c
		case 1:
			c = "for f in " + words[r.IntN(len(words))] + "; do cat \"$f\"; done"
		case 2:
			c += " | head -3"
		}
		corpus = append(corpus, c)
	}
	return corpus
}

// runOracle sends the corpus as one turn under strace and checks the trace of every bash the Bash tool started.
// It returns how many calls ran.
func runOracle(t *testing.T, e *env, tr bashTree, strace string, corpus []string, flags ...string) (int, []string) {
	t.Helper()
	var uses []string
	for i, c := range corpus {
		// A trailing `true` keeps a failing command from cancelling the rest of the turn.
		in, _ := json.Marshal(map[string]any{"type": "tool_use", "id": fmt.Sprintf("c%d", i), "name": "Bash",
			"input": map[string]string{"command": c + "\ntrue"}})
		uses = append(uses, string(in))
	}
	traceDir := t.TempDir()
	cmd := e.command("["+strings.Join(uses, ",")+"]", append([]string{"run", "--deny", denySecret}, flags...)...)
	cmd.Args = append([]string{strace, "-ff", "-qq", "-y", "-s", "4096", "-o", filepath.Join(traceDir, "t"),
		"-e", "trace=%file,%desc,%process,%network", "--"}, cmd.Args...)
	cmd.Path = strace
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			stderr = ee.Stderr
		}
		t.Fatalf("riot run under strace: %v\nstdout: %s\nstderr: %s", err, out, stderr)
	}
	var results []struct {
		ID      string `json:"tool_use_id"`
		Content string `json:"content"`
		IsError bool   `json:"is_error"`
	}
	if err := json.Unmarshal(out, &results); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	ran := 0
	for _, r := range results {
		switch {
		case strings.HasPrefix(r.Content, "Permission denied"):
		case strings.Contains(r.Content, "Cancelled") || strings.Contains(r.Content, "Not run"):
			t.Errorf("%s was not run: %s", r.ID, r.Content)
		default:
			ran++
		}
		if strings.Contains(r.Content, "SECRET") {
			t.Errorf("%s printed a denied file: %q", r.ID, r.Content)
		}
	}
	violations, traced := oracleViolations(t, traceDir, tr, e.tmp)
	if traced < ran {
		t.Errorf("%d calls ran but the trace holds %d bash processes: the trace is incomplete", ran, traced)
	}
	t.Logf("%d of %d calls ran, %d traced", ran, len(corpus), traced)
	return ran, violations
}

// oracleViolations reads the per-process traces, finds every process the Bash tool started (a `bash -c` and its
// descendants), and returns each forbidden open or write, naming the command.
func oracleViolations(t *testing.T, dir string, tr bashTree, tmp string) ([]string, int) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "t.*"))
	lines := map[string][]string{}
	children := map[string][]string{}
	var roots []string
	script := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		pid := strings.TrimPrefix(filepath.Ext(f), ".")
		lines[pid] = strings.Split(string(b), "\n")
		for _, l := range lines[pid] {
			if strings.HasPrefix(l, "clone") || strings.HasPrefix(l, "fork") || strings.HasPrefix(l, "vfork") {
				if i := strings.LastIndex(l, "= "); i >= 0 {
					children[pid] = append(children[pid], strings.TrimSpace(l[i+2:]))
				}
			}
			if strings.HasPrefix(l, "execve(") && strings.Contains(l, `bash", "-c", "trap 'pwd >`) {
				roots = append(roots, pid)
				script[pid] = l
			}
		}
	}
	real, _ := filepath.EvalSymlinks(tmp)
	var out []string
	for _, root := range roots {
		stack := []string{root}
		for len(stack) > 0 {
			pid := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			stack = append(stack, children[pid]...)
			started := pid != root
			for _, l := range lines[pid] {
				if !started { // the Go child before it becomes bash is riot's own
					started = strings.HasPrefix(l, "execve(")
					continue
				}
				if why := oracleForbidden(l, tr, real); why != "" {
					out = append(out, fmt.Sprintf("%s: %s\n  in %s", why, l, script[root]))
				}
			}
		}
	}
	return out, len(roots)
}

// oracleForbidden says why one traced system call breaks the rules, or "".
func oracleForbidden(l string, tr bashTree, tmp string) string {
	call, _, _ := strings.Cut(l, "(")
	switch call {
	case "execve", "execveat":
		if strings.Contains(l, `("`+tr.ws+"/") || strings.Contains(l, `"./`) {
			return "an exec of the project's code"
		}
		return ""
	case "connect", "sendto", "sendmsg":
		if strings.Contains(l, "AF_INET") || strings.Contains(l, "AF_NETLINK") && call == "connect" {
			return "a use of the network"
		}
		return ""
	case "unlink", "unlinkat", "rename", "renameat", "renameat2", "mkdir", "mkdirat", "rmdir", "chmod", "fchmod",
		"fchmodat", "chown", "fchown", "fchownat", "lchown", "truncate", "ftruncate", "link", "linkat", "symlink",
		"symlinkat", "mknod", "mknodat", "utimensat", "utimes", "setxattr", "lsetxattr", "removexattr":
		if strings.Contains(l, tmp+"/riot-bash-cwd-") || strings.Contains(l, tmp+"/sh-thd") {
			return "" // riot's record of the directory, bash's heredoc file
		}
		return "a writing system call"
	case "open", "openat", "openat2", "creat":
	default:
		return ""
	}
	// The resolved path strace -y shows after a successful open.
	path := ""
	if i := strings.LastIndex(l, ") = "); i >= 0 {
		if j := strings.Index(l[i:], "<"); j >= 0 {
			path = strings.TrimSuffix(l[i+j+1:], ">")
		}
	}
	writing := call == "creat" || strings.Contains(l, "O_WRONLY") || strings.Contains(l, "O_RDWR") ||
		strings.Contains(l, "O_CREAT") || strings.Contains(l, "O_TRUNC")
	if writing && path != "/dev/null" && path != "/dev/tty" && !strings.Contains(l, `"/dev/tty"`) &&
		!strings.HasPrefix(path, tmp+"/riot-bash-cwd-") && !strings.HasPrefix(path, tmp+"/sh-thd") {
		return "an open for writing"
	}
	if path == "" {
		return "" // a failed open read nothing
	}
	switch {
	case strings.Contains(path, "secret.txt"):
		return "an open of a denied file"
	case path == tr.ws || strings.HasPrefix(path, tr.ws+"/"):
		return ""
	case strings.HasPrefix(path, tmp+"/"):
		return "" // riot's own files for the call
	}
	for _, s := range oracleSystem {
		if strings.HasPrefix(path, s) || path+"/" == s {
			return ""
		}
	}
	if strings.HasPrefix(path, "/proc/") && !strings.HasPrefix(path, "/proc/self/cwd") {
		return "" // process information (ps-like reads of /proc/PID/stat)
	}
	return "an open outside the workspace"
}

// FuzzStraceOracle is the longer run of the oracle, for make fuzz: each input seeds a generated corpus.
func FuzzStraceOracle(f *testing.F) {
	f.Add(uint64(1), uint64(2))
	f.Add(uint64(7), uint64(11))
	f.Fuzz(func(t *testing.T, a, b uint64) {
		strace, err := exec.LookPath("strace")
		if err != nil {
			t.Skip("strace is not installed")
		}
		e := newEnv(t)
		e.sandboxOff() // the analysis alone, as in TestPermBashStraceOracle
		tr := newBashTree(t, e, true)
		_, violations := runOracle(t, e, tr, strace, oracleCorpus(tr, rand.New(rand.NewPCG(a, b)), 60)[40:])
		for _, v := range violations {
			t.Error(v)
		}
	})
}

// TestPermBashInspectOracle is the oracle of issue 34's newly allowed classes: each command of the corpus must
// be allowed in default mode (read-only, no question) and, run under strace, open nothing for writing outside
// riot's own files, execute nothing from the workspace, and use no network. A command whose program is missing
// is left out with a log line, but in CI every program must be there (.ci/run installs them).
func TestPermBashInspectOracle(t *testing.T) {
	strace := needStrace(t)
	e := newEnv(t)
	e.sandboxOff() // the analysis alone, as in TestPermBashStraceOracle
	tr := newBashTree(t, e, true)
	for _, l := range []string{"lnk", "olnk"} {
		if err := os.Remove(filepath.Join(tr.ws, l)); err != nil {
			t.Fatal(err)
		}
	}
	e.write("data.json", `{"name":"x","deps":{"a":1}}`+"\n")
	e.write("script.sh", "rm -rf /\n")
	elf, err := os.ReadFile("/bin/true")
	if err != nil {
		t.Fatal(err)
	}
	e.write("app", string(elf))
	for _, mk := range [][]string{{"tar", "-cf", "dist.tar", "a.txt", "d"}, {"zip", "-q", "dist.zip", "a.txt", "b.txt"}} {
		if _, err := exec.LookPath(mk[0]); err != nil {
			continue
		}
		c := exec.Command(mk[0], mk[1:]...)
		c.Dir = tr.ws
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", mk, err, out)
		}
	}
	// git grep and cat-file print contents, so they ask here, where the repository tracks the denied
	// secret.txt (TestAnalyzeInspectTable has them); find stays out of d, which holds one.
	corpus := []struct{ cmd, program string }{
		{"file -b app a.txt", "file"}, {"strings -n 4 app | head -3", "strings"}, {"od -A x -t x1z -N 32 app", "od"},
		{"hexdump -C -n 32 app", "hexdump"}, {"xxd -l 32 app", "xxd"}, {"xxd -r -p a.txt | od -c | head -2", "xxd"},
		{"objdump -d app | head -20", "objdump"}, {"objdump -h app", "objdump"}, {"readelf -h app", "readelf"},
		{"nm -D app | head", "nm"}, {"unzip -l dist.zip", "unzip"}, {"tar -tf dist.tar", "tar"}, {"tar tvf dist.tar", "tar"},
		{"jq -r .name data.json", "jq"}, {"jq --slurpfile x data.json -n '$x'", "jq"}, {"python3 -m json.tool data.json", "python3"},
		{"command -v git", "bash"}, {"ps aux | head -3", "ps"}, {"pgrep -l bash | head -3", "pgrep"}, {"lsof -p $$ | head -3", "lsof"},
		{"bash -n script.sh", "bash"}, {"sh -n script.sh", "sh"},
		{"git --version", "git"}, {"node --version", "node"}, {"python3 --version", "python3"}, {"gcc --version", "gcc"},
		{"make -v", "make"}, {"perl -v", "perl"},
		{"git reflog", "git"}, {"git reflog show --oneline -3", "git"}, {"git stash list", "git"}, {"git branch -a", "git"},
		{"git branch --list 'm*'", "git"}, {"git ls-tree -r HEAD", "git"},
		{"git ls-files", "git"}, {"git describe --always", "git"},
		{"git shortlog -s HEAD", "git"}, {"git rev-list --count HEAD", "git"}, {"git -C d log --oneline", "git"},
		{"export NODE_ENV=test", "bash"}, {"export X=1; echo $X", "bash"}, {"f=a.txt; echo \"$f\"", "bash"},
		{"while read -r l; do echo \"$l\"; done < a.txt", "bash"}, {"for f in a.txt b.txt; do wc -l \"$f\"; done", "bash"},
		{"echo $(jq -r .name data.json)", "jq"}, {"find d/e -name *.go -type f", "find"}, {"/usr/bin/cat a.txt", "cat"},
		{"/bin/ls d", "ls"},
	}
	var cmds []string
	for _, c := range corpus {
		if _, err := exec.LookPath(c.program); err != nil {
			if os.Getenv("CI") == "true" {
				t.Errorf("%s is not installed, and CI must run %q (.ci/run installs it)", c.program, c.cmd)
			}
			t.Logf("left out %q: %s is not installed", c.cmd, c.program)
			continue
		}
		if c.program == "unzip" || c.program == "tar" {
			if _, err := os.Stat(filepath.Join(tr.ws, "dist."+map[string]string{"unzip": "zip", "tar": "tar"}[c.program])); err != nil {
				t.Logf("left out %q: no archive (zip or tar missing)", c.cmd)
				continue
			}
		}
		if ex := e.explainBash(c.cmd, "--deny", denySecret); ex.Decision != "allow" {
			t.Errorf("%s: %s by %s (%s)", c.cmd, ex.Decision, ex.Step, ex.Reason)
			continue
		}
		cmds = append(cmds, c.cmd)
	}
	ran, violations := runOracle(t, e, tr, strace, cmds)
	for _, v := range violations {
		// Programs read their own installation (a pyenv shim's scripts, a toolchain's files) wherever it is;
		// what must not happen is a read of the other project beside the workspace.
		if strings.HasPrefix(v, "an open outside the workspace") && !strings.Contains(v, tr.out) {
			continue
		}
		t.Error(v)
	}
	if ran != len(cmds) {
		t.Errorf("%d of %d allowed calls ran", ran, len(cmds))
	}
	if _, err := os.Stat(filepath.Join(tr.ws, "pwned")); err == nil {
		t.Error("a command ran the project's code")
	}
}

// needStrace is strace's path, or skips the test (fails it when CI requires strace).
func needStrace(t *testing.T) string {
	t.Helper()
	strace, err := exec.LookPath("strace")
	if err != nil {
		if os.Getenv("RIOT_TEST_REQUIRE_STRACE") != "" {
			t.Fatal("strace is not installed, and CI must run the oracle (.ci/run installs it)")
		}
		t.Skip("strace is not installed")
	}
	return strace
}

// TestPermBashQuotedWords: a prefix rule covers a command whose shell syntax is all quoted (issue 34): the
// Bash plugin sends its words quoted, and the core matches the rule on them; what really chains, substitutes
// or writes still asks. The allowed command then runs as written.
func TestPermBashQuotedWords(t *testing.T) {
	e := newEnv(t)
	e.write("f", "a|b\nc\n")
	for _, c := range []struct{ rule, cmd, decision, step string }{
		{"Bash(python3:*)", `python3 -c "import sys; print(1)"`, "allow", "allow rules"},
		{"Bash(grep:*)", `grep "a|b" f`, "allow", "allow rules"},
		{"Bash(grep:*)", `grep -E 'x>y;z' f`, "allow", "allow rules"},
		{"Bash(python3:*)", `python3 x; rm y`, "ask", "mode"},
		{"Bash(grep:*)", `grep x $(rm y)`, "ask", ""}, // the substitution's output is a path it cannot know
		{"Bash(echo:*)", `echo x > ~/.bashrc`, "ask", "safety checks"},
	} {
		ex := e.explainBash(c.cmd, "--allow", c.rule)
		if ex.Decision != c.decision || c.step != "" && ex.Step != c.step {
			t.Errorf("%s with %s: %s by %s (%s), subjects %q; want %s by %s", c.cmd, c.rule, ex.Decision, ex.Step, ex.Reason, ex.Subjects, c.decision, c.step)
		}
	}
	if ex := e.explainBash(`python3 -c "import sys; print(1)"`); len(ex.Subjects) == 0 || !strings.Contains(ex.Subjects[0], `'import sys; print(1)'`) {
		t.Errorf("the subject does not show the quoted word: %q", ex.Subjects)
	}
	in := `[{"type":"tool_use","id":"q1","name":"Bash","input":{"command":"python3 -c \"import sys; print('ran', 1)\""}},` +
		`{"type":"tool_use","id":"q2","name":"Bash","input":{"command":"grep \"a|b\" f"}}]`
	e.riot(in, "run", "--allow", "Bash(python3:*)", "--allow", "Bash(grep:*)").want(t, 0, "ran 1", "a|b")
}

// TestPermBashSystemReads: issue 34's first class. Read-only commands read the system's own files outside the
// workspace without asking: explain allows them, and under strace they open nothing for writing, run nothing
// of the project's and use no network. Secrets and the home directory are still asked. With the sandbox on,
// the command sees each file it was allowed to read.
func TestPermBashSystemReads(t *testing.T) {
	strace := needStrace(t)
	e := newEnv(t)
	e.sandboxOff() // the analysis alone, as in TestPermBashStraceOracle
	tr := newBashTree(t, e, false)
	if err := os.WriteFile(filepath.Join(e.home, ".bashrc"), []byte("# rc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var cmds []string
	for _, c := range []struct{ cmd, file string }{
		{"cat /etc/os-release", "/etc/os-release"}, {"cat /etc/hostname", "/etc/hostname"}, {"ls /usr/lib", "/usr/lib"},
		{"head -3 /proc/cpuinfo", "/proc/cpuinfo"}, {"grep -c MemTotal /proc/meminfo", "/proc/meminfo"},
		{"wc -l /usr/share/common-licenses/GPL-3", "/usr/share/common-licenses/GPL-3"}, {"file /usr/bin/env", "/usr/bin/env"},
		{"head -1 /var/lib/dpkg/status", "/var/lib/dpkg/status"}, {"cat /usr/share/dict/words | head -2", "/usr/share/dict/words"},
	} {
		if _, err := os.Stat(c.file); err != nil {
			t.Logf("left out %q: %v", c.cmd, err)
			continue
		}
		if ex := e.explainBash(c.cmd); ex.Decision != "allow" || ex.Step != "mode" {
			t.Errorf("%s: %s by %s (%s), subjects %q", c.cmd, ex.Decision, ex.Step, ex.Reason, ex.Subjects)
			continue
		}
		cmds = append(cmds, c.cmd)
	}
	if len(cmds) < 4 {
		t.Fatalf("only %d system reads to run: %q", len(cmds), cmds)
	}
	for _, c := range []struct{ cmd, reason string }{
		{"cat /etc/shadow", "/etc/shadow is outside the workspace roots"},
		{"cat ~/.bashrc", e.home + "/.bashrc is outside the workspace roots"},
		{"ls /etc", "/etc is outside the workspace roots"},
		{"grep -r x /etc/ssl", "/etc/ssl is outside the workspace roots"},
		{"cat /proc/self/environ", "goes through /proc/self"},
		{"cat " + tr.out + "/osecret.txt", "is outside the workspace roots"},
	} {
		if ex := e.explainBash(c.cmd); ex.Decision != "ask" || !strings.Contains(ex.Reason, c.reason) {
			t.Errorf("%s: %s by %s (%s), want ask with %q", c.cmd, ex.Decision, ex.Step, ex.Reason, c.reason)
		}
	}
	// A deny rule still denies a system file.
	if ex := e.explainBash("cat /etc/hostname", "--deny", "Read(//etc/hostname)"); ex.Decision != "deny" {
		t.Errorf("cat /etc/hostname with a deny rule: %+v", ex)
	}
	ran, violations := runOracle(t, e, tr, strace, cmds)
	for _, v := range violations {
		// The files read are the point; what must not happen is a write, an exec of the project's code, the
		// network, or a read of the project beside the workspace.
		if strings.HasPrefix(v, "an open outside the workspace") && !strings.Contains(v, tr.out) && !strings.Contains(v, e.home) {
			continue
		}
		t.Error(v)
	}
	if ran != len(cmds) {
		t.Errorf("%d of %d allowed calls ran", ran, len(cmds))
	}
}

// TestPermBashSystemReadsSandboxed: in the sandbox, an allowed read of a system file finds it, /var/lib
// included, which the sandbox shows only when a call is allowed to read it.
func TestPermBashSystemReadsSandboxed(t *testing.T) {
	requireSandbox(t)
	e := newEnv(t)
	e.userConfig("[sandbox]\nmode = \"required\"\n")
	want := map[string]string{}
	for _, f := range []string{"/etc/hostname", "/var/lib/dpkg/status", "/usr/lib/os-release", "/proc/version"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Logf("left out %s: %v", f, err)
			continue
		}
		first, _, _ := strings.Cut(string(b), "\n")
		want[f] = first
	}
	for f, line := range want {
		r := e.riot("", "call", "Bash", fmt.Sprintf(`{"command":"head -1 %s"}`, f))
		r.want(t, 0, line)
	}
}
