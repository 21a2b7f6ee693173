package permission

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/riot-tools/riot/config"
)

// Step 1: deny rules and the tool's own Deny.
func TestStepDenyRule(t *testing.T) {
	e := newEnv(t)
	write(t, e.ws+"/secret.txt")
	write(t, e.ws+"/src/secret.txt")
	write(t, e.ws+"/src/a.go")
	symlink(t, e.ws+"/src/a.go", e.ws+"/alias")
	for _, c := range []struct {
		name  string
		rules []string
		req   Request
		deny  bool
		rule  string
	}{
		{"a command rule", []string{"deny:Bash(rm:*)"}, bash(false, []string{"rm -rf x"}), true, "Bash(rm:*)"},
		{"any subject of a compound", []string{"deny:Bash(rm:*)"}, bash(false, []string{"ls", "rm x"}), true, "Bash(rm:*)"},
		{"no subject matches", []string{"deny:Bash(rm:*)"}, bash(false, []string{"ls", "rmdir x"}), false, ""},
		{"a bare rule of the tool", []string{"deny:Bash"}, bash(true, []string{"ls"}), true, "Bash"},
		{"a bare rule, no subjects", []string{"deny:Diagnostics"}, Request{Tool: "Diagnostics", ReadOnly: true}, true, "Diagnostics"},
		{"another tool's bare rule", []string{"deny:Grep"}, bash(true, []string{"ls"}), false, ""},
		{"another tool's command rule", []string{"deny:Other(rm:*)"}, bash(false, []string{"rm x"}), false, ""},
		{"Read rule covers Read", []string{"deny:Read(**/secret.txt)"}, readReq(e.ws + "/src/secret.txt"), true, "Read(**/secret.txt)"},
		{"Read rule covers Bash cat", []string{"deny:Read(**/secret.txt)"}, bash(true, []string{"cat secret.txt"}, e.ws+"/secret.txt"), true, "Read(**/secret.txt)"},
		{"a rule on the name of a link", []string{"deny:Read(./alias)"}, readReq(e.ws + "/alias"), true, "Read(./alias)"},
		{"a rule on the target of a link", []string{"deny:Read(./src/a.go)"}, readReq(e.ws + "/alias"), true, "Read(./src/a.go)"},
		{"Read rule covers a write", []string{"deny:Read(./secret.txt)"}, editReq(e.ws + "/secret.txt"), true, "Read(./secret.txt)"},
		{"bare Read covers Bash reads", []string{"deny:Read"}, bash(true, []string{"cat x"}, e.ws+"/x"), true, "Read"},
		{"Edit rule covers writes", []string{"deny:Edit(./src/**)"}, Request{Tool: "Write", Subjects: []Subject{{Kind: PathSubject, Value: e.ws + "/src/a", Access: Write}}}, true, "Edit(./src/**)"},
		{"Write rule covers writes", []string{"deny:Write(./src/**)"}, editReq(e.ws + "/src/a"), true, "Write(./src/**)"},
		{"Edit rule leaves reads", []string{"deny:Edit(./src/**)"}, readReq(e.ws + "/src/a"), false, ""},
		{"Grep rule leaves Read", []string{"deny:Grep(./src/**)"}, readReq(e.ws + "/src/a"), false, ""},
		{"Grep rule covers Grep", []string{"deny:Grep(./src/**)"}, Request{Tool: "Grep", ReadOnly: true, Subjects: []Subject{{Kind: PathSubject, Value: e.ws + "/src", Access: Read}}}, true, "Grep(./src/**)"},
		{"second rule", []string{"deny:Bash(git push:*)", "deny:Bash(rm:*)"}, bash(false, []string{"rm x"}), true, "Bash(rm:*)"},
		{"wildcard deny holds for chains", []string{"deny:Bash(echo:*)"}, bash(false, []string{"echo x > f"}), true, "Bash(echo:*)"},
		{"unknown subject, bare rule", []string{"deny:Bash"}, Request{Tool: "Bash", Subjects: []Subject{{Value: "?"}}}, true, "Bash"},
		{"unknown subject, spec rule", []string{"deny:Bash(rm:*)"}, Request{Tool: "Bash", Subjects: []Subject{{Value: "rm x"}}}, false, ""},
	} {
		for _, mode := range config.Modes {
			d := decide(e.policy(t, mode, c.rules...), c.req)
			if !c.deny {
				if d.Step == StepDenyRule {
					t.Errorf("%s (%s): denied by %v", c.name, mode, d.Rule)
				}
				continue
			}
			if d.Behavior != Deny || d.Step != StepDenyRule || d.Rule == nil || d.Rule.Text != c.rule {
				t.Errorf("%s (%s): got %v at %v by %v, want deny by %s", c.name, mode, d.Behavior, d.Step, d.Rule, c.rule)
			}
			if d.Rule != nil && d.Rule.Source.Name != "--deny" {
				t.Errorf("%s: the rule's source is lost: %+v", c.name, d.Rule.Source)
			}
			if !strings.Contains(d.Reason, "has been denied by the rule `"+c.rule+"`") {
				t.Errorf("%s: reason %q", c.name, d.Reason)
			}
		}
	}

	// The tool's own Deny, in every mode, before the rules.
	for _, mode := range config.Modes {
		p := e.policy(t, mode, "allow:Bash", "deny:Bash(ls)")
		r := bash(true, []string{"ls"})
		r.ToolBehavior, r.ToolReason = ToolDeny, "Refusing: the command writes to /dev/sda."
		d := decide(p, r)
		expect(t, d, Deny, StepDenyRule)
		if d.Rule != nil || d.Check != "the tool's own check" || d.Reason != r.ToolReason {
			t.Errorf("%s: tool deny: %+v", mode, d)
		}
		r.ToolReason = ""
		if d := decide(p, r); d.Reason != "The Bash tool refused this call." {
			t.Errorf("tool deny without a reason: %q", d.Reason)
		}
	}
}

