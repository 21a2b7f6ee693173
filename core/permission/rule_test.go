package permission

import (
	"errors"
	"fmt"
	"os/user"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/riot-tools/riot/config"
)

func TestParseRule(t *testing.T) {
	for _, c := range []struct {
		in, tool, spec, str string
	}{
		{"Bash", "Bash", "", "Bash"},
		{"  Bash  ", "Bash", "", "Bash"},
		{"Bash(git log:*)", "Bash", "git log:*", "Bash(git log:*)"},
		{"Bash( npm run test:* )", "Bash", "npm run test:*", "Bash(npm run test:*)"},
		{"Bash(echo (a))", "Bash", "echo (a)", "Bash(echo (a))"},
		{"Bash(echo :))", "Bash", "echo :)", "Bash(echo :))"},
		{"Read(//etc/**)", "Read", "//etc/**", "Read(//etc/**)"},
		{"Read(~/.ssh/**)", "Read", "~/.ssh/**", "Read(~/.ssh/**)"},
		{"Read(~)", "Read", "~", "Read(~)"},
		{"Edit(./src/**/*.go)", "Edit", "./src/**/*.go", "Edit(./src/**/*.go)"},
		{"Read(*.env)", "Read", "*.env", "Read(*.env)"},
		{"Read({a,b}/x)", "Read", "{a,b}/x", "Read({a,b}/x)"},
		{"mcp__github__create_issue", "mcp__github__create_issue", "", "mcp__github__create_issue"},
		{"my-tool.v2", "my-tool.v2", "", "my-tool.v2"},
		{"Bash(/usr/bin/make)", "Bash", "/usr/bin/make", "Bash(/usr/bin/make)"},
		{"Bash(ls [)", "Bash", "ls [", "Bash(ls [)"}, // not a glob, but Bash's is a command
	} {
		r, err := ParseRule(c.in)
		if err != nil {
			t.Errorf("ParseRule(%q): %v", c.in, err)
			continue
		}
		if r.Tool != c.tool || r.Spec != c.spec || r.String() != c.str {
			t.Errorf("ParseRule(%q) = %q %q %q, want %q %q %q", c.in, r.Tool, r.Spec, r.String(), c.tool, c.spec, c.str)
		}
	}
}

func TestParseRuleErrors(t *testing.T) {
	for _, c := range []struct{ in, why string }{
		{"", "it is empty"},
		{"   ", "it is empty"},
		{"Bash(ls", "missing the closing parenthesis"},
		{"Bash)", "a closing parenthesis has no opening one"},
		{"(ls)", "the tool name before ( is missing"},
		{" (ls)", "the tool name before ( is missing"},
		{"Bash()", "the specifier in parentheses is empty; write Bash alone"},
		{"Bash(  )", "the specifier in parentheses is empty"},
		{"Bash(ls) x", `unexpected text " x" after the closing parenthesis`},
		{"Ba sh", `the tool name "Ba sh" may contain only letters`},
		{"Ba sh(ls)", `the tool name "Ba sh" may contain only letters`},
		{"Bash*", `may contain only letters`},
		{"Bash/x", `may contain only letters`},
		{"Bash(ls\nrm)", "control character"},
		{"\x01Bash", "control character"},
		{")Bash", "a closing parenthesis has no opening one"},
		{"Bash(ls))x", `unexpected text "x" after the closing parenthesis`},
		{"Read([)", `the path pattern "[" is not a valid glob`},
		{"Edit(./a{b)", "not a valid glob"},
		{"Read(a\\)", "not a valid glob"},
		{"Read(/etc/passwd)", `the path "/etc/passwd" is ambiguous: write //etc/passwd for the absolute path /etc/passwd, or ./etc/passwd`},
		{"Read(~bob/x)", "only ~/ (your home directory) is supported"},
	} {
		_, err := ParseRule(c.in)
		if err == nil {
			t.Errorf("ParseRule(%q) parsed", c.in)
			continue
		}
		prefix := fmt.Sprintf("permission rule %q is malformed: ", c.in)
		if !strings.HasPrefix(err.Error(), prefix) || !strings.Contains(err.Error(), c.why) {
			t.Errorf("ParseRule(%q) = %q, want %q...%q", c.in, err, prefix, c.why)
		}
	}
}

func TestNewRejectsMalformedRulesWithTheirSource(t *testing.T) {
	e := newEnv(t)
	src := config.Source{Layer: "workspace", File: "/ws/.riot/config.toml", Line: 7}
	for _, list := range []string{"allow", "ask", "deny"} {
		c := e.cfg("default")
		bad := []config.Rule{{Text: "Bash(ls", Source: src}}
		switch list {
		case "allow":
			c.Allow = bad
		case "ask":
			c.Ask = bad
		default:
			c.Deny = bad
		}
		_, err := New(c)
		var ce *config.Error
		if !errors.As(err, &ce) {
			t.Fatalf("%s: got %v, want a *config.Error", list, err)
		}
		if ce.Source != src || ce.Msg != `permission rule "Bash(ls" is malformed: missing the closing parenthesis` {
			t.Errorf("%s: got %+v", list, ce)
		}
		if got := err.Error(); got != `/ws/.riot/config.toml:7: permission rule "Bash(ls" is malformed: missing the closing parenthesis` {
			t.Errorf("%s: error text %q", list, got)
		}
	}
}

