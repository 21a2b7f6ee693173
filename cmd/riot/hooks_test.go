package main_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// hookEnv is an environment whose user config (trusted, as the user's own)
// holds the given hook tables, with each hook script written to the home
// directory and made executable.
func hookEnv(t *testing.T, scripts map[string]string, tables string) *env {
	t.Helper()
	e := newEnv(t)
	dir := filepath.Join(e.home, "hooks")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range scripts {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cfg := filepath.Join(e.home, ".config", "riot", "config.toml")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte(strings.ReplaceAll(tables, "HOOKS", dir)), 0o644); err != nil {
		t.Fatal(err)
	}
	return e
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// Claude Code's protocol: exit 2 blocks with stderr as the reason, in every
// mode, bypassPermissions included; nothing runs.
func TestPreToolUseExit2Blocks(t *testing.T) {
	e := hookEnv(t, map[string]string{"no-rm.sh": `input=$(cat)
case "$input" in
*'"tool_name":"Bash"'*'"command":"rm '*) echo "rm is forbidden in this repository; move files to trash/ instead" >&2; exit 2 ;;
esac
exit 0
`}, `[[hooks.PreToolUse]]
matcher = "Bash"
command = "HOOKS/no-rm.sh"
`)
	victim := e.write("victim", "x")
	for _, mode := range []string{"default", "bypassPermissions"} {
		r := e.riot("", "call", "--mode", mode, "Bash", `{"command":"rm -f victim"}`)
		r.want(t, 1, "The PreToolUse hook `"+filepath.Join(e.home, "hooks", "no-rm.sh")+"` blocked this call: rm is forbidden in this repository; move files to trash/ instead",
			"Do not try to get around it")
		if !exists(victim) {
			t.Fatalf("%s: the blocked command ran", mode)
		}
	}
	// Other calls go on.
	e.riot("", "call", "Bash", `{"command":"echo fine"}`).want(t, 0, "fine")
}

// A JSON allow stands in for the mode's Ask, but never for a deny rule.
func TestPreToolUseAllow(t *testing.T) {
	e := hookEnv(t, map[string]string{"allow-touch.sh": `cat >/dev/null
echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"touch is harmless"}}'
`}, `[[hooks.PreToolUse]]
matcher = "Bash|Grep"
command = "HOOKS/allow-touch.sh"
`)
	e.riot("", "call", "Bash", `{"command":"touch made"}`).want(t, 0)
	if !exists(filepath.Join(e.ws, "made")) {
		t.Fatal("the allowed touch did not run")
	}
	r := e.riot("", "call", "--deny", "Bash(touch:*)", "Bash", `{"command":"touch other"}`)
	r.want(t, 1, "denied by the rule `Bash(touch:*)`")
	if exists(filepath.Join(e.ws, "other")) {
		t.Fatal("a hook's allow overrode a deny rule")
	}
	// Nor a safety check: a write outside the workspace still asks, and
	// without a terminal that is a denial.
	outside := filepath.Join(t.TempDir(), "outside")
	e.riot("", "call", "Bash", fmt.Sprintf(`{"command":"echo x > %s"}`, outside)).want(t, 1, "outside the workspace")
	if exists(outside) {
		t.Fatal("a hook's allow overrode the workspace fence")
	}
	// Nor plan mode.
	e.riot("", "call", "--mode", "plan", "Bash", `{"command":"touch planned"}`).want(t, 1, "plan mode")
	// riot explain shows the hook and what it said.
	e.riot("", "explain", "Bash", `{"command":"touch x"}`).want(t, 0, "PreToolUse", "allow-touch.sh", "allow: touch is harmless", "ALLOW")
	r = e.riot("", "explain", "--no-hooks", "Bash", `{"command":"touch x"}`)
	if strings.Contains(r.stdout, "allow-touch.sh") || !strings.Contains(r.stdout, "ASK") {
		t.Fatalf("--no-hooks still ran the hook:\n%s", r.stdout)
	}
}

// updatedInput is validated and prepared again, and the chain judges the
// new input.
func TestPreToolUseUpdatedInput(t *testing.T) {
	e := hookEnv(t, map[string]string{
		"rewrite.sh": `cat >/dev/null
echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"touch pwned"}}}'
`,
		"upper.sh": `cat >/dev/null
echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"echo REWRITTEN"}}}'
`,
		"bad.sh": `cat >/dev/null
echo '{"hookSpecificOutput":{"updatedInput":{"cmd":"ls"}}}'
`,
	}, `[[hooks.PreToolUse]]
matcher = "Bash"
command = "HOOKS/rewrite.sh"

[[hooks.PostToolUse]]
matcher = "Nothing"
command = "true"
`)
	r := e.riot("", "call", "--deny", "Bash(touch:*)", "Bash", `{"command":"echo innocent"}`)
	r.want(t, 1, "denied by the rule `Bash(touch:*)`")
	if exists(filepath.Join(e.ws, "pwned")) {
		t.Fatal("the rewritten command ran past a deny rule")
	}

	e2 := hookEnv(t, map[string]string{"upper.sh": `cat >/dev/null
echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"echo REWRITTEN"}}}'
`, "bad.sh": `cat >/dev/null
echo '{"hookSpecificOutput":{"updatedInput":{"cmd":"ls"}}}'
`}, `[[hooks.PreToolUse]]
matcher = "Bash"
command = "HOOKS/upper.sh"

[[hooks.PreToolUse]]
matcher = "Grep"
command = "HOOKS/bad.sh"
`)
	e2.riot("", "call", "Bash", `{"command":"echo original"}`).want(t, 0, "REWRITTEN")
	e2.riot("", "call", "Grep", `{"pattern":"x"}`).want(t, 1, "rewrote this call's input into one the Grep tool does not take", "cmd")
}

// A hook that hangs is killed at its timeout, with everything it started;
// the call goes on, unless the hook is fail_closed.
func TestPreToolUseTimeout(t *testing.T) {
	// Sleeps of a length no other test uses, to find them afterwards.
	n := 200000 + 3*(os.Getpid()%100000)
	e := hookEnv(t, map[string]string{"hang.sh": fmt.Sprintf("cat >/dev/null\nsleep %d &\nsleep %d\n", n, n+1)},
		`[[hooks.PreToolUse]]
matcher = "Bash"
command = "HOOKS/hang.sh"
timeout = "1s"
`)
	r := e.riot("", "call", "Bash", `{"command":"echo went on"}`)
	r.want(t, 0, "went on")
	if !strings.Contains(r.stderr, "timed out after 1 s") {
		t.Fatalf("no warning for the user:\n%s", r.stderr)
	}
	assertNoProcess(t, fmt.Sprintf("sleep %d", n))
	assertNoProcess(t, fmt.Sprintf("sleep %d", n+1))

	closed := hookEnv(t, map[string]string{"hang.sh": fmt.Sprintf("cat >/dev/null\nsleep %d\n", n+2)},
		`[[hooks.PreToolUse]]
command = "HOOKS/hang.sh"
timeout = "1s"
fail_closed = true
`)
	closed.riot("", "call", "Bash", `{"command":"echo must not run"}`).want(t, 1, "hang.sh", "timed out after 1 s", "fail_closed")
	assertNoProcess(t, fmt.Sprintf("sleep %d", n+2))
}

// assertNoProcess fails if a process whose command line holds pattern is
// alive.
func assertNoProcess(t *testing.T, pattern string) {
	t.Helper()
	ents, _ := os.ReadDir("/proc")
	for _, ent := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", ent.Name(), "cmdline"))
		if err != nil {
			continue
		}
		cmd := strings.ReplaceAll(string(b), "\x00", " ")
		if strings.Contains(cmd, pattern) {
			t.Errorf("process %s left running: %s", ent.Name(), cmd)
		}
	}
}