// Step 2: ask rules.
func TestStepAskRule(t *testing.T) {
	e := newEnv(t)
	for _, mode := range config.Modes {
		p := e.policy(t, mode, "ask:Bash(git push:*)", "allow:Bash")
		d := decide(p, bash(false, []string{"git status", "git push origin"}))
		want := Ask
		if mode == "dontAsk" {
			want = Deny
		}
		expect(t, d, want, StepAskRule)
		if d.Rule == nil || d.Rule.Text != "Bash(git push:*)" || d.Rule.Source.Name != "--ask" {
			t.Errorf("%s: rule %+v", mode, d.Rule)
		}
		if !strings.HasPrefix(d.Reason, "The rule `Bash(git push:*)` requires the user's approval to use Bash on `git push origin`.") {
			t.Errorf("%s: reason %q", mode, d.Reason)
		}
		if mode == "dontAsk" && !strings.HasSuffix(d.Reason, "The permission mode is dontAsk, so what would be asked is denied.") {
			t.Errorf("dontAsk reason %q", d.Reason)
		}
		// An ask rule holds over a read-only call and over the tool's Allow.
		r := bash(true, []string{"git push"})
		r.ToolBehavior = ToolAllow
		expect(t, decide(p, r), want, StepAskRule)
		// A deny rule comes first.
		p = e.policy(t, mode, "ask:Bash(git push:*)", "deny:Bash(git:*)")
		expect(t, decide(p, bash(false, []string{"git push"})), Deny, StepDenyRule)
	}
	p := e.policy(t, "default", "ask:Read")
	expect(t, decide(p, readReq(e.ws+"/x")), Ask, StepAskRule)
	expect(t, decide(p, bash(true, []string{"cat x"}, e.ws+"/x")), Ask, StepAskRule)
	expect(t, decide(p, bash(true, []string{"ls"})), Allow, StepMode)
	p = e.policy(t, "default", "ask:Diagnostics")
	d := decide(p, Request{Tool: "Diagnostics", ReadOnly: true, Describe: "Check the build"})
	expect(t, d, Ask, StepAskRule)
	if d.Reason != "The rule `Diagnostics` requires the user's approval to use Diagnostics (Check the build)." {
		t.Errorf("no-subject reason %q", d.Reason)
	}
}

// Step 3: the tool's CheckPermissions.
func TestStepTool(t *testing.T) {
	e := newEnv(t)
	outside := e.out + "/x"
	for _, mode := range config.Modes {
		p := e.policy(t, mode)
		// Allow skips the safety checks: a path outside the workspace is
		// allowed. This is the documented hazard.
		r := readReq(outside)
		r.ReadOnly = false
		r.ToolBehavior, r.ToolReason = ToolAllow, "The tool vouches for this."
		d := decide(p, r)
		expect(t, d, Allow, StepTool)
		if d.Reason != "The tool vouches for this." || d.Check != "the tool's own check" {
			t.Errorf("%s: %+v", mode, d)
		}
		if len(d.Trace) != 4 || d.Trace[3].Step != StepSafety || d.Trace[3].Result != "skipped" {
			t.Errorf("%s: trace %+v", mode, d.Trace)
		}
		r.ToolReason = ""
		if d := decide(p, r); d.Reason != "The Read tool allowed this call itself." {
			t.Errorf("allow without reason: %q", d.Reason)
		}

		want := Ask
		if mode == "dontAsk" {
			want = Deny
		}
		r = bash(true, []string{"ls"})
		r.ToolBehavior, r.ToolReason = ToolAsk, "This runs a script from the network."
		d = decide(p, r)
		expect(t, d, want, StepTool)
		if !strings.HasPrefix(d.Reason, "This runs a script from the network.") {
			t.Errorf("%s: ask reason %q", mode, d.Reason)
		}
		r.ToolReason = ""
		if d := decide(p, r); !strings.HasPrefix(d.Reason, "The Bash tool requires the user's approval for this call.") {
			t.Errorf("ask without reason: %q", d.Reason)
		}
		r.ToolBehavior = ToolBehavior(42)
		d = decide(p, r)
		expect(t, d, want, StepTool)
		if !strings.Contains(d.Reason, "a permission answer riot does not know") {
			t.Errorf("unknown answer: %q", d.Reason)
		}
		// Passthrough goes on.
		r.ToolBehavior = ToolPassthrough
		if d := decide(p, r); d.Step == StepTool {
			t.Errorf("%s: passthrough decided", mode)
		}
	}
}

