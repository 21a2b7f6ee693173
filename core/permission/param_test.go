package permission

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/riot-tools/riot/config"
)

var issueParams = []string{"repo", "title", "body", "labels", "draft", "count"}

func mcpReq(input string) Request {
	return Request{Tool: "mcp__github__create_issue", Input: json.RawMessage(input), Params: issueParams}
}

// Parameter rules on an MCP tool (no subjects): allow, ask and deny, with
// wildcards, numbers and booleans by their JSON text, objects and arrays
// only restricting, and a parameter the call does not set matching
// nothing.
func TestParamRulesOnMCPTool(t *testing.T) {
	e := newEnv(t)
	for _, tc := range []struct {
		name  string
		rules []string
		input string
		want  Behavior
		step  Step
	}{
		{"no rule asks", nil, `{"repo":"riot-tools/riot"}`, Ask, StepMode},
		{"allow by wildcard", []string{"allow:mcp__github__create_issue(repo:riot-tools/*)"}, `{"repo":"riot-tools/riot"}`, Allow, StepAllowRule},
		{"allow is anchored", []string{"allow:mcp__github__create_issue(repo:riot-tools/*)"}, `{"repo":"evil/riot-tools/x"}`, Ask, StepMode},
		{"allow exact", []string{"allow:mcp__github__create_issue(repo:riot-tools/riot)"}, `{"repo":"riot-tools/riotx"}`, Ask, StepMode},
		{"allow needs the parameter", []string{"allow:mcp__github__create_issue(title:*)"}, `{"repo":"x"}`, Ask, StepMode},
		{"null is not set", []string{"allow:mcp__github__create_issue(title:*)"}, `{"title":null}`, Ask, StepMode},
		{"server rule with a parameter", []string{"allow:mcp__github(repo:riot-tools/*)"}, `{"repo":"riot-tools/riot"}`, Allow, StepAllowRule},
		{"number by its JSON text", []string{"allow:mcp__github__create_issue(count:3)"}, `{"count":3}`, Allow, StepAllowRule},
		{"bool by its JSON text", []string{"deny:mcp__github__create_issue(draft:false)"}, `{"draft":false}`, Deny, StepDenyRule},
		{"a string true is not the bool", []string{"allow:mcp__github__create_issue(draft:true)"}, `{"draft":"true "}`, Ask, StepMode},
		{"deny wins over allow", []string{"allow:mcp__github", "deny:mcp__github__create_issue(repo:*/secret*)"}, `{"repo":"me/secret-plans"}`, Deny, StepDenyRule},
		{"deny needs the parameter set", []string{"allow:mcp__github", "deny:mcp__github__create_issue(title:*)"}, `{"repo":"x"}`, Allow, StepAllowRule},
		{"ask by parameter", []string{"allow:mcp__github", "ask:mcp__github__create_issue(title:*urgent*)"}, `{"title":"an urgent fix"}`, Ask, StepAskRule},
		{"deny an array by its text", []string{"allow:mcp__github", "deny:mcp__github__create_issue(labels:*admin*)"}, `{"labels":["x","admin"]}`, Deny, StepDenyRule},
		{"an array allows nothing", []string{"allow:mcp__github__create_issue(labels:*)"}, `{"labels":["x"]}`, Ask, StepMode},
		{"colons in the value", []string{"allow:mcp__github__create_issue(body:a:b:*)"}, `{"body":"a:b:c"}`, Allow, StepAllowRule},
		{"another tool's rule", []string{"allow:mcp__github__get_issue(repo:*)"}, `{"repo":"x"}`, Ask, StepMode},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := decide(e.policy(t, "default", tc.rules...), mcpReq(tc.input))
			expect(t, d, tc.want, tc.step)
		})
	}
}

func TestParamRuleReasonNamesTheValue(t *testing.T) {
	e := newEnv(t)
	d := decide(e.policy(t, "default", "deny:mcp__github__create_issue(repo:evil/*)"), mcpReq(`{"repo":"evil/x"}`))
	if want := `with repo "evil/x" has been denied by the rule ` + "`mcp__github__create_issue(repo:evil/*)`"; !strings.Contains(d.Reason, want) {
		t.Fatalf("reason %q lacks %q", d.Reason, want)
	}
	d = decide(e.policy(t, "default", "allow:mcp__github__create_issue(repo:riot-tools/*)"), mcpReq(`{"repo":"riot-tools/a"}`))
	if d.Rule == nil || d.Rule.Text != "mcp__github__create_issue(repo:riot-tools/*)" || !strings.Contains(d.Reason, `with repo "riot-tools/a"`) {
		t.Fatalf("%+v %q", d.Rule, d.Reason)
	}
}

