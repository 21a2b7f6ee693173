package permission

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/riot-tools/riot/config"
)

var ruleSeeds = []string{
	"Bash", "Bash(git log:*)", "Bash(npm run test:*)", "Bash(git log *)", "Bash(ls*)", "Bash(touch:*)",
	"Bash(git * main)", "Bash(echo x > f)", "Bash(echo (a))", "Bash(rm -rf *)", "Read(//etc/**)", "Read(~/.ssh/**)",
	"Read(./src/**/*.go)", "Read(**/secret.txt)", "Read(*.env)", "Edit(./docs/)", "Edit(src/[ab].go)",
	"Write({a,b}/**)", "Grep(./src)", "mcp__github__create_issue", "Read(~)", "Read(.)", "Read(../x)",
	"Bash(ls", "Bash()", "(ls)", "Ba sh", "Read([)", "Read(/etc/passwd)", "Read(~bob/x)", "Bash(ls) x", "Bash)",
}

// FuzzParseRule: parsing never panics, a parsed rule prints back to
// itself, and a parsed rule compiles and matches without panicking.
func FuzzParseRule(f *testing.F) {
	for _, s := range ruleSeeds {
		f.Add(s, "git log --oneline")
	}
	e := newEnv(f)
	p := e.policy(f, "default")
	f.Fuzz(func(t *testing.T, text, subject string) {
		r, err := ParseRule(text)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "permission rule ") || !strings.Contains(err.Error(), " is malformed: ") {
				t.Fatalf("error %q does not name the rule", err)
			}
			return
		}
		again, err := ParseRule(r.String())
		if err != nil || again != r {
			t.Fatalf("%q parsed to %+v, which prints %q and parses to %+v, %v", text, r, r.String(), again, err)
		}
		if r.Tool == "" || strings.TrimSpace(r.Spec) != r.Spec {
			t.Fatalf("%q parsed to %+v", text, r)
		}
		c, err := p.compile(config.Rule{Text: text})
		if err != nil {
			t.Fatalf("%q parses but does not compile: %v", text, err)
		}
		for _, s := range p.prepare([]Subject{{Kind: CommandSubject, Value: subject}, {Kind: PathSubject, Value: subject, Access: Read}, {Value: subject}}) {
			c.matches(r.Tool, s, true)
			c.matches(r.Tool, s, false)
		}
	})
}

// fenceTree builds a workspace whose links point in, out, up, nowhere and
// in circles, for FuzzFence.
func fenceTree(t testing.TB) *testEnv {
	e := newEnv(t)
	write(t, e.ws+"/a.txt")
	write(t, e.ws+"/src/b.txt")
	write(t, e.out+"/secret")
	write(t, e.out+"/dir/f")
	write(t, e.state+"/r.txt")
	write(t, e.home+"/.bashrc")
	for link, target := range map[string]string{
		"link_out": e.out,
		"link_in":  "src",
		"rel_up":   "../outside/secret",
		"broken":   e.ws + "/nowhere",
		"loop1":    "loop2",
		"loop2":    "loop1",
		"chain":    "link_in",
		"dotdot":   "..",
		"self":     ".",
		"abs_root": "/",
		"results":  e.state,
		"src/up":   "../../outside/dir",
		"src/home": e.home,
	} {
		symlink(t, target, filepath.Join(e.ws, link))
	}
	return e
}

// physical is an oracle for where a path really leads, built on the
// standard library's EvalSymlinks for the part that exists; a tail that
// does not exist is taken as it would be created.
func physical(p string) (string, bool) {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r, true
	}
	i := strings.LastIndex(p, "/")
	if i < 0 {
		return "", false
	}
	prefix, c := p[:i], p[i+1:]
	if prefix == "" {
		prefix = "/"
	}
	r, ok := physical(prefix)
	if !ok {
		return "", false
	}
	switch c {
	case "", ".":
		return r, true
	case "..":
		return filepath.Dir(r), true
	}
	j := filepath.Join(r, c)
	fi, err := os.Lstat(j)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return j, true
	case err != nil:
		return "", false
	case fi.Mode()&fs.ModeSymlink != 0:
		rr, err := filepath.EvalSymlinks(j)
		return rr, err == nil
	default:
		return j, true
	}
}

var fenceSeeds = []string{
	"a.txt", "src/b.txt", "link_out/secret", "link_in/b.txt", "rel_up", "broken", "broken/x", "loop1", "chain/b.txt",
	"dotdot/outside/secret", "self/a.txt", "abs_root/etc/hostname", "results/r.txt", "src/up/f", "src/home/.bashrc",
	"../outside/secret", "new/../../outside/x", "new/../link_out/x", "link_out/../ws/a.txt", "link_in/../../outside",
	"~/.bashrc", "~", "/etc/hostname", "", ".", "..", "src/./../a.txt", "//a.txt", "link_out/new/file", "a.txt/x", "src/up/../x", "src/up/../../ws/a.txt", "\x00/..",
}