// Step 4: the safety checks.
func TestStepSafety(t *testing.T) {
	e := newEnv(t)
	write(t, e.ws+"/src/a.go")
	write(t, e.out+"/secret")
	write(t, e.state+"/s1/call.txt")
	symlink(t, e.out, e.ws+"/link")
	symlink(t, e.ws+"/nowhere", e.ws+"/broken")
	symlink(t, e.ws+"/.git", e.ws+"/gitlink")
	write(t, e.out+"/dir/f")
	symlink(t, e.out+"/dir", e.ws+"/src/up")
	for _, c := range []struct {
		name  string
		req   Request
		check string // "" means the step passes
	}{
		{"inside", readReq(e.ws + "/src/a.go"), ""},
		{"inside, not yet existing", editReq(e.ws + "/src/new/b.go"), ""},
		{"relative inside", readReq("src/a.go"), ""},
		{"outside", readReq(e.out + "/secret"), "outside the workspace: " + e.out + "/secret"},
		{"/etc/shadow", readReq("/etc/shadow"), "outside the workspace: /etc/shadow"},
		{"a system file read by a call that is not read-only", Request{Tool: "X", Subjects: []Subject{{Kind: PathSubject, Value: "/etc/hostname", Access: Read}}}, "outside the workspace: /etc/hostname"},
		{"a system file, read-only", readReq("/etc/hostname"), ""},
		{"dot-dot out", readReq(e.ws + "/../outside/secret"), "outside the workspace: " + e.out + "/secret"},
		{"relative dot-dot out", readReq("../outside/secret"), "outside the workspace: " + e.out + "/secret"},
		// Cleaned first, this would be src/x; the kernel takes .. from the link's target.
		{"dot-dot after a link out", readReq("src/up/../x"), "outside the workspace: " + e.out + "/x"},
		{"dot-dot after a link out, absolute", editReq(e.ws + "/src/up/../secret"), "outside the workspace: " + e.out + "/secret"},
		{"home", readReq("~/.bashrc"), "outside the workspace: " + e.home + "/.bashrc"},
		{"symlink inside pointing out", readReq(e.ws + "/link/secret"), "outside the workspace: " + e.out + "/secret"},
		{"not existing through a link out", editReq(e.ws + "/link/new"), "outside the workspace: " + e.out + "/new"},
		{"broken symlink", readReq(e.ws + "/broken"), "cannot resolve: " + e.ws + "/broken"},
		// /proc/self/cwd is riot's working directory here, not the shell's.
		{"/proc/self/cwd", readReq("/proc/self/cwd/src/a.go"), "a process's own view: /proc/self/cwd/src/a.go"},
		{"/proc/thread-self", readReq("/proc/thread-self/root" + e.ws + "/src/a.go"), "a process's own view: /proc/thread-self/root" + e.ws + "/src/a.go"},
		{"/proc/<pid>", readReq("/proc/1/cwd"), "a process's own view: /proc/1/cwd"},
		{"/dev/fd", readReq("/dev/fd/3"), "a process's own view: /dev/fd/3"},
		{"empty path", readReq(""), "a path known only when the call runs"},
		{"read the results", readReq(e.state + "/s1/call.txt"), ""},
		{"write the results", editReq(e.state + "/s1/call.txt"), "read-only root: " + e.state + "/s1/call.txt"},
		{"write .git", editReq(e.ws + "/.git/config"), "protected path: " + e.ws + "/.git/config"},
		{"write .git through a link", editReq(e.ws + "/gitlink/config"), "protected path: " + e.ws + "/.git/config"},
		{"write .env", editReq(e.ws + "/.env"), "protected path: " + e.ws + "/.env"},
		// Protected names in any case: a case-insensitive filesystem has them.
		{"write .GIT", editReq(e.ws + "/.GIT/config"), "protected path: " + e.ws + "/.GIT/config"},
		{"write .Env", editReq(e.ws + "/.Env"), "protected path: " + e.ws + "/.Env"},
		{"write .RIOT", editReq(e.ws + "/.RIOT/config.local.toml"), "protected path: " + e.ws + "/.RIOT/config.local.toml"},
		{"command names .GIT", bash(false, []string{"cp x .GIT/hooks/pre-commit"}), "protected path in command: " + e.ws + "/.GIT"},
		{"read-only call reads .git", readReq(e.ws + "/.git/config"), ""},
		{"non-read-only call reads .env", Request{Tool: "X", Subjects: []Subject{{Kind: PathSubject, Value: e.ws + "/.env", Access: Read}, {Kind: PathSubject, Value: e.ws + "/out"}}}, "protected path: " + e.ws + "/.env"},
		{"command names a protected path", bash(false, []string{"echo x >> .git/hooks/pre-commit"}), "protected path in command: " + e.ws + "/.git"},
		{"read-only command names one", bash(true, []string{"cat .git/HEAD"}), ""},
		{"unknown subject", Request{Tool: "X", Subjects: []Subject{{Value: "?"}}}, "unknown subject kind"},
		{"second subject outside", editReq(e.ws+"/a", e.out+"/b"), "outside the workspace: " + e.out + "/b"},
	} {
		for _, mode := range config.Modes {
			d := decide(e.policy(t, mode, "allow:Read", "allow:Edit", "allow:Bash", "allow:X"), c.req)
			switch {
			case mode == "bypassPermissions":
				if d.Step == StepSafety {
					t.Errorf("%s: bypass ran the safety checks: %+v", c.name, d)
				}
				if d.Trace[3].Result != "skipped" || d.Trace[3].Checked != "skipped: bypassPermissions mode" {
					t.Errorf("%s: bypass trace %+v", c.name, d.Trace[3])
				}
			case c.check == "":
				if d.Step == StepSafety {
					t.Errorf("%s (%s): %s", c.name, mode, d.Check)
				}
			default:
				want := Ask
				if mode == "dontAsk" {
					want = Deny
				}
				if d.Behavior != want || d.Step != StepSafety || !strings.HasPrefix(d.Check, c.check) {
					t.Errorf("%s (%s): %v at %v, check %q; want %v, check %q", c.name, mode, d.Behavior, d.Step, d.Check, want, c.check)
				}
			}
		}
	}

	// The reasons name the path, and where a symlink leads.
	p := e.policy(t, "default")
	if d := decide(p, readReq("/proc/self/cwd/x")); !strings.HasPrefix(d.Reason, "/proc/self/cwd/x goes through /proc/self, /proc/thread-self or /proc/<pid>, whose files and links depend on the process that opens them") {
		t.Errorf("/proc reason %q", d.Reason)
	}
	d := decide(p, readReq(e.ws+"/link/secret"))
	want := e.ws + "/link/secret (which resolves to " + e.out + "/secret) is outside the workspace roots (" + e.ws + "), so using it needs the user's approval."
	if d.Reason != want {
		t.Errorf("fence reason:\n got %q\nwant %q", d.Reason, want)
	}
	if d := decide(p, editReq(e.state+"/x")); d.Reason != e.state+"/x is in a directory riot lets tools read but not change, so writing it needs the user's approval." {
		t.Errorf("read-only reason %q", d.Reason)
	}
	if d := decide(p, editReq(e.ws+"/.git/x")); d.Reason != e.ws+"/.git/x is a protected path, so a call that may change it needs the user's approval." {
		t.Errorf("protected reason %q", d.Reason)
	}
	if d := decide(p, bash(false, []string{"rm  -rf .git"})); d.Reason != "The command `rm -rf .git` names the protected path "+e.ws+"/.git, so running it needs the user's approval." {
		t.Errorf("protected command reason %q", d.Reason)
	}
	if d := decide(p, readReq(e.ws+"/broken")); !strings.HasPrefix(d.Reason, `The path "`+e.ws+`/broken" cannot be resolved (the symlink `+e.ws+"/broken is broken") {
		t.Errorf("unresolvable reason %q", d.Reason)
	}
	if d := decide(p, Request{Tool: "X", Subjects: []Subject{{Value: "?"}}}); d.Reason != `The X tool declared a permission subject riot cannot check ("?"), so this call needs the user's approval.` {
		t.Errorf("unknown reason %q", d.Reason)
	}

	// A permission error while resolving asks, and never allows.
	f := &fakeFS{path: e.ws + "/src"}
	p, err := newPolicy(e.cfg("default", "allow:Read"), f)
	if err != nil {
		t.Fatal(err)
	}
	f.lstatErr = &fs.PathError{Op: "lstat", Path: e.ws + "/src", Err: syscall.EACCES}
	d = decide(p, readReq(e.ws+"/src/a.go"))
	expect(t, d, Ask, StepSafety)
	if !strings.HasPrefix(d.Check, "cannot resolve: "+e.ws+"/src/a.go") {
		t.Errorf("permission error check %q", d.Check)
	}

	// More roots, and a root given through a symlink.
	symlink(t, e.out, e.base+"/outlink")
	c := e.cfg("default")
	c.Roots = append(c.Roots, e.base+"/outlink")
	p = mustPolicy(t, c)
	if d := decide(p, readReq(e.out+"/secret")); d.Step == StepSafety {
		t.Errorf("an additional root is fenced out: %s", d.Check)
	}
	if d := decide(p, editReq(e.base+"/outlink/new")); d.Step == StepSafety {
		t.Errorf("a root through a symlink is fenced out: %s", d.Check)
	}
}

