package core_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core"
)

// A parameter rule that does not fit its tool is reported when the host
// starts, before any call of the tool: logged once (stderr for the CLI),
// and by RuleProblems, naming the rule's file and line.
func TestRuleProblemsAtStart(t *testing.T) {
	var mu sync.Mutex
	var logged strings.Builder
	cfg := testConfig(t, func(c *config.Config) {
		c.Permissions.Deny = append(c.Permissions.Deny, config.Rule{Text: "Echo(txt:rm *)", Source: config.Source{Layer: "project", File: ".riot/config.toml", Line: 3}})
		c.Permissions.Allow = append(c.Permissions.Allow, config.Rule{Text: "Echo(text:hi*)", Source: config.Source{Layer: "project", File: ".riot/config.toml", Line: 4}})
	})
	h := newHost(t, withConfig(cfg), func(o *core.Options) {
		o.Logger = hclog.New(&hclog.LoggerOptions{Output: writerFunc(func(p []byte) { mu.Lock(); logged.Write(p); mu.Unlock() }), Level: hclog.Warn})
	})
	want := `.riot/config.toml:3: permission rule "Echo(txt:rm *)": Echo takes no parameter "txt"; did you mean text?`
	problems := h.RuleProblems()
	if len(problems) != 1 || !strings.Contains(problems[0].Error(), want) {
		t.Fatalf("RuleProblems = %v, want one with %q", problems, want)
	}
	mu.Lock()
	defer mu.Unlock()
	if n := strings.Count(logged.String(), want); n != 1 {
		t.Fatalf("logged %d times, want once:\n%s", n, logged.String())
	}
	if !strings.Contains(logged.String(), "each call of the tool is refused until it is fixed") {
		t.Fatalf("the warning does not say what the rule does:\n%s", logged.String())
	}
}

// Rules that fit report nothing.
func TestRuleProblemsNone(t *testing.T) {
	cfg := testConfig(t, func(c *config.Config) {
		c.Permissions.Allow = append(c.Permissions.Allow, config.Rule{Text: "Echo(text:hi*)"}, config.Rule{Text: "Bash(python3:*)"})
	})
	if p := newHost(t, withConfig(cfg)).RuleProblems(); len(p) != 0 {
		t.Fatalf("RuleProblems = %v", p)
	}
}

// An MCP tool's rule is checked against the tools its server lists.
func TestRuleProblemsMCP(t *testing.T) {
	h := paramRuleHost(t, "allow:mcp__srv", "deny:mcp__srv__echo(txt:rm *)")
	want := `.riot/config.toml:2: permission rule "mcp__srv__echo(txt:rm *)": mcp__srv__echo takes no parameter "txt"; did you mean text?`
	if p := h.RuleProblems(); len(p) != 1 || !strings.Contains(p[0].Error(), want) {
		t.Fatalf("RuleProblems = %v, want one with %q", p, want)
	}
}
