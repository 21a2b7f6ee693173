package permission

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/riot-tools/riot/config"
)

func TestSuggest(t *testing.T) {
	e := newEnv(t)
	write(t, e.ws+"/src/a.go")
	write(t, e.ws+"/src/[x].go")
	write(t, e.out+"/o.txt")
	symlink(t, e.ws+"/src", e.ws+"/s")
	c := e.cfg("default", "allow:Bash(touch:*)")
	c.Roots = append(c.Roots, e.out)
	p := mustPolicy(t, c)
	for _, c := range []struct {
		name string
		req  Request
		want []string
	}{
		{"one word", bash(false, []string{"mkdir -p x"}), []string{"Bash(mkdir:*)"}},
		{"two words", bash(false, []string{"git push origin main"}), []string{"Bash(git push:*)"}},
		{"npm run", bash(false, []string{"npm run test -- -v"}), []string{"Bash(npm run test:*)"}},
		{"only the unmatched", bash(false, []string{"touch a", "rm b"}), []string{"Bash(rm:*)"}},
		{"several", bash(false, []string{"mkdir x", "cp a b", "mkdir y"}), []string{"Bash(mkdir:*)", "Bash(cp:*)"}},
		{"a chain needs the exact command", bash(false, []string{"echo  x > f"}), []string{"Bash(echo x > f)"}},
		{"a chain with a star cannot be ruled", bash(false, []string{"echo * > f"}), nil},
		{"one unsuggestable spoils all", bash(false, []string{"rm x", "echo * > f"}), nil},
		{"an edit", editReq(e.ws + "/src/a.go"), []string{"Edit(./src/a.go)"}},
		{"glob characters are escaped", editReq(e.ws + "/src/[x].go"), []string{`Edit(./src/\[x\].go)`}},
		{"another root", editReq(e.out + "/o.txt"), []string{"Edit(/" + e.out + "/o.txt)"}},
		{"the root itself", editReq(e.ws), []string{"Edit(.)"}},
		{"through a symlink: the real path", editReq(e.ws + "/s/a.go"), []string{"Edit(./src/a.go)"}},
		{"reads and writes", Request{Tool: "Copy", Subjects: []Subject{{Kind: PathSubject, Value: e.ws + "/src/a.go", Access: Read}, {Kind: PathSubject, Value: e.ws + "/b"}}}, []string{"Read(./src/a.go)", "Edit(./b)"}},
		{"no subjects", Request{Tool: "Diagnostics"}, []string{"Diagnostics"}},
		{"a name the parser trims", editReq(e.ws + "/trailing "), nil},
	} {
		d := decide(p, c.req)
		wantOne := ""
		if len(c.want) == 1 {
			wantOne = c.want[0]
		}
		if !slices.Equal(d.Suggestions, c.want) || d.Suggest != wantOne {
			t.Errorf("%s: suggestions %q (%q), want %q", c.name, d.Suggestions, d.Suggest, c.want)
		}
		// Each suggestion, granted, allows the call.
		if c.want != nil {
			q := mustPolicy(t, Config{Roots: []string{e.ws, e.out}, Home: e.home, Allow: []config.Rule{p.allow[0].src}})
			for _, r := range d.Suggestions {
				if err := q.Grant(r); err != nil {
					t.Fatal(err)
				}
			}
			if got := decide(q, c.req); got.Behavior != Allow || got.Step != StepAllowRule {
				t.Errorf("%s: the suggestions do not allow the call: %v at %v", c.name, got.Behavior, got.Step)
			}
		}
	}
	// Only the mode step suggests: no rule overrides the steps before it.
	for _, r := range []Request{readReq("/etc/shadow"), editReq(e.ws + "/.git/x")} {
		if d := decide(p, r); d.Suggest != "" {
			t.Errorf("%s suggests %q at %v", r.Describe, d.Suggest, d.Step)
		}
	}
	if d := decide(e.policy(t, "default", "ask:Bash(rm:*)"), bash(false, []string{"rm x"})); d.Suggest != "" {
		t.Errorf("an ask rule's decision suggests %q", d.Suggest)
	}
	if d := decide(e.policy(t, "bypassPermissions"), bash(false, []string{"rm x"})); d.Suggest != "" {
		t.Errorf("an allow suggests %q", d.Suggest)
	}
	// dontAsk and auto suggest, since an allow rule would do.
	for _, mode := range []config.Mode{config.ModeDontAsk, config.ModeAuto, config.ModeDefault} {
		if d := decide(e.policy(t, mode), bash(false, []string{"touch x"})); d.Suggest != "Bash(touch:*)" {
			t.Errorf("%s suggests %q", mode, d.Suggest)
		}
	}
}