// Step 5: allow rules.
func TestStepAllowRule(t *testing.T) {
	e := newEnv(t)
	write(t, e.ws+"/src/a.go")
	write(t, e.ws+"/docs/x.md")
	symlink(t, e.ws+"/docs", e.ws+"/src/docs")
	for _, c := range []struct {
		name  string
		rules []string
		req   Request
		rule  string // "" means not allowed at step 5
	}{
		{"prefix rule", []string{"allow:Bash(touch:*)"}, bash(false, []string{"touch x"}), "Bash(touch:*)"},
		{"exact rule", []string{"allow:Bash(make build)"}, bash(false, []string{"make  build"}), "Bash(make build)"},
		{"exact rule, other args", []string{"allow:Bash(make build)"}, bash(false, []string{"make build -j8"}), ""},
		{"compound, both allowed", []string{"allow:Bash(touch:*)", "allow:Bash(rm:*)"}, bash(false, []string{"touch a", "rm b"}), "Bash(touch:*)"},
		{"compound, one allowed", []string{"allow:Bash(touch:*)"}, bash(false, []string{"touch a", "rm b"}), ""},
		{"bare rule", []string{"allow:Bash"}, bash(false, []string{"rm -rf x"}), "Bash"},
		{"bare rule allows chains", []string{"allow:Bash"}, bash(false, []string{"echo x > f"}), "Bash"},
		{"wildcard does not allow chains", []string{"allow:Bash(echo:*)"}, bash(false, []string{"echo x > f"}), ""},
		{"wildcard does not allow substitutions", []string{"allow:Bash(echo *)"}, bash(false, []string{"echo $(rm x)"}), ""},
		{"exact allows chains", []string{"allow:Bash(echo x > f)"}, bash(false, []string{"echo x > f"}), "Bash(echo x > f)"},
		{"wildcard allows benign redirects", []string{"allow:Bash(npm test:*)"}, bash(false, []string{"npm test 2>&1"}), "Bash(npm test:*)"},
		{"no subjects, bare rule", []string{"allow:Diagnostics"}, Request{Tool: "Diagnostics"}, "Diagnostics"},
		{"no subjects, spec rule", []string{"allow:Diagnostics(x)"}, Request{Tool: "Diagnostics"}, ""},
		{"no subjects, other tool", []string{"allow:Bash"}, Request{Tool: "Diagnostics"}, ""},
		{"command and read path: both needed", []string{"allow:Bash(cat:*)"}, bash(false, []string{"cat src/a.go > /dev/stdout"}, e.ws+"/src/a.go"), ""},
		{"command and read path: both covered", []string{"allow:Bash(cat:*)", "allow:Read(./src/**)"}, bash(false, []string{"cat src/a.go"}, e.ws+"/src/a.go"), "Bash(cat:*)"},
		{"Read allow covers other tools' reads", []string{"allow:Read(./src/**)"}, Request{Tool: "Grep", Subjects: []Subject{{Kind: PathSubject, Value: e.ws + "/src/a.go", Access: Read}}}, "Read(./src/**)"},
		{"Read allow does not cover writes", []string{"allow:Read(./src/**)"}, editReq(e.ws + "/src/a.go"), ""},
		{"Edit allow covers writes", []string{"allow:Edit(./src/**)"}, Request{Tool: "Write", Subjects: []Subject{{Kind: PathSubject, Value: e.ws + "/src/b.go", Access: Write}}}, "Edit(./src/**)"},
		{"Edit allow does not cover reads", []string{"allow:Edit(./src/**)"}, Request{Tool: "Grep", Subjects: []Subject{{Kind: PathSubject, Value: e.ws + "/src/a.go", Access: Read}}}, ""},
		{"Grep allow does not cover Read", []string{"allow:Grep(./src/**)"}, readReq(e.ws + "/src/a.go"), ""},
		{"a path rule matches the resolved path", []string{"allow:Edit(./src/**)"}, editReq(e.ws + "/src/docs/x.md"), ""},
		{"the resolved path's rule", []string{"allow:Edit(./docs/**)"}, editReq(e.ws + "/src/docs/x.md"), "Edit(./docs/**)"},
		{"every path", []string{"allow:Edit(./src/**)"}, editReq(e.ws+"/src/a.go", e.ws+"/docs/x.md"), ""},
		{"unknown subject", []string{"allow:X"}, Request{Tool: "X", Subjects: []Subject{{Value: "?"}}}, ""},
		{"another tool's rule", []string{"allow:Other(touch:*)"}, bash(false, []string{"touch x"}), ""},
		{"first matching rule", []string{"allow:Bash(git:*)", "allow:Bash(git push:*)"}, bash(false, []string{"git push"}), "Bash(git:*)"},
	} {
		// bypassPermissions skips step 4, so unknown subjects reach step 5 there.
		for _, mode := range []config.Mode{config.ModeDefault, config.ModePlan, config.ModeDontAsk} {
			d := decide(e.policy(t, mode, c.rules...), c.req)
			if c.rule == "" {
				if d.Step == StepAllowRule {
					t.Errorf("%s (%s): allowed by %s", c.name, mode, d.Rule.Text)
				}
				continue
			}
			if d.Behavior != Allow || d.Step != StepAllowRule || d.Rule == nil || d.Rule.Text != c.rule {
				t.Errorf("%s (%s): %v at %v (%s), want allow by %s", c.name, mode, d.Behavior, d.Step, d.Check, c.rule)
				continue
			}
			if d.Reason != "Allowed by the rule `"+c.rule+"`." {
				t.Errorf("%s: reason %q", c.name, d.Reason)
			}
		}
	}
	// An allow rule never overrides the fence.
	d := decide(e.policy(t, "default", "allow:Read"), readReq("/etc/shadow"))
	expect(t, d, Ask, StepSafety)
	// The trace says which rule covered what.
	d = decide(e.policy(t, "default", "allow:Bash(touch:*)"), bash(false, []string{"touch a", "rm b"}))
	if got := d.Trace[4].Checked; got != "1 allow rule; covered: `touch a` by `Bash(touch:*)`; not covered: `rm b`" {
		t.Errorf("trace %q", got)
	}
}

