package main_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// lines is how many lines the file holds (0 when it does not exist).
func lines(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

// A hook's if is a permission rule: the hook runs on the calls it
// matches as a deny rule would (any part of a command, a path by either
// form), and its allow counts only when the rule covers the whole call,
// as an allow rule would.
func TestHookIf(t *testing.T) {
	ran := filepath.Join(t.TempDir(), "ran")
	e := hookEnv(t, map[string]string{
		"no-rm.sh": `cat >/dev/null
echo rm >> ` + ran + `
echo "rm is not allowed here; move files to trash/ instead" >&2
exit 2
`,
		"allow.sh": `cat >/dev/null
echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'
`,
		"no-src.sh": `cat >/dev/null
echo "src/ is generated; edit the templates" >&2
exit 2
`,
	}, `[[hooks.PreToolUse]]
matcher = "Bash"
if = "Bash(rm:*)"
command = "HOOKS/no-rm.sh"

[[hooks.PreToolUse]]
matcher = "Bash"
if = "Bash(touch:*)"
command = "HOOKS/allow.sh"

[[hooks.PreToolUse]]
matcher = "Write|Edit"
if = "Write(./src/**)"
command = "HOOKS/no-src.sh"
`)
	victim := e.write("victim", "x")
	e.riot("", "call", "--mode", "bypassPermissions", "Bash", `{"command":"echo fine"}`).want(t, 0, "fine")
	if n := lines(t, ran); n != 0 {
		t.Fatalf("the rm hook ran on echo: %d", n)
	}
	for _, cmd := range []string{"rm -f victim", "echo a && rm -f victim", "cd . && /bin/rm -f victim"} {
		r := e.riot("", "call", "--mode", "bypassPermissions", "Bash", `{"command":"`+cmd+`"}`)
		r.want(t, 1, "rm is not allowed here; move files to trash/ instead")
		if !exists(victim) {
			t.Fatalf("%s: the blocked command ran", cmd)
		}
	}

	// The allow speaks for touch alone, not for what a command chains.
	e.riot("", "call", "Bash", `{"command":"touch made"}`).want(t, 0)
	if !exists(filepath.Join(e.ws, "made")) {
		t.Fatal("the allowed touch did not run")
	}
	e.riot("", "call", "Bash", `{"command":"touch made2 && mv victim moved"}`).want(t, 1, "needs the user's approval")
	if !exists(victim) {
		t.Fatal("a hook whose if matched only touch allowed the mv chained to it")
	}
	e.riot("", "explain", "Bash", `{"command":"touch x && mv victim moved"}`).want(t, 0, "allow.sh", "matches only in part, so its allow counts for nothing")

	// Paths: by the rule's globs, whatever tool writes.
	for path, blocked := range map[string]bool{"src/a.go": true, "./src/deep/b.go": true, "docs/c.md": false} {
		r := e.riot("", "call", "--mode", "acceptEdits", "Write", `{"file_path":"`+path+`","content":"x"}`)
		if blocked {
			r.want(t, 1, "src/ is generated; edit the templates")
			if exists(filepath.Join(e.ws, path)) {
				t.Fatalf("%s: written", path)
			}
		} else {
			r.want(t, 0)
		}
	}
}

// A Claude Code settings file's if works the same; on an event that is
// not a tool's it is ignored, as Claude Code ignores it.
func TestImportClaudeHookIf(t *testing.T) {
	e := newEnv(t)
	e.userConfig("[hooks]\nimport_claude = true\n")
	ran := filepath.Join(t.TempDir(), "ran")
	settings := `{"hooks": {
  "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "if": "Bash(rm *)", "command": "cat >/dev/null; echo x >> ` + ran + `; echo 'no rm, says Claude' >&2; exit 2"}]}],
  "SessionStart": [{"hooks": [{"type": "command", "if": "Bash(rm *)", "command": "cat >/dev/null"}]}]
}}`
	if err := os.MkdirAll(filepath.Join(e.home, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.home, ".claude", "settings.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	victim := e.write("victim", "x")
	e.riot("", "call", "--mode", "bypassPermissions", "Bash", `{"command":"echo fine"}`).want(t, 0, "fine")
	e.riot("", "call", "--mode", "bypassPermissions", "Bash", `{"command":"rm victim"}`).want(t, 1, "no rm, says Claude")
	if n := lines(t, ran); n != 1 || !exists(victim) {
		t.Fatalf("the imported if: %d runs, victim there: %v", n, exists(victim))
	}
}

// A malformed if, or one on an event that has no call, is a config error
// naming the file and line; one naming a parameter the tool lacks is
// reported by riot config --check.
func TestHookIfConfigErrors(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{"[[hooks.PreToolUse]]\ncommand = \"x\"\nif = \"Bash(rm\"\n", `the hook's if "Bash(rm" is not a permission rule`},
		{"[[hooks.SessionStart]]\ncommand = \"x\"\nif = \"Bash(rm:*)\"\n", "sets if, which applies to the tool events only"},
	} {
		e := hookEnv(t, nil, "\n"+c.body)
		e.riot("", "tools").want(t, 2, "config.toml:", c.want)
	}
	e := hookEnv(t, nil, "[[hooks.PreToolUse]]\ncommand = \"x\"\nif = \"Bash(comand:rm*)\"\n")
	e.riot("", "config", "--check").want(t, 2, "config.toml:1", `the hook's if "Bash(comand:rm*)": Bash takes no parameter "comand"; did you mean command?`)
}

// A once hook runs once per host: once for all the calls a session host
// serves.
func TestHookOnceInSessionHost(t *testing.T) {
	ran := filepath.Join(t.TempDir(), "ran")
	e := hookEnv(t, nil, `[[hooks.PostToolUse]]
matcher = "Bash"
once = true
command = "cat >/dev/null; echo x >> `+ran+`"
`)
	startHost(t, e, "S", "--mode", "bypassPermissions")
	for range 3 {
		e.riot("", "call", "--session", "S", "--mode", "bypassPermissions", "Bash", `{"command":"echo via host"}`).want(t, 0, "via host")
	}
	if n := lines(t, ran); n != 1 {
		t.Fatalf("the once hook ran %d times in one session host", n)
	}
}

// hear is a person who waits to hear from the Notification hook that
// writes its input to fifo before answering: it keeps what the hook wrote
// in heard, and is false when nothing came within 30 s.
func hear(fifo string, heard chan string) bool {
	go func() {
		b, _ := os.ReadFile(fifo) // until the hook has written and closed it
		heard <- string(b)
	}()
	select {
	case n := <-heard:
		heard <- n
		return true
	case <-time.After(30 * time.Second):
		return false
	}
}

// Over riot mcp the client's user is asked by elicitation, and the
// Notification hook runs while that question waits: the client here
// answers only once it has heard from the hook.
func TestNotificationOverMCP(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "notify")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	e := hookEnv(t, nil, `[[hooks.Notification]]
matcher = "permission_prompt"
command = "cat > `+fifo+`"
`)
	heard := make(chan string, 1)
	s := e.connect(t, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if !hear(fifo, heard) {
				return &mcp.ElicitResult{Action: "decline"}, nil
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "allow once"}}, nil
		},
	})
	res := call(t, s, "Bash", map[string]any{"command": "touch notified"})
	if res.IsError || !exists(filepath.Join(e.ws, "notified")) {
		t.Fatalf("the call the user allowed after the notification: %s", text(res))
	}
	n := <-heard
	for _, w := range []string{`"hook_event_name":"Notification"`, `"notification_type":"permission_prompt"`, `"message":"riot needs your permission to use Bash"`} {
		if !strings.Contains(n, w) {
			t.Fatalf("the notification lacks %s: %s", w, n)
		}
	}
}

// A session host asks the client's own terminal, and its Notification
// hook runs while that question waits: the person here answers only once
// the hook has told them of it.
func TestNotificationThroughSessionHost(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "notify")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	e := hookEnv(t, nil, leakGuard+`
[[hooks.Notification]]
command = "cat > `+fifo+`"
`)
	startHost(t, e, "S")
	cmd := e.command("", "call", "--session", "S", "Bash", `{"command":"touch notified"}`)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	heard := make(chan string, 1)
	shown, stdout, code := onPty(t, cmd, func(string) string {
		if !hear(fifo, heard) {
			return "n"
		}
		return "y"
	})
	if code != 0 || !exists(filepath.Join(e.ws, "notified")) {
		t.Fatalf("the call allowed after the notification: exit %d\nterminal: %s\nstdout: %s", code, shown, stdout)
	}
	n := <-heard
	for _, w := range []string{`"hook_event_name":"Notification"`, `"notification_type":"permission_prompt"`, `"message":"riot needs your permission to use Bash"`, `"session_id":"S"`} {
		if !strings.Contains(n, w) {
			t.Fatalf("the notification lacks %s: %s", w, n)
		}
	}
}