func TestNewErrors(t *testing.T) {
	e := newEnv(t)
	c := e.cfg("yolo")
	if _, err := New(c); err == nil || !strings.Contains(err.Error(), `unknown permission mode "yolo"`) {
		t.Errorf("unknown mode: %v", err)
	}
	c = e.cfg("")
	c.Roots = nil
	if _, err := New(c); err == nil || !strings.Contains(err.Error(), "no workspace root") {
		t.Errorf("no roots: %v", err)
	}
	p := mustPolicy(t, e.cfg(""))
	if p.Mode() != "default" {
		t.Errorf(`"" mode is %q, want default`, p.Mode())
	}
	symlink(t, "/nonexistent/riot-test", e.base+"/broken")
	for _, field := range []string{"roots", "readonly", "protect", "home"} {
		c := e.cfg("")
		switch field {
		case "roots":
			c.Roots = append(c.Roots, e.base+"/broken")
		case "readonly":
			c.ReadOnlyRoots = []string{e.base + "/broken"}
		case "protect":
			c.Protect = []string{e.base + "/broken/x"}
		case "home":
			c.Home = e.base + "/broken"
		}
		if _, err := New(c); err == nil || !strings.Contains(err.Error(), "cannot resolve the directory") {
			t.Errorf("%s: a broken symlink root gives %v", field, err)
		}
	}
}

func TestCommandPattern(t *testing.T) {
	for _, c := range []struct {
		spec string
		yes  []string
		no   []string
	}{
		{"git log:*", []string{"git log", "git log --oneline", "git  log   -p"}, []string{"git logx", "git", "git lo", "xgit log", "git show"}},
		{"git log *", []string{"git log", "git log --oneline"}, []string{"git logx", "git"}},
		{"npm run test:*", []string{"npm run test", "npm run test -- -v"}, []string{"npm run testx", "npm run build"}},
		{"ls*", []string{"ls", "lsof", "ls -la"}, []string{"l", "xls"}},
		{"npm test", []string{"npm test", "npm  test"}, []string{"npm test -v", "npm tes", "npm testx"}},
		{"git * main", []string{"git push origin main", "git merge main", "git  pull  x main"}, []string{"git push origin main2", "git main", "hg push main"}},
		{"a*b*c", []string{"abc", "axbyc", "abbc"}, []string{"ab", "acb", "abcx"}},
		{"*", []string{"", "anything at all"}, nil},
		{"x:*", []string{"x", "x y"}, []string{"xy", ""}},
		{"rm -rf *", []string{"rm -rf x", "rm -rf"}, []string{"rm -r x"}},
	} {
		p := compileCommand(c.spec)
		for _, s := range c.yes {
			if !p.match(s) {
				t.Errorf("%q does not match %q", c.spec, s)
			}
		}
		for _, s := range c.no {
			if p.match(s) {
				t.Errorf("%q matches %q", c.spec, s)
			}
		}
	}
	for spec, wild := range map[string]bool{"ls": false, "ls:*": true, "ls *": true, "ls*": true, "a*b": true, "git log": false} {
		if got := compileCommand(spec).wildcard(); got != wild {
			t.Errorf("wildcard(%q) = %v", spec, got)
		}
	}
}

func TestChains(t *testing.T) {
	for cmd, want := range map[string]bool{
		"ls -la":                  false,
		"npm test 2>&1":           false,
		"make >/dev/null 2>&1":    false,
		"make > /dev/null":        false,
		"make &>/dev/null":        false,
		"make 2>/dev/null":        false,
		"make 1>&2":               false,
		"make >&2":                false,
		"make 2>&-":               false,
		"ls; rm x":                true,
		"ls && rm x":              true,
		"ls || rm x":              true,
		"ls | tee f":              true,
		"echo $(rm x)":            true,
		"echo `rm x`":             true,
		"cat <(curl x)":           true,
		"echo x > ~/.bashrc":      true,
		"echo x >> f":             true,
		"echo x >/dev/nullx":      true,
		"sort < in":               true,
		"sleep 1 &":               true,
		"a\nb":                    true,
		"a\rb":                    true,
		"echo x 2>&1 > f":         true,
		"echo x >/dev/null; rm y": true,
	} {
		if got := chains(cmd); got != want {
			t.Errorf("chains(%q) = %v, want %v", cmd, got, want)
		}
	}
}

func TestCommandPrefix(t *testing.T) {
	for cmd, want := range map[string]string{
		"touch x":                 "touch",
		"touch":                   "touch",
		"":                        "",
		"git push origin main":    "git push",
		"git":                     "git",
		"git -C x status":         "git",
		"npm run test -- -v":      "npm run test",
		"npm run":                 "npm run",
		"npm run --silent build":  "npm run",
		"npm install left-pad":    "npm install",
		"cargo build --release":   "cargo build",
		"go test ./...":           "go test",
		"docker   compose up":     "docker compose",
		"make build":              "make",
		"python3 script.py":       "python3",
		"kubectl get pods -n foo": "kubectl get",
		"yarn run lint":           "yarn run lint",
		"go run .":                "go run",
	} {
		if got := commandPrefix(cmd); got != want {
			t.Errorf("commandPrefix(%q) = %q, want %q", cmd, got, want)
		}
	}
}