func TestGrants(t *testing.T) {
	e := newEnv(t)
	p := e.policy(t, "default")
	r := bash(false, []string{"touch x"})
	expect(t, decide(p, r), Ask, StepMode)
	if err := p.Grant("Bash(touch:*)"); err != nil {
		t.Fatal(err)
	}
	if err := p.Grant(" Bash( touch:* ) "); err != nil {
		t.Fatal(err)
	}
	d := decide(p, r)
	expect(t, d, Allow, StepAllowRule)
	if d.Rule.Source.Layer != "session" {
		t.Errorf("a grant's source is %+v", d.Rule.Source)
	}
	if err := p.Grant("Bash(ls"); err == nil || !strings.Contains(err.Error(), "missing the closing parenthesis") {
		t.Errorf("a malformed grant: %v", err)
	}
	if err := p.Grant("Edit(./src/**)"); err != nil {
		t.Fatal(err)
	}
	if got := p.Grants(); !slices.Equal(got, []string{"Bash(touch:*)", "Edit(./src/**)"}) {
		t.Errorf("Grants() = %q", got)
	}
	// Deny rules still win over grants.
	p = e.policy(t, "default", "deny:Bash(touch:*)")
	_ = p.Grant("Bash")
	expect(t, decide(p, r), Deny, StepDenyRule)
}