// A builtin: a parameter rule restricts any call, but allows only a call
// without subjects; a Bash command still needs a command rule, so
// Bash(run_in_background:true) never allows what runs in the background.
func TestParamRulesOnBuiltins(t *testing.T) {
	e := newEnv(t)
	bashParams := []string{"command", "timeout", "description", "run_in_background"}
	bg := func(cmd string) Request {
		r := bash(false, []string{cmd})
		r.Input, r.Params = json.RawMessage(`{"command":`+quote(cmd)+`,"run_in_background":true,"timeout":30000}`), bashParams
		return r
	}
	expect(t, decide(e.policy(t, "default", "deny:Bash(run_in_background:true)"), bg("make")), Deny, StepDenyRule)
	expect(t, decide(e.policy(t, "default", "allow:Bash", "ask:Bash(timeout:3*)"), bg("make")), Ask, StepAskRule)
	expect(t, decide(e.policy(t, "default", "allow:Bash(run_in_background:true)"), bg("make")), Ask, StepMode)
	expect(t, decide(e.policy(t, "default", "allow:Bash(run_in_background:true)", "allow:Bash(make:*)"), bg("make")), Allow, StepAllowRule)
	// A tool without subjects, such as KillShell, is allowed by one.
	kill := Request{Tool: "KillShell", Input: json.RawMessage(`{"shell_id":"bash_1"}`), Params: []string{"shell_id"}}
	expect(t, decide(e.policy(t, "default", "allow:KillShell(shell_id:bash_*)"), kill), Allow, StepAllowRule)
	// Bash(timeout:*) is both the prefix rule of `timeout` commands and a
	// parameter rule: denying, it matches either; allowing, only commands.
	deny := e.policy(t, "default", "allow:Bash", "deny:Bash(timeout:*)")
	expect(t, decide(deny, bg("make")), Deny, StepDenyRule)
	plain := bash(false, []string{"timeout 5 make"})
	plain.Input, plain.Params = json.RawMessage(`{"command":"timeout 5 make"}`), bashParams
	expect(t, decide(deny, plain), Deny, StepDenyRule)
	allow := e.policy(t, "default", "allow:Bash(timeout:*)")
	expect(t, decide(allow, plain), Allow, StepAllowRule)
	expect(t, decide(allow, bg("make")), Ask, StepMode)
	// Bash(command:*) keeps its meaning, the `command` builtin.
	cmdRule := e.policy(t, "default", "allow:Bash", "deny:Bash(command:*)")
	expect(t, decide(cmdRule, bg("make")), Allow, StepAllowRule)
	cv := bash(false, []string{"command -v go"})
	cv.Input, cv.Params = json.RawMessage(`{"command":"command -v go"}`), bashParams
	expect(t, decide(cmdRule, cv), Deny, StepDenyRule)
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

// The parameters a builtin's own specifier matches are refused in the
// parameter form, which would see only their text.
func TestSpecifierParamsAreRefused(t *testing.T) {
	for text, want := range map[string]string{
		"Bash(command:rm *)":            "Write Bash(rm *)",
		"Read(file_path:/etc/*)":        "Write Read(/etc/*)",
		"Edit(file_path:src/**)":        "Edit(...) already matches file_path",
		"Grep(path:./src)":              "Write Grep(./src)",
		"Bash(command:git log:*)":       "Write Bash(git log:*)",
		"NotebookEdit(notebook_path:x)": "notebook_path",
	} {
		_, err := ParseRule(text)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "is malformed") {
			t.Errorf("%s: %v, want %q", text, err, want)
		}
	}
	for _, ok := range []string{"Bash(command:*)", "Read(file_path:*)", "Grep(-i:true)", "Bash(timeout:*)", "Bash(git log:*)", "Bash(python3:*)"} {
		if _, err := ParseRule(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
}

// A rule naming a parameter the tool does not take is a config error that
// names the rule's source and the nearest names, and the tool's calls are
// refused until it is fixed, whichever list the rule is in.
func TestParamRuleErrors(t *testing.T) {
	e := newEnv(t)
	src := config.Source{Layer: "project", File: ".riot/config.toml", Line: 7}
	for _, tc := range []struct {
		list, rule, tool string
		params           []string
		want             string // "" for no error
	}{
		{"deny", "mcp__github__create_issue(rpo:x)", "mcp__github__create_issue", issueParams, `.riot/config.toml:7: permission rule "mcp__github__create_issue(rpo:x)": mcp__github__create_issue takes no parameter "rpo"; did you mean repo? (mcp__github__create_issue takes repo, title, body, labels, draft, count)`},
		{"allow", "mcp__github__create_issue(owner:x)", "mcp__github__create_issue", issueParams, `takes no parameter "owner" (mcp__github__create_issue takes repo,`},
		{"ask", "mcp__github__create_issue(riot-tools)", "mcp__github__create_issue", issueParams, "write mcp__github__create_issue(PARAM:VALUE), such as mcp__github__create_issue(repo:*)"},
		{"ask", "mcp__github(riot-tools)", "mcp__github__create_issue", issueParams, "write mcp__github(PARAM:VALUE)"},
		{"deny", "mcp__github(owner:x)", "mcp__github__create_issue", issueParams, ""}, // another tool of the server may take it
		{"deny", "mcp__other__x(rpo:x)", "mcp__github__create_issue", issueParams, ""},
		{"deny", "Bash(timout:5)", "Bash", []string{"command", "timeout"}, `Bash takes no parameter "timout"; did you mean timeout?`},
		{"deny", "Bash(python3:*)", "Bash", []string{"command", "timeout"}, ""},
		{"deny", "Bash(git log:*)", "Bash", []string{"command", "timeout"}, ""},
		{"deny", "mcp__x__y(a:b)", "mcp__x__y", []string{}, `mcp__x__y takes no parameter "a" (mcp__x__y takes no parameters)`},
	} {
		c := e.cfg("default")
		r := config.Rule{Text: tc.rule, Source: src}
		switch tc.list {
		case "deny":
			c.Deny = append(c.Deny, r)
		case "ask":
			c.Ask = append(c.Ask, r)
		default:
			c.Allow = append(c.Allow, r)
		}
		p := mustPolicy(t, c)
		err := p.CheckTool(tc.tool, func() []string { return tc.params })
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.rule, err)
			}
			continue
		}
		var ce *config.Error
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.rule, err, tc.want)
			continue
		}
		d := decide(p, Request{Tool: tc.tool, Params: tc.params, Input: json.RawMessage(`{}`)})
		if d.Behavior != Deny || !strings.Contains(d.Reason, tc.want) || !strings.Contains(d.Reason, "Tell the user to fix the rule") {
			t.Errorf("%s: the call was %v (%s)", tc.rule, d.Behavior, d.Reason)
		}
		// Unknown parameters are not checked: nothing to check against.
		if d := decide(p, Request{Tool: tc.tool}); d.Step == StepDenyRule && d.Rule == nil && strings.Contains(d.Reason, "configuration has an error") {
			t.Errorf("%s: checked without parameters", tc.rule)
		}
	}
}

