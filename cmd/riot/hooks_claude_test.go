package main_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/riot-tools/riot/internal/proctest"
)

// claudeSettings writes a Claude Code settings file at path whose one
// PreToolUse hook on Bash blocks with reason, after recording that it ran
// in the file ran.
func claudeSettings(t *testing.T, path, ran, reason string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	hook := filepath.Join(filepath.Dir(path), "block.sh")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\ncat >/dev/null\necho ran >> "+ran+"\necho \""+reason+"\" >&2\nexit 2\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	body := `{
  "permissions": {"allow": []},
  "hooks": {
    "Stop": [{"hooks": [{"type": "prompt", "prompt": "an agent's event, skipped"}]}],
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [{"type": "command", "command": "` + hook + `", "timeout": 30}]
      }
    ]
  }
}
`
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// [hooks] import_claude runs the hooks of ~/.claude/settings.json, and of
// the workspace's .claude/settings.json only once the workspace is trusted
// with that file as it is.
func TestImportClaudeHooks(t *testing.T) {
	e := newEnv(t)
	ran := filepath.Join(t.TempDir(), "ran")
	claudeSettings(t, filepath.Join(e.home, ".claude", "settings.json"), ran, "the user's Claude hook says no")
	// Off by default.
	e.riot("", "call", "Bash", `{"command":"echo ran"}`).want(t, 0, "ran")
	e.userConfig("[hooks]\nimport_claude = true\n")
	e.riot("", "call", "--mode", "bypassPermissions", "Bash", `{"command":"echo must not run"}`).want(t, 1, "the user's Claude hook says no")

	// The workspace's own file: never from an untrusted workspace.
	w := newEnv(t)
	w.userConfig("[hooks]\nimport_claude = true\n")
	wran := filepath.Join(t.TempDir(), "ran")
	claudeSettings(t, filepath.Join(w.ws, ".claude", "settings.json"), wran, "the workspace's Claude hook says no")
	r := w.riot("", "call", "Bash", `{"command":"echo went on"}`)
	r.want(t, 0, "went on")
	if exists(wran) {
		t.Fatal("an untrusted workspace's imported hook ran")
	}
	if !strings.Contains(r.stderr, ".claude/settings.json") {
		t.Fatalf("no word of the ignored hooks:\n%s", r.stderr)
	}
	// riot trust shows the hooks it is about to let run, and names the file.
	tr := w.riot("", "trust")
	tr.want(t, 0, ".claude/settings.json: now applies; it sets hooks")
	if !strings.Contains(tr.stdout, "and .claude/settings.json apply as they are now") {
		t.Fatalf("riot trust does not name the Claude settings it trusted:\n%s", tr.stdout)
	}
	w.trusted = true
	w.riot("", "call", "Bash", `{"command":"echo must not run"}`).want(t, 1, "the workspace's Claude hook says no")
	if !exists(wran) {
		t.Fatal("the trusted workspace's hook did not run")
	}
	// Changed since trusted: ignored again.
	sp := filepath.Join(w.ws, ".claude", "settings.json")
	b, _ := os.ReadFile(sp)
	if err := os.WriteFile(sp, []byte(strings.Replace(string(b), `"timeout": 30`, `"timeout": 31`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	w.riot("", "call", "Bash", `{"command":"echo went on"}`).want(t, 0, "went on")
}

// The workspace's .claude/settings.local.json, where Claude Code keeps a
// user's own uncommitted hooks, is imported and gated the same way.
func TestImportClaudeLocalHooks(t *testing.T) {
	w := newEnv(t)
	w.userConfig("[hooks]\nimport_claude = true\n")
	ran := filepath.Join(t.TempDir(), "ran")
	claudeSettings(t, filepath.Join(w.ws, ".claude", "settings.local.json"), ran, "the local Claude hook says no")
	w.riot("", "call", "Bash", `{"command":"echo went on"}`).want(t, 0, "went on")
	if exists(ran) {
		t.Fatal("an untrusted workspace's local Claude hook ran")
	}
	w.riot("", "trust").want(t, 0, ".claude/settings.local.json: now applies; it sets hooks")
	w.trusted = true
	w.riot("", "call", "Bash", `{"command":"echo must not run"}`).want(t, 1, "the local Claude hook says no")
}

// A matcher that does not compile, or a handler riot cannot run, is a
// config error naming the file and line, never a hook skipped.
func TestImportClaudeHookErrors(t *testing.T) {
	e := newEnv(t)
	e.userConfig("[hooks]\nimport_claude = true\n")
	p := filepath.Join(e.home, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ body, want string }{
		{"{\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\n        \"matcher\": \"Bash(\",\n        \"hooks\": [{\"type\": \"command\", \"command\": \"true\"}]\n      }\n    ]\n  }\n}\n", p + ":5: matcher \"Bash(\" is not a valid regular expression"},
		{"{\"hooks\": {\"PostToolUse\": [{\"matcher\": \"*\", \"hooks\": [{\"type\": \"prompt\", \"prompt\": \"x\"}]}]}}", p + ":1: a hooks.PostToolUse entry has type \"prompt\", which riot does not run"},
	} {
		if err := os.WriteFile(p, []byte(c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		e.riot("", "tools").want(t, 2, c.want)
	}
}

// Hooks fire for calls through `riot mcp` and through a session host, and
// each serves one session: SessionStart when it starts, SessionEnd when it
// ends.
func TestHookEventsOverMCPAndSessionHost(t *testing.T) {
	e := newEnv(t)
	log := filepath.Join(t.TempDir(), "log")
	e.userConfig(`[[hooks.SessionStart]]
args = ["sh", "-c", "cat >/dev/null; echo start >> ` + log + `"]

[[hooks.SessionEnd]]
args = ["sh", "-c", "cat >/dev/null; echo end >> ` + log + `"]

[[hooks.PostToolUse]]
matcher = "Bash"
command = "cat >/dev/null; echo post >> ` + log + `"
`)
	s, pid := e.connectCmd(t, nil, "--mode", "bypassPermissions")
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "Bash", Arguments: map[string]any{"command": "echo over mcp"}})
	if err != nil || res.IsError {
		t.Fatalf("Bash over MCP: %v %s", err, text(res))
	}
	_ = s.Close()
	if !proctest.WaitExit(pid, 10*time.Second) {
		t.Fatal("riot mcp did not exit")
	}
	if b, _ := os.ReadFile(log); string(b) != "start\npost\nend\n" {
		t.Fatalf("riot mcp's hooks: %q", b)
	}
	_ = os.Remove(log)

	m := startHost(t, e, "S", "--mode", "bypassPermissions")
	for range 2 {
		e.riot("", "call", "--session", "S", "--mode", "bypassPermissions", "Bash", `{"command":"echo via host"}`).want(t, 0, "via host")
	}
	if b, _ := os.ReadFile(log); string(b) != "start\npost\npost\n" {
		t.Fatalf("the session host's hooks: %q", b)
	}
	_ = m
}