func TestHidden(t *testing.T) {
	e := newEnv(t)
	p := e.policy(t, "default", "deny:Bash", "deny:Read(./x)", "deny:Grep(./src)", "allow:Diagnostics", "ask:Grep")
	for tool, want := range map[string]bool{"Bash": true, "Read": false, "Grep": false, "Diagnostics": false, "bash": false} {
		if got := p.Hidden(tool); got != want {
			t.Errorf("Hidden(%s) = %v", tool, got)
		}
	}
}

// Step 6: the mode.
func TestStepMode(t *testing.T) {
	e := newEnv(t)
	write(t, e.ws+"/src/a.go")
	ro := bash(true, []string{"ls"})
	touch := bash(false, []string{"touch x"})
	edit := editReq(e.ws + "/src/a.go")
	mixed := Request{Tool: "Copy", Subjects: []Subject{{Kind: PathSubject, Value: e.ws + "/src/a.go", Access: Read}, {Kind: PathSubject, Value: e.ws + "/b", Access: Write}}}
	readsOnly := Request{Tool: "Check", Subjects: []Subject{{Kind: PathSubject, Value: e.ws + "/src/a.go", Access: Read}}}
	noSubjects := Request{Tool: "Diagnostics"}
	for _, c := range []struct {
		mode config.Mode
		req  Request
		want Behavior
	}{
		{"default", ro, Allow}, {"default", touch, Ask}, {"default", edit, Ask},
		{"acceptEdits", ro, Allow}, {"acceptEdits", edit, Allow}, {"acceptEdits", mixed, Allow},
		{"acceptEdits", touch, Ask}, {"acceptEdits", readsOnly, Ask}, {"acceptEdits", noSubjects, Ask},
		{"acceptEdits", Request{Tool: "Bash", Subjects: []Subject{{Kind: CommandSubject, Value: "touch x"}, {Kind: PathSubject, Value: e.ws + "/x"}}}, Ask},
		{"plan", ro, Allow}, {"plan", touch, Deny}, {"plan", edit, Deny},
		{"dontAsk", ro, Allow}, {"dontAsk", touch, Deny}, {"dontAsk", edit, Deny},
		{"bypassPermissions", ro, Allow}, {"bypassPermissions", touch, Allow}, {"bypassPermissions", edit, Allow},
		{"auto", ro, Allow}, {"auto", touch, Ask},
	} {
		d := decide(e.policy(t, c.mode), c.req)
		if d.Behavior != c.want || d.Step != StepMode || d.Mode != c.mode {
			t.Errorf("%s %s: %v at %v (%s)", c.mode, c.req.Describe, d.Behavior, d.Step, d.Reason)
		}
	}
	checkReason := func(mode config.Mode, r Request, want string) {
		t.Helper()
		if d := decide(e.policy(t, mode), r); d.Reason != want {
			t.Errorf("%s reason:\n got %q\nwant %q", mode, d.Reason, want)
		}
	}
	checkReason("default", ro, "Read-only calls are allowed in default mode.")
	checkReason("plan", ro, "Read-only calls are allowed in plan mode.")
	checkReason("default", touch, "Bash on `touch x` is not read-only and no allow rule covers it, so it needs the user's approval.")
	checkReason("dontAsk", touch, "Bash on `touch x` is not read-only and no allow rule covers it, so it needs the user's approval. The permission mode is dontAsk, so what would be asked is denied.")
	checkReason("default", Request{Tool: "Diagnostics", Describe: "Check the build"}, "Diagnostics (Check the build) is not read-only and no allow rule covers it, so it needs the user's approval.")
	checkReason("acceptEdits", edit, "File edits inside the workspace are allowed in acceptEdits mode.")
	checkReason("bypassPermissions", touch, "Allowed in bypassPermissions mode.")
	checkReason("plan", touch, planReason)
	if !strings.Contains(planReason, "You are in plan mode") || !strings.Contains(planReason, "present your plan to the user") {
		t.Errorf("the plan text does not say plan mode: %q", planReason)
	}
	// The reason names the first subject no rule covers.
	d := decide(e.policy(t, "default", "allow:Bash(touch:*)"), bash(false, []string{"touch a", "rm b"}))
	if !strings.HasPrefix(d.Reason, "Bash on `rm b` is not read-only") {
		t.Errorf("compound reason %q", d.Reason)
	}
	// Plan mode suggests nothing: the model must present its plan.
	if d := decide(e.policy(t, "plan"), touch); d.Suggest != "" || d.Suggestions != nil {
		t.Errorf("plan mode suggests %q", d.Suggest)
	}
	// The trace of the mode step.
	if d := decide(e.policy(t, "default"), ro); d.Trace[5].Checked != "mode default: the call is read-only" {
		t.Errorf("trace %q", d.Trace[5].Checked)
	}
	if d := decide(e.policy(t, "acceptEdits"), edit); d.Trace[5].Checked != "mode acceptEdits: the call is not read-only but only edits files in the workspace" {
		t.Errorf("trace %q", d.Trace[5].Checked)
	}
}

