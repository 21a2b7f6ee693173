package permission

import (
	"strings"
	"testing"
)

// A restrictive rule naming a program matches every spelling of a command
// that runs it; an allow rule still allows only the command as written;
// commands that merely mention the program are not matched.
func TestRestrictsInvoked(t *testing.T) {
	for _, c := range []struct {
		pattern string
		matched []string
		spared  []string
	}{
		{"rm:*", []string{
			"/bin/rm -f v", "./bin/../rm v", "FOO=1 rm v", `\rm v`, `r""m v`, `"rm" v`,
			"env rm v", "env -i PATH=/bin rm v", "command rm v", "exec rm v", "nice -n 5 rm v", "nohup rm v",
			"time -p rm v", "timeout -s KILL 5 rm v", "stdbuf -o0 rm v", "sudo -u root rm v", "doas rm v",
			"xargs -0 rm", "setsid -w rm v", "ionice -c 3 rm v", "busybox rm v", "flock lock rm v",
			"sudo nice env rm v", "find . -name v -exec rm {} +", "find . -execdir /bin/rm {} ;",
			`sh -c "rm v"`, `bash -lc 'rm v'`, `su -c "rm v"`, `flock lock -c "rm v"`, `watch 'rm v'`,
			"eval rm v", `eval "rm v"`, `bash -c "bash -c 'rm v'"`,
			"echo $(rm v)", "cat <(rm v)", "$X v", "${X:-rm} v", "$(echo rm) v", "rm$'' v", "`echo rm` v",
			// A shell reading its commands from stdin: nothing to read.
			`echo "rm v" | sh`, `bash <<< "rm v"`, "sh -s < cmds", "busybox sh", "bash -x",
		}, []string{"echo rm", "git rm v", "ls rm", `echo "rm -rf /"`, "grep -r rm .", "cat rm.txt", "rmdir v",
			"bash --version", "sh -n build.sh", "bash build.sh", `bash -c "ls"`, "bash -c", "env FOO=1", "X=1", "eval ls",
			"find . -exec", "watch -n 1 'ls -l'"}},
		{"git push:*", []string{"git push", "git -C dir push origin", "/usr/bin/git --no-pager push", "env GIT_DIR=x git push", `sh -c "git push -f"`},
			[]string{"git status", "git pull", "echo git push"}},
		{"npm test", []string{"npm test", "/usr/bin/npm test", "env CI=1 npm test"}, []string{"npm test --watch", "npm run build"}},
	} {
		p := compileCommand(c.pattern)
		for _, cmd := range c.matched {
			if !p.restricts(parseCommandSubject(cmd)) {
				t.Errorf("%s does not restrict %q", c.pattern, cmd)
			}
		}
		for _, cmd := range c.spared {
			if p.restricts(parseCommandSubject(cmd)) {
				t.Errorf("%s restricts %q, which does not run it", c.pattern, cmd)
			}
		}
	}
	// An allow rule reads none of it.
	allow := compileCommand("rm:*")
	for _, cmd := range []string{"sudo rm v", "/bin/rm v", `sh -c "rm v"`, "$X v"} {
		if allow.allows(parseCommandSubject(cmd)) {
			t.Errorf("rm:* allows %q", cmd)
		}
	}
	// A path pattern names no program: an expansion does not match it.
	if compileCommand("./secrets/**").restricts(parseCommandSubject("$X v")) {
		t.Error("a path pattern restricts a command named by an expansion")
	}
}

// What cannot be read in full is opaque: a deny rule naming a program
// matches it, rather than missing what it runs. Up to the limits, it is
// read.
func TestInvokedLimits(t *testing.T) {
	nest := func(wrap string, n int) string {
		cmd := "rm v"
		for range n {
			cmd = wrap + " " + shellQuote(cmd)
		}
		return cmd
	}
	// sudo x (maxInvokedForms-1 times) true: exactly maxInvokedForms forms.
	forms := func(n int) string { return strings.Repeat("sudo ", n-1) + "true" }
	ls, rm := compileCommand("ls:*"), compileCommand("rm:*")
	for _, cmd := range []string{nest("sh -c", maxInvokedDepth+1), nest("watch", maxInvokedDepth+1), nest("eval", maxInvokedDepth+1), "echo 'unterminated", forms(maxInvokedForms + 1)} {
		if !ls.restricts(parseCommandSubject(cmd)) {
			t.Errorf("ls:* does not restrict the opaque %q", cmd[:min(len(cmd), 60)])
		}
	}
	for _, cmd := range []string{nest("sh -c", maxInvokedDepth), nest("watch", maxInvokedDepth), nest("eval", maxInvokedDepth), forms(maxInvokedForms)} {
		if ls.restricts(parseCommandSubject(cmd)) {
			t.Errorf("ls:* restricts %q, which is within the limits", cmd[:min(len(cmd), 60)])
		}
	}
	for _, cmd := range []string{nest("sh -c", maxInvokedDepth), nest("watch", maxInvokedDepth), nest("eval", maxInvokedDepth)} {
		if !rm.restricts(parseCommandSubject(cmd)) {
			t.Errorf("rm:* does not restrict %q", cmd[:min(len(cmd), 60)])
		}
	}
}