func TestDeniedMessage(t *testing.T) {
	e := newEnv(t)
	const evasion = "Do not try to get around this with another tool or command (for example doing the same through Bash); "
	for _, c := range []struct {
		name string
		d    Decision
		want string
	}{
		{"no TTY names the rule", decide(e.policy(t, "default"), bash(false, []string{"touch x"})),
			"Permission denied: the user has not granted permission for this call. Bash on `touch x` is not read-only and no allow rule covers it, so it needs the user's approval. " +
				"The allow rule that would permit it is `Bash(touch:*)`: the user can add it with `--allow 'Bash(touch:*)'` or to [permissions] allow in their own config (~/.config/riot/config.toml), or in the workspace's .riot/config.toml followed by `riot trust` (a workspace file applies only as the user last trusted it). " +
				evasion + "ask the user to grant it, or continue without it."},
		{"several rules", decide(e.policy(t, "dontAsk"), bash(false, []string{"mkdir x", "touch x", "cp a b"})),
			"Permission denied: the user has not granted permission for this call. Bash on `mkdir x` is not read-only and no allow rule covers it, so it needs the user's approval. The permission mode is dontAsk, so what would be asked is denied. " +
				"The allow rules that would permit it are `Bash(mkdir:*)`, `Bash(touch:*)` and `Bash(cp:*)`: the user can add it with `--allow 'Bash(mkdir:*)' --allow 'Bash(touch:*)' --allow 'Bash(cp:*)'` or to [permissions] allow in their own config (~/.config/riot/config.toml), or in the workspace's .riot/config.toml followed by `riot trust` (a workspace file applies only as the user last trusted it). " +
				evasion + "ask the user to grant it, or continue without it."},
		{"a deny rule", decide(e.policy(t, "bypassPermissions", "deny:Bash(rm:*)"), bash(false, []string{"rm x"})),
			"Permission denied: Permission to use Bash on `rm x` has been denied by the rule `Bash(rm:*)`. No mode and no approval overrides a deny rule. " + evasion + "tell the user if the task cannot be done without it."},
		{"plan mode", decide(e.policy(t, "plan"), bash(false, []string{"touch x"})), planReason},
		{"the fence", decide(e.policy(t, "default"), readReq("/etc/shadow")),
			"Permission denied: the user has not granted permission for this call. /etc/shadow is outside the workspace roots (" + e.ws + "), so using it needs the user's approval. " +
				"No allow rule overrides the workspace fence: the user can add the directory as a workspace root with --add-dir or [permissions] additional_dirs, or approve the call at an interactive prompt. " +
				evasion + "ask the user to grant it, or continue without it."},
		{"an ask rule", decide(e.policy(t, "default", "ask:Bash(git push:*)"), bash(false, []string{"git push"})),
			"Permission denied: the user has not granted permission for this call. The rule `Bash(git push:*)` requires the user's approval to use Bash on `git push`. " +
				"The ask rule `Bash(git push:*)` makes the user approve each such call at an interactive prompt, and there is none. " +
				evasion + "ask the user to grant it, or continue without it."},
		{"a protected path", decide(e.policy(t, "default"), editReq(e.ws+"/.git/config")),
			"Permission denied: the user has not granted permission for this call. " + e.ws + "/.git/config is a protected path, so a call that may change it needs the user's approval. " +
				"No allow rule overrides this check; only the user's approval at an interactive prompt can. " +
				evasion + "ask the user to grant it, or continue without it."},
		{"the tool asks", decide(e.policy(t, "default"), Request{Tool: "T", ToolBehavior: ToolAsk, ToolReason: "It asks."}),
			"Permission denied: the user has not granted permission for this call. It asks. No allow rule overrides this check; only the user's approval at an interactive prompt can. " +
				evasion + "ask the user to grant it, or continue without it."},
		{"no rule can", decide(e.policy(t, "default"), bash(false, []string{"echo * > f"})),
			"Permission denied: the user has not granted permission for this call. Bash on `echo * > f` is not read-only and no allow rule covers it, so it needs the user's approval. " +
				"No single allow rule can permit it; only the user's approval at an interactive prompt can. " +
				evasion + "ask the user to grant it, or continue without it."},
		{"the user said no", Decision{Behavior: Deny, Step: StepMode, ByUser: true, Suggest: "Bash(x:*)"},
			"The user denied permission for this call, so it was not run. " + evasion + "ask the user how to proceed if you need it."},
		{"allowed", Decision{Behavior: Allow, Step: StepMode}, ""},
	} {
		if got := c.d.DeniedMessage(); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
	if got := shellQuote("Bash(echo 'a')"); got != `'Bash(echo '\''a'\'')'` {
		t.Errorf("shellQuote: %s", got)
	}
}

// answerPrompter answers as told and records the prompts.
type answerPrompter struct {
	a     Answer
	err   error
	asked int
}

func (f *answerPrompter) Prompt(context.Context, Request, Decision) (Answer, error) {
	f.asked++
	return f.a, f.err
}

func TestResolve(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name    string
		req     Request
		pr      *answerPrompter
		want    Behavior
		byUser  bool
		reason  string
		grants  []string
		written bool
	}{
		{"once", bash(false, []string{"touch x"}), &answerPrompter{a: AnswerAllowOnce}, Allow, true, "The user allowed this call once.", []string{}, false},
		{"session", bash(false, []string{"touch x", "rm y"}), &answerPrompter{a: AnswerAllowSession}, Allow, true, "The user allowed this for the session.", []string{"Bash(touch:*)", "Bash(rm:*)"}, false},
		{"always", bash(false, []string{"touch x"}), &answerPrompter{a: AnswerAllowAlways}, Allow, true, "The user allowed this from now on.", []string{"Bash(touch:*)"}, true},
		{"deny", bash(false, []string{"touch x"}), &answerPrompter{a: AnswerDeny}, Deny, true, "The user denied this call.", []string{}, false},
		{"an unknown answer denies", bash(false, []string{"touch x"}), &answerPrompter{a: Answer(9)}, Deny, true, "The user denied this call.", []string{}, false},
		{"cannot ask", bash(false, []string{"touch x"}), &answerPrompter{a: AnswerAllowOnce, err: ErrCannotAsk}, Deny, false, "Bash on `touch x` is not read-only and no allow rule covers it, so it needs the user's approval.", []string{}, false},
		{"no rule: session is once", readReq("/etc/shadow"), &answerPrompter{a: AnswerAllowSession}, Allow, true, "The user allowed this call once.", []string{}, false},
		{"no rule: always is once", readReq("/etc/shadow"), &answerPrompter{a: AnswerAllowAlways}, Allow, true, "The user allowed this call once.", []string{}, false},
	} {
		e := newEnv(t)
		p := e.policy(t, "default")
		d := decide(p, c.req)
		got, err := p.Resolve(ctx, c.pr, c.req, d)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
		if got.Behavior != c.want || got.ByUser != c.byUser || got.Reason != c.reason || got.Step != d.Step {
			t.Errorf("%s: got %v by user %v %q at %v", c.name, got.Behavior, got.ByUser, got.Reason, got.Step)
		}
		if g := p.Grants(); !slices.Equal(g, c.grants) {
			t.Errorf("%s: grants %q, want %q", c.name, g, c.grants)
		}
		data, err := os.ReadFile(e.ws + "/.riot/config.local.toml")
		if c.written != (err == nil) || c.written && !strings.Contains(string(data), `allow = ["Bash(touch:*)"]`) {
			t.Errorf("%s: config.local.toml: %q %v", c.name, data, err)
		}
		if c.pr.asked != 1 {
			t.Errorf("%s: asked %d times", c.name, c.pr.asked)
		}
	}

	e := newEnv(t)
	p := e.policy(t, "default")
	// Not an Ask: returned as it is, and nobody is asked.
	pr := &answerPrompter{a: AnswerAllowOnce}
	d := decide(p, bash(true, []string{"ls"}))
	if got, err := p.Resolve(ctx, pr, bash(true, nil), d); err != nil || got.Behavior != Allow || got.Reason != d.Reason || pr.asked != 0 {
		t.Errorf("resolving an Allow: %+v %v, asked %d", got, err, pr.asked)
	}
	// A nil prompter denies as without a terminal.
	d = decide(p, bash(false, []string{"touch x"}))
	if got, _ := p.Resolve(ctx, nil, bash(false, nil), d); got.Behavior != Deny || got.ByUser {
		t.Errorf("nil prompter: %+v", got)
	}
	if got, _ := p.Resolve(ctx, NoTTYPrompter(), bash(false, nil), d); got.Behavior != Deny || got.ByUser || !strings.Contains(got.DeniedMessage(), "`Bash(touch:*)`") {
		t.Errorf("no TTY: %+v", got)
	}
	// A rule that cannot be saved still allows, and says why.
	if err := os.WriteFile(e.ws+"/.riot", []byte("a file"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := p.Resolve(ctx, &answerPrompter{a: AnswerAllowAlways}, bash(false, nil), d)
	if got.Behavior != Allow || err == nil || !strings.HasPrefix(err.Error(), "cannot save the rule Bash(touch:*): ") {
		t.Errorf("unsaved rule: %v %v", got.Behavior, err)
	}
	if !slices.Equal(p.Grants(), []string{"Bash(touch:*)"}) {
		t.Errorf("an unsaved rule is not granted for the session: %q", p.Grants())
	}
	// A suggestion that does not parse is an error (it cannot come from
	// Decide, but a host may build decisions).
	bad := Decision{Behavior: Ask, Suggestions: []string{"Bash("}}
	if _, err := p.Resolve(ctx, &answerPrompter{a: AnswerAllowSession}, bash(false, nil), bad); err == nil {
		t.Error("a malformed suggestion is granted")
	}
	if a, err := NoTTYPrompter().Prompt(ctx, Request{}, Decision{}); a != AnswerDeny || !errors.Is(err, ErrCannotAsk) {
		t.Errorf("NoTTYPrompter: %v %v", a, err)
	}
}