// New refuses a mode it does not know; were one to reach the mode step, a
// call that is not read-only is denied, not asked about or allowed.
func TestStepModeUnknownDenies(t *testing.T) {
	e := newEnv(t)
	p := e.policy(t, config.ModeDefault)
	p.mode = "yolo"
	d := decide(p, bash(false, []string{"touch x"}))
	if d.Behavior != Deny || d.Step != StepMode || !strings.Contains(d.Reason, `The permission mode "yolo" is unknown`) {
		t.Errorf("unknown mode: %v at %v: %s", d.Behavior, d.Step, d.Reason)
	}
}

func TestAutoMode(t *testing.T) {
	e := newEnv(t)
	touch := bash(false, []string{"touch x"})
	for _, c := range []struct {
		name   string
		cl     Classifier
		input  string
		want   Behavior
		check  string
		reason string
	}{
		{"allow", &fakeClassifier{b: Allow}, "Run touch x", Allow, "classifier: allow", "Auto mode's classifier judged this call safe."},
		{"ask", &fakeClassifier{b: Ask}, "Run touch x", Ask, "classifier: ask", "Auto mode's classifier did not judge this call safe, so it needs the user's approval."},
		{"deny verdict asks", &fakeClassifier{b: Deny}, "Run touch x", Ask, "classifier: ask", "Auto mode's classifier did not judge this call safe, so it needs the user's approval."},
		{"error", &fakeClassifier{b: Allow, err: errors.New("HTTP 500")}, "Run touch x", Ask, "classifier failed: HTTP 500", "Auto mode's classifier could not judge this call, so it needs the user's approval."},
		{"no classifier", nil, "Run touch x", Ask, "no classifier", "Auto mode has no classifier configured, so it needs the user's approval."},
		{"empty input", &fakeClassifier{b: Allow}, "", Ask, "no classifier input", "The Bash tool gives auto mode's classifier nothing to judge, so it needs the user's approval."},
	} {
		cfg := e.cfg("auto")
		cfg.Classifier = c.cl
		r := touch
		r.ClassifierInput = c.input
		d := decide(mustPolicy(t, cfg), r)
		expect(t, d, c.want, StepMode)
		if d.Check != c.check || d.Reason != c.reason {
			t.Errorf("%s: check %q reason %q", c.name, d.Check, d.Reason)
		}
		if f, ok := c.cl.(*fakeClassifier); ok && c.input != "" && (len(f.calls) != 1 || f.calls[0] != "Bash: Run touch x") {
			t.Errorf("%s: classifier called with %q", c.name, f.calls)
		}
		if f, ok := c.cl.(*fakeClassifier); ok && c.input == "" && len(f.calls) != 0 {
			t.Errorf("%s: the classifier was called with nothing to judge", c.name)
		}
	}
	// The classifier is not asked about read-only calls, nor past a rule.
	f := &fakeClassifier{b: Ask}
	cfg := e.cfg("auto", "allow:Bash(make:*)")
	cfg.Classifier = f
	p := mustPolicy(t, cfg)
	expect(t, decide(p, bash(true, []string{"ls"})), Allow, StepMode)
	expect(t, decide(p, bash(false, []string{"make"})), Allow, StepAllowRule)
	if len(f.calls) != 0 {
		t.Errorf("classifier called: %q", f.calls)
	}
}

func TestTrace(t *testing.T) {
	e := newEnv(t)
	p := e.policy(t, "default", "deny:Bash(rm:*)", "ask:Bash(git push:*)", "allow:Bash(ls:*)")
	d := decide(p, bash(false, []string{"touch x"}))
	want := []TraceStep{
		{Step: StepDenyRule, Checked: "1 deny rule and the tool's own check", Result: "pass"},
		{Step: StepAskRule, Checked: "1 ask rule", Result: "pass"},
		{Step: StepTool, Checked: "the tool's CheckPermissions: passthrough", Result: "pass"},
		{Step: StepSafety, Checked: "the workspace fence and protected paths for 1 subject", Result: "pass"},
		{Step: StepAllowRule, Checked: "1 allow rule; not covered: `touch x`", Result: "pass"},
		{Step: StepMode, Checked: "mode default: the call is not read-only", Matched: true, Result: "ask"},
	}
	if !slices.Equal(d.Trace, want) {
		t.Errorf("trace:\n got %+v\nwant %+v", d.Trace, want)
	}
	d = decide(p, bash(false, []string{"rm x"}))
	if len(d.Trace) != 1 || !d.Trace[0].Matched || d.Trace[0].Rule == nil || d.Trace[0].Rule.Text != "Bash(rm:*)" || d.Trace[0].Result != "deny" {
		t.Errorf("deny trace %+v", d.Trace)
	}
	d = decide(p, bash(false, []string{"ls", "ls -la"}))
	if got := d.Trace[4]; !got.Matched || got.Result != "allow" || got.Rule.Text != "Bash(ls:*)" ||
		got.Checked != "1 allow rule; covered: `ls` by `Bash(ls:*)`, `ls -la` by `Bash(ls:*)`" {
		t.Errorf("allow trace %+v", got)
	}
	d = decide(e.policy(t, "default", "deny:A", "deny:B"), Request{Tool: "C", Subjects: []Subject{{Kind: PathSubject, Value: e.ws}, {Kind: PathSubject, Value: e.ws}}})
	if d.Trace[0].Checked != "2 deny rules and the tool's own check" || d.Trace[3].Checked != "the workspace fence and protected paths for 2 subjects" || d.Trace[4].Checked != "0 allow rules; not covered: "+e.ws+", "+e.ws {
		t.Errorf("plural trace %+v", d.Trace)
	}
	d = decide(e.policy(t, "default"), Request{Tool: "C"})
	if d.Trace[4].Checked != "0 allow rules; not covered: the call" {
		t.Errorf("no-subject trace %q", d.Trace[4].Checked)
	}
}