// PostToolUse hooks see the result; their additionalContext reaches the
// model after the content, and a block marks the result.
func TestPostToolUse(t *testing.T) {
	e := hookEnv(t, map[string]string{
		"context.sh": `input=$(cat)
case "$input" in
*'"hook_event_name":"PostToolUse"'*'"status":"ok"'*'hello from bash'*) ;;
*) echo "unexpected input: $input" >&2; exit 1 ;;
esac
echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"Remember to run the tests."}}'
`,
		"block.sh": `cat >/dev/null
echo '{"decision":"block","reason":"the output mentions a secret"}'
`,
	}, `[[hooks.PostToolUse]]
matcher = "Bash"
command = "HOOKS/context.sh"

[[hooks.PostToolUse]]
matcher = "Read"
command = "HOOKS/block.sh"
`)
	r := e.riot("", "call", "Bash", `{"command":"echo hello from bash"}`)
	r.want(t, 0, "hello from bash\nRemember to run the tests.")
	e.write("a.txt", "alpha\n")
	e.riot("", "call", "Read", `{"file_path":"a.txt"}`).want(t, 1, "alpha", "The PostToolUse hook", "flagged this result: the output mentions a secret")
	// In a turn, the results keep their places and the flag its call.
	out := e.riot(`[{"type":"tool_use","id":"a","name":"Read","input":{"file_path":"a.txt"}},{"type":"tool_use","id":"b","name":"Bash","input":{"command":"echo hello from bash"}}]`, "run")
	out.want(t, 0)
	var results []struct {
		ID      string `json:"tool_use_id"`
		Content any    `json:"content"`
		IsError bool   `json:"is_error"`
	}
	if err := json.Unmarshal([]byte(out.stdout), &results); err != nil || len(results) != 2 {
		t.Fatalf("run output: %v\n%s", err, out.stdout)
	}
	if !results[0].IsError || results[1].IsError || !strings.Contains(fmt.Sprint(results[1].Content), "Remember to run the tests.") {
		t.Fatalf("results: %+v", results)
	}
}