func TestPathSpecGlobs(t *testing.T) {
	roots := []string{"/ws", "/real/ws"}
	homes := []string{"/home/u"}
	for _, c := range []struct {
		spec string
		want []string
	}{
		{"//etc/**", []string{"/etc/**"}},
		{"//etc/../var/x", []string{"/var/x"}},
		{"~/.ssh/**", []string{"/home/u/.ssh/**"}},
		{"~", []string{"/home/u"}},
		{"~/", []string{"/home/u"}},
		{"./src/**", []string{"/ws/src/**", "/real/ws/src/**"}},
		{".", []string{"/ws", "/real/ws"}},
		{"./", []string{"/ws", "/real/ws"}},
		{"..", []string{"/", "/real"}},
		{"../x", []string{"/x", "/real/x"}},
		{"src/*.go", []string{"/ws/src/*.go", "/real/ws/src/*.go"}},
		{"src/", []string{"/**/src"}},
		{"secret.txt", []string{"/**/secret.txt"}},
		{"*.env", []string{"/**/*.env"}},
		{"**/secret.txt", []string{"/**/secret.txt"}},
		{"**", []string{"/**/**"}},
	} {
		ps, bad := Rule{Tool: "Read", Spec: c.spec}.pathSpec()
		if bad != "" {
			t.Errorf("%q: %s", c.spec, bad)
			continue
		}
		if got := ps.globs(roots, homes); !slices.Equal(got, c.want) {
			t.Errorf("%q: globs %q, want %q", c.spec, got, c.want)
		}
	}
	ps, _ := Rule{Tool: "Read", Spec: "./x"}.pathSpec()
	if got := ps.globs([]string{"/w[1]*"}, nil); !slices.Equal(got, []string{`/w\[1\]\*/x`}) {
		t.Errorf("a root's glob characters are not escaped: %q", got)
	}
	// Outside the path tools, a single slash is absolute.
	ps, bad := Rule{Tool: "Bash", Spec: "/usr/bin/x"}.pathSpec()
	if bad != "" || !slices.Equal(ps.globs(roots, homes), []string{"/usr/bin/x"}) {
		t.Errorf("Bash(/usr/bin/x): %q %q", ps.globs(roots, homes), bad)
	}
}

func TestGlobsMatch(t *testing.T) {
	for _, c := range []struct {
		glob, path string
		want       bool
	}{
		{"/ws/src", "/ws/src/a/b.go", true}, // a directory covers what it holds
		{"/ws/src", "/ws/srcx", false},
		{"/ws/src/*.go", "/ws/src/a.go", true},
		{"/ws/src/*.go", "/ws/src/sub/a.go", false},
		{"/ws/src/**", "/ws/src/sub/a.go", true},
		{"/**/secret.txt", "/a/b/secret.txt", true},
		{"/**/secret.txt", "/a/b/secret.txt/inner", true},
		{"/**/secret.txt", "/a/b/secret.txtx", false},
		{"/**/*.env", "/ws/.env", true},
		{"/", "/anything", true},
		{"/x", "/", false},
	} {
		if got := globsMatch([]string{c.glob}, c.path); got != c.want {
			t.Errorf("globsMatch(%q, %q) = %v", c.glob, c.path, got)
		}
	}
	if globsMatch(nil, "/a") {
		t.Error("no globs match a path")
	}
	if !globsMatch([]string{"/nope", "/a/*"}, "/a/b") {
		t.Error("the second glob is not tried")
	}
}

func TestNewHome(t *testing.T) {
	e := newEnv(t)
	c := e.cfg("default", "deny:Read(~/.aws/**)")
	c.Home = ""
	t.Setenv("HOME", e.home)
	p := mustPolicy(t, c)
	expect(t, decide(p, bash(true, []string{"cat ~/.aws/credentials"}, "~/.aws/credentials")), Deny, StepDenyRule)
	// Without $HOME, the user database's home, as bash expands ~; with
	// neither, see TestNoHomeNeededOnlyForTilde.
	t.Setenv("HOME", "")
	u, err := user.Current()
	if err != nil || u.HomeDir == "" {
		t.Skip("no user database entry for this user")
	}
	p = mustPolicy(t, c)
	if p.home != filepath.Clean(u.HomeDir) {
		t.Errorf("home without $HOME = %q, want the user database's %q", p.home, u.HomeDir)
	}
}

func TestToolNameCharacters(t *testing.T) {
	for _, c := range "azAZ09_-." {
		if !isToolChar(c) {
			t.Errorf("%q is not a tool name character", c)
		}
	}
	// The neighbours of each range in ASCII.
	for _, c := range "`{@[/:() *\x00é" {
		if isToolChar(c) {
			t.Errorf("%q is a tool name character", c)
		}
	}
}
