package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestPermBashDenyOracle: a deny rule naming a program denies every command that really runs it, whatever the
// spelling: strace says which programs each command of the corpus executes, and wherever rm is one of them,
// `Bash(rm:*)` must deny the command in bypassPermissions, where nothing else stops it. Commands that run no rm
// and do not name it stay allowed, so the rule is not simply denying everything.
func TestPermBashDenyOracle(t *testing.T) {
	strace := needStrace(t)
	e := newEnv(t)
	e.sandboxOff()
	corpus := []string{
		"rm -f victim", "/bin/rm -f victim", "/usr/bin/rm -f victim", "FOO=1 rm -f victim", `\rm -f victim`,
		`r""m -f victim`, "env rm -f victim", "env -i PATH=/usr/bin:/bin rm -f victim", "env -- rm -f victim",
		"command rm -f victim", "exec rm -f victim", "nice -n 5 rm -f victim", "nohup rm -f victim", "time rm -f victim",
		"timeout 5 rm -f victim", "timeout -s KILL 5 rm -f victim", "stdbuf -o0 rm -f victim", "setsid -w rm -f victim",
		"ionice -c 3 rm -f victim", "sudo rm -f victim", "busybox rm -f victim", "flock lockf rm -f victim",
		"echo victim | xargs rm -f", "echo victim | xargs -I{} rm -f {}", "find . -name victim -exec rm {} +",
		"find . -name victim -execdir /bin/rm {} \\;", `sh -c "rm -f victim"`, `bash -c 'rm -f victim'`,
		`bash -lc "cd . && rm -f victim"`, "eval rm -f victim", `eval "rm -f victim"`, "X=rm; $X -f victim",
		"$(echo rm) -f victim", "${R:-rm} -f victim", "rm$'' -f victim", "echo $(rm -f victim)", "cat <(rm -f victim)",
		"true && rm -f victim", "(rm -f victim)", "{ rm -f victim; }", "if true; then rm -f victim; fi",
		"for f in victim; do rm -f $f; done", `xargs sh -c 'rm -f "$@"' _ <<< victim`,
		`echo "rm -f victim" | sh`, `bash <<< "rm -f victim"`, `sh -s <<< 'rm -f victim'`,
		// Run no rm:
		"echo rm", "ls -la", "git --version", "cat victim", "find . -name victim -delete", "rmdir --help", "bash --version",
	}
	ran := regexp.MustCompile(`execve\("([^"]+)", .* = 0$`)
	for _, cmd := range corpus {
		victim := e.write("victim", "x")
		trace := filepath.Join(t.TempDir(), "trace")
		c := exec.Command(strace, "-f", "-qq", "-e", "trace=execve", "-o", trace, "bash", "-c", cmd)
		c.Dir = e.ws
		_ = c.Run() // a failing command still shows what it ran
		b, err := os.ReadFile(trace)
		if err != nil {
			t.Fatal(err)
		}
		var programs []string
		runsRM := false
		for _, l := range strings.Split(string(b), "\n") {
			if m := ran.FindStringSubmatch(l); m != nil {
				programs = append(programs, filepath.Base(m[1]))
				runsRM = runsRM || filepath.Base(m[1]) == "rm"
			}
		}
		ex := e.explainBash(cmd, "--mode", "bypassPermissions", "--deny", "Bash(rm:*)")
		switch {
		case runsRM && (ex.Decision != "deny" || !strings.Contains(ex.Reason, "denied by the rule `Bash(rm:*)`")):
			t.Errorf("%q runs rm (it ran %v), but Bash(rm:*) did not deny it: %s (%s)", cmd, programs, ex.Decision, ex.Reason)
		case !runsRM && !strings.Contains(cmd, "rm") && ex.Decision != "allow":
			t.Errorf("%q runs no rm (it ran %v), but was not allowed: %s (%s)", cmd, programs, ex.Decision, ex.Reason)
		}
		_ = os.Remove(victim)
	}
}