// Hooks are in the core, so calls arriving through `riot mcp` meet them too.
func TestHooksApplyOverMCP(t *testing.T) {
	e := hookEnv(t, map[string]string{"no-bash.sh": `cat >/dev/null
echo "no shell over MCP" >&2
exit 2
`}, `[[hooks.PreToolUse]]
matcher = "Bash"
command = "HOOKS/no-bash.sh"
`)
	s := e.connect(t, nil, "--mode", "bypassPermissions")
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "Bash", Arguments: map[string]any{"command": "touch over-mcp"}})
	if err != nil || !res.IsError || !strings.Contains(text(res), "no shell over MCP") {
		t.Fatalf("Bash over MCP: %v %s", err, text(res))
	}
	if exists(filepath.Join(e.ws, "over-mcp")) {
		t.Fatal("a blocked call ran over MCP")
	}
}

// A bad hook table is a config error naming the file and line.
func TestHookConfigErrors(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{"[[hooks.PreToolUse]]\nmatcher = \"Bash\"\n", "needs a command"},
		{"[[hooks.PreToolUse]]\ncommand = \"x\"\nmatcher = \"(\"\n", "not a valid regular expression"},
		{"[[hooks.PreToolUse]]\ncommand = \"x\"\ntimeout = \"0s\"\n", "more than zero"},
		{"[[hooks.PreToolUse]]\ncommand = \"x\"\nfail_close = true\n", `did you mean "fail_closed"`},
		{"[[hooks.PreToolUsr]]\ncommand = \"x\"\n", `did you mean "PreToolUse"`},
	} {
		e := hookEnv(t, nil, "\n"+c.body)
		e.riot("", "tools").want(t, 2, "config.toml:", c.want)
	}
}