// A parameter name may hold $ and @ (Grep's -i aside, JSON names do), but
// nothing a command or a path needs first.
func TestParamSpecNames(t *testing.T) {
	for spec, ok := range map[string]bool{
		"$ref:x": true, "@type:x": true, "a.b-c_d:x": true, "-i:true": true,
		"a b:x": false, "./x:y": false, "a/b:x": false, ":x": false, "a:": false, "a": false,
	} {
		name, value, got := paramSpec(spec)
		if got != ok {
			t.Errorf("paramSpec(%q) ok = %v, want %v", spec, got, ok)
		}
		if got && name+":"+value != spec {
			t.Errorf("paramSpec(%q) = %q, %q", spec, name, value)
		}
	}
}

func TestNearestParams(t *testing.T) {
	for _, c := range []struct {
		name   string
		params []string
		want   []string
	}{
		{"txt", []string{"text", "mode"}, []string{"text"}},
		{"ab", []string{"ac", "ad", "xy"}, []string{"ac", "ad"}},
		{"mdoe", []string{"made", "mode"}, []string{"mode"}},
		{"mode", []string{"mdoe", "mode"}, []string{"mode"}},
		{"Mode", []string{"mode"}, []string{"mode"}},
		{"abcdef", []string{"uvwxyz"}, nil},
		{"abcdefghi", []string{"abcxyzghi"}, []string{"abcxyzghi"}},
		{"abcdefghi", []string{"abwxyzghi"}, nil},
		{"x", nil, nil},
	} {
		if got := nearest(c.name, c.params); !slices.Equal(got, c.want) {
			t.Errorf("nearest(%q, %q) = %q, want %q", c.name, c.params, got, c.want)
		}
	}
	if got := firstOr(nil, "name"); got != "name" {
		t.Errorf("firstOr(nil) = %q", got)
	}
	if got := firstOr([]string{"a", "b"}, "name"); got != "a" {
		t.Errorf("firstOr = %q", got)
	}
	if got := takes("T", nil); got != " (T takes no parameters)" {
		t.Errorf("takes(nil) = %q", got)
	}
}

// The message of a specifier's own parameter names what the specifier
// already matches.
func TestParamOfTheSpecifier(t *testing.T) {
	for rule, want := range map[string]string{
		"Bash(command:rm *)":  "on every simple command of the call",
		"Read(file_path:/x*)": "on every path, resolved, of the call",
	} {
		_, msg := compileParam(Rule{Tool: strings.SplitN(rule, "(", 2)[0], Spec: strings.TrimSuffix(strings.SplitN(rule, "(", 2)[1], ")")})
		if !strings.Contains(msg, want) {
			t.Errorf("%s: %q, want %q", rule, msg, want)
		}
	}
}