// FuzzFence: whatever the path, the mode (bar bypassPermissions) and the
// allow rules, a path that really leads outside the roots, or that cannot
// be resolved, is never allowed silently; nor is a write into the
// read-only root.
func FuzzFence(f *testing.F) {
	for i, s := range fenceSeeds {
		f.Add(s, i%2 == 0, i%3 == 0, uint8(i), uint8(i/2))
	}
	e := fenceTree(f)
	modes := []config.Mode{config.ModeDefault, config.ModeAcceptEdits, config.ModePlan, config.ModeAuto, config.ModeDontAsk}
	ruleSets := [][]string{nil, {"allow:Read", "allow:Edit"}, {"allow:Read(//**)", "allow:Edit(//**)"}, {"allow:Read(**)", "allow:Edit(**)"}, {"allow:X"}}
	policies := map[[2]int]*Policy{}
	for m := range modes {
		for r := range ruleSets {
			c := e.cfg(modes[m], ruleSets[r]...)
			c.Classifier = &fakeClassifier{b: Allow}
			policies[[2]int{m, r}] = mustPolicy(f, c)
		}
	}
	f.Fuzz(func(t *testing.T, path string, readOnly, write bool, mode, rules uint8) {
		p := policies[[2]int{int(mode) % len(modes), int(rules) % len(ruleSets)}]
		access := Read
		if write {
			access = Write
		}
		req := Request{Tool: "X", ReadOnly: readOnly, ClassifierInput: "x", Subjects: []Subject{{Kind: PathSubject, Value: path, Access: access}}}
		d := p.Decide(context.Background(), req)
		if d.Behavior != Allow {
			return
		}
		abs := path
		switch {
		case path == "~":
			abs = e.home
		case strings.HasPrefix(path, "~/"):
			abs = e.home + path[1:]
		case !strings.HasPrefix(path, "/"):
			abs = e.ws + "/" + path
		}
		real, ok := physical(abs)
		switch {
		case path == "" || !ok:
			t.Fatalf("%q cannot be resolved, yet it is allowed at %v: %s", path, d.Step, d.Reason)
		case access == Write && within(real, e.state):
			t.Fatalf("%q is a write into the read-only root (%s), yet it is allowed at %v", path, real, d.Step)
		case !within(real, e.ws) && !within(real, e.state) && (!readOnly || access != Read || !fuzzSystemFile(real, e.home)):
			t.Fatalf("%q leads to %s, outside the roots, yet it is allowed at %v: %s", path, real, d.Step, d.Reason)
		}
	})
}

// fuzzSystemFile is issue 34's system read, checked its own way: a file
// every user may read below /usr, /etc and the like, or a directory below
// /usr, outside the home directory and not /etc/shadow's kind.
func fuzzSystemFile(real, home string) bool {
	fi, err := os.Stat(real)
	if err != nil || fi.Mode().Perm()&0o004 == 0 || within(real, home) {
		return false
	}
	for _, bad := range []string{"/etc/shadow", "/etc/gshadow", "/etc/sudoers", "/etc/ssl/private", "/etc/ssh/ssh_host_"} {
		if strings.HasPrefix(real, bad) {
			return false
		}
	}
	if fi.IsDir() {
		return real == "/usr" || strings.HasPrefix(real, "/usr/") || strings.HasPrefix(real, "/lib")
	}
	for _, dir := range []string{"/usr/", "/etc/", "/lib", "/bin/", "/sbin/", "/opt/", "/var/lib/", "/nix/store/", "/snap/", "/proc/cpuinfo", "/proc/meminfo"} {
		if strings.HasPrefix(real, dir) {
			return true
		}
	}
	return false
}

var compoundSeeds = [][2]string{
	{"touch a && rm b", "Bash(touch:*)"},
	{"touch a && rm b", "Bash(touch:*)\nBash(rm:*)"},
	{"ls && ls -la && lsof", "Bash(ls *)"},
	{"git log && git push", "Bash(git log:*)"},
	{"git push origin main && git merge main", "Bash(git * main)"},
	{"echo $(rm x) && ls", "Bash(echo:*)\nBash(ls)"},
	{"npm run test && npm run build", "Bash(npm run test:*)"},
	{"make  build && make", "Bash(make build)\nBash(make)"},
	{"cat f > g && echo x 2>&1", "Bash(cat:*)\nBash(echo *)"},
	{"a&&b&&c", "Bash(*)"},
}

// FuzzCompound: a compound command is allowed only if each of its parts
// would be allowed alone: allow never holds when some part is unmatched.
// And when a call is not allowed, granting its suggestions allows it.
func FuzzCompound(f *testing.F) {
	for _, s := range compoundSeeds {
		f.Add(s[0], s[1])
	}
	e := newEnv(f)
	f.Fuzz(func(t *testing.T, cmds, rules string) {
		var cfgRules []string
		for _, r := range strings.Split(rules, "\n") {
			if _, err := ParseRule(r); err == nil {
				cfgRules = append(cfgRules, "allow:"+r)
			}
		}
		p, err := New(e.cfg("default", cfgRules...))
		if err != nil {
			t.Fatalf("rules that parse do not build a policy: %v", err)
		}
		parts := strings.Split(cmds, "&&")
		d := decide(p, bash(false, parts))
		for _, part := range parts {
			alone := decide(p, bash(false, []string{part}))
			if d.Behavior == Allow && alone.Behavior != Allow {
				t.Fatalf("%q is allowed, but its part %q alone is not (%v at %v)", cmds, part, alone.Behavior, alone.Step)
			}
		}
		if d.Behavior == Allow || len(d.Suggestions) == 0 {
			return
		}
		for _, s := range d.Suggestions {
			if err := p.Grant(s); err != nil {
				t.Fatalf("suggestion %q does not parse: %v", s, err)
			}
		}
		if after := decide(p, bash(false, parts)); after.Behavior != Allow {
			t.Fatalf("%q: granting %q does not allow it: %v at %v (%s)", cmds, d.Suggestions, after.Behavior, after.Step, after.Reason)
		}
		if !slices.Equal(p.Grants(), dedupe(d.Suggestions)) {
			t.Fatalf("grants %q, suggestions %q", p.Grants(), d.Suggestions)
		}
	})
}

func dedupe(s []string) []string {
	var out []string
	for _, x := range s {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}