func TestDecideHonoursContext(t *testing.T) {
	e := newEnv(t)
	cfg := e.cfg("auto")
	got := make(chan context.Context, 1)
	cfg.Classifier = ctxClassifier(got)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	mustPolicy(t, cfg).Decide(ctx, bash(false, []string{"touch x"}))
	if <-got != ctx {
		t.Error("the classifier does not get the caller's context")
	}
}

type ctxClassifier chan context.Context

func (c ctxClassifier) Classify(ctx context.Context, _, _ string) (Behavior, error) {
	c <- ctx
	return Ask, nil
}

// A workspace given through a symlink: rules anchored at ./ match the
// paths in both its forms.
func TestSymlinkedWorkspace(t *testing.T) {
	e := newEnv(t)
	write(t, e.ws+"/secret")
	write(t, e.home+"/.aws/credentials")
	symlink(t, e.ws, e.base+"/wslink")
	symlink(t, e.home, e.base+"/homelink")
	c := e.cfg("default", "deny:Read(./secret)", "deny:Read(~/.aws/**)", "allow:Edit(./src/**)")
	c.Roots = []string{e.base + "/wslink"}
	c.Home = e.base + "/homelink"
	p := mustPolicy(t, c)
	for _, path := range []string{e.ws + "/secret", e.base + "/wslink/secret", "secret"} {
		expect(t, decide(p, readReq(path)), Deny, StepDenyRule)
	}
	for _, path := range []string{e.home + "/.aws/credentials", e.base + "/homelink/.aws/credentials", "~/.aws/credentials"} {
		expect(t, decide(p, readReq(path)), Deny, StepDenyRule)
	}
	for _, path := range []string{e.ws + "/src/a.go", e.base + "/wslink/src/a.go", "src/a.go"} {
		expect(t, decide(p, editReq(path)), Allow, StepAllowRule)
	}
	if d := decide(p, editReq(e.ws+"/b")); d.Suggest != "Edit(./b)" {
		t.Errorf("suggestion %q", d.Suggest)
	}
	if d := decide(p, editReq(e.ws+"/.git/x")); d.Step != StepSafety {
		t.Errorf("protected through a symlinked root: %v", d.Step)
	}
}

func TestNames(t *testing.T) {
	for b, want := range map[Behavior]string{Allow: "allow", Ask: "ask", Deny: "deny", Behavior(9): "ask"} {
		if b.String() != want {
			t.Errorf("Behavior(%d) = %q", b, b.String())
		}
	}
	for s, want := range map[Step]string{StepDenyRule: "deny rules", StepAskRule: "ask rules", StepTool: "tool check",
		StepSafety: "safety checks", StepAllowRule: "allow rules", StepMode: "mode", Step(0): "unknown step"} {
		if s.String() != want {
			t.Errorf("Step(%d) = %q", s, s.String())
		}
	}
}

func TestRelativeRoot(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t)
	c := e.cfg("default", "allow:Read")
	c.Roots = []string{"testdata"}
	p := mustPolicy(t, c)
	expect(t, decide(p, readReq(filepath.Join(wd, "testdata", "x"))), Allow, StepAllowRule)
	expect(t, decide(p, readReq(filepath.Join(wd, "x"))), Ask, StepSafety)
}

// The Read deny globs reach the tools that walk trees: absolute, in both
// forms of the root, a bare rule covering everything, other tools' rules
// left out.
func TestDenyReadGlobs(t *testing.T) {
	ws := t.TempDir()
	p, err := New(Config{Roots: []string{ws}, Home: ws, Deny: []config.Rule{
		{Text: "Read(**/secret.txt)"}, {Text: "Bash(rm:*)"}, {Text: "Edit(./x)"}, {Text: "Read(//etc/shadow)"}, {Text: "Read(./private/**)"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	got := p.DenyReadGlobs()
	if !slices.Contains(got, "/etc/shadow") || !slices.Contains(got, "/**/secret.txt") || !slices.Contains(got, ws+"/private/**") {
		t.Errorf("DenyReadGlobs = %q", got)
	}
	for _, g := range got {
		if strings.Contains(g, "/x") && !strings.Contains(g, "secret") {
			t.Errorf("an Edit rule leaked into the Read deny globs: %q", got)
		}
	}
	bare, err := New(Config{Roots: []string{ws}, Home: ws, Deny: []config.Rule{{Text: "Read"}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := bare.DenyReadGlobs(); !slices.Equal(got, []string{"/**"}) {
		t.Errorf("a bare Read deny rule gives %q", got)
	}
}
