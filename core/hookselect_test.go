package core_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core"
)

// countLines is how many lines the file holds (0 when it does not exist).
func countLines(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

// A hook's if runs it only on the calls the rule matches, here by a
// parameter; a malformed if stops the host with where it was written.
func TestHookIfParameter(t *testing.T) {
	ran := filepath.Join(t.TempDir(), "ran")
	block := script(t, `cat >/dev/null
echo x >> `+ran+`
echo "no secrets through Echo" >&2
exit 2
`)
	hk := cmdHook("Echo", block)
	hk.If = "Echo(text:secret*)"
	h := newHost(t, withConfig(testConfig(t, func(c *config.Config) { c.Hooks.PreToolUse = []config.Hook{hk} })))
	wantResult(t, runOne(t, h, "Echo", `{"text":"hello"}`), core.StatusOK, "hello")
	if n := countLines(t, ran); n != 0 {
		t.Fatalf("the hook ran on a call its if does not match: %d runs", n)
	}
	wantResult(t, runOne(t, h, "Echo", `{"text":"secret sauce"}`), core.StatusDenied, "no secrets through Echo")
	if n := countLines(t, ran); n != 1 {
		t.Fatalf("the hook ran %d times on the matching call", n)
	}

	// A parameter the tool does not take: the host reports it, and the
	// hook runs on every call of the tool, whose allow counts for nothing.
	hk.If = "Echo(txt:secret*)"
	h = newHost(t, withConfig(testConfig(t, func(c *config.Config) { c.Hooks.PreToolUse = []config.Hook{hk} })))
	problems := h.RuleProblems()
	if len(problems) != 1 || !strings.Contains(problems[0].Error(), `the hook's if "Echo(txt:secret*)": Echo takes no parameter "txt"; did you mean text?`) {
		t.Fatalf("problems: %v", problems)
	}
	wantResult(t, runOne(t, h, "Echo", `{"text":"hello"}`), core.StatusDenied, "no secrets through Echo")

	hk.If = "Echo(text:secret"
	hk.Source = config.Source{File: "/etc/riot.toml", Line: 7}
	_, err := core.New(context.Background(), core.Options{Config: testConfig(t, func(c *config.Config) { c.Hooks.PreToolUse = []config.Hook{hk} })})
	if err == nil || !strings.Contains(err.Error(), "/etc/riot.toml:7") || !strings.Contains(err.Error(), `the hook's if "Echo(text:secret" is not a permission rule`) {
		t.Fatalf("a malformed if: %v", err)
	}
}

// A once hook runs on the first matching event of the host only.
func TestHookOnce(t *testing.T) {
	ran := filepath.Join(t.TempDir(), "ran")
	hk := cmdHook("Echo", "cat >/dev/null; echo x >> "+ran)
	hk.Once = true
	every := cmdHook("Echo", "cat >/dev/null; echo y >> "+ran)
	h := newHost(t, withConfig(testConfig(t, func(c *config.Config) { c.Hooks.PostToolUse = []config.Hook{hk, every} })))
	for range 3 {
		wantResult(t, runOne(t, h, "Echo", `{"text":"hi"}`), core.StatusOK, "hi")
	}
	if b, _ := os.ReadFile(ran); strings.Count(string(b), "x") != 1 || strings.Count(string(b), "y") != 3 {
		t.Fatalf("runs: %q", b)
	}
}

// An async hook runs in the background: the turn does not wait for it,
// its decision counts for nothing, what it says for the model comes with
// the next turn's first result (passing its budget), and Close waits for
// it.
func TestHookAsync(t *testing.T) {
	dir := t.TempDir()
	gate, done := filepath.Join(dir, "gate"), filepath.Join(dir, "done")
	if err := syscall.Mkfifo(gate, 0o600); err != nil {
		t.Fatal(err)
	}
	hk := cmdHook("Echo", script(t, `cat >/dev/null
read line < `+gate+`
echo "$line" > `+done+`
echo '{"systemMessage":"the linter finished","decision":"block","reason":"ignored","hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"lint: 3 warnings in main.go"}}'
`))
	hk.Async = true
	var once sync.Once
	told := make(chan struct{})
	logger := hclog.New(&hclog.LoggerOptions{Level: hclog.Info, Output: writerFunc(func(p []byte) {
		if strings.Contains(string(p), "the linter finished") {
			once.Do(func() { close(told) })
		}
	})})
	h := newHost(t, withConfig(testConfig(t, func(c *config.Config) { c.Hooks.PostToolUse = []config.Hook{hk} })), func(o *core.Options) { o.Logger = logger })

	ran := make(chan core.ToolResult, 1)
	go func() { ran <- runOne(t, h, "Echo", `{"text":"first"}`) }()
	select {
	case r := <-ran:
		// The hook is blocked on the gate: the turn did not wait for it,
		// and its block does not mark the result.
		wantResult(t, r, core.StatusOK, "first")
		if strings.Contains(r.Text(), "lint") {
			t.Fatalf("the first result carries the async hook's context: %q", r.Text())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the turn waited for an async hook")
	}
	w, err := os.OpenFile(gate, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = w.WriteString("released\n")
	_ = w.Close()
	<-told
	// The next turn starts after the hook spoke (it also runs the hook
	// again, which waits for the gate until Close).
	r := runOne(t, h, "Echo", `{"text":"second"}`)
	wantResult(t, r, core.StatusOK, "second", "The PostToolUse hook", "run in the background, says: lint: 3 warnings in main.go")
	if strings.Contains(r.Text(), "ignored") {
		t.Fatalf("the async hook's block reason reached the model: %q", r.Text())
	}
	_ = os.Remove(done)
	closed := make(chan struct{})
	go func() { _ = h.Close(); close(closed) }()
	// Open, the gate holds the hook until the write below.
	w, err = os.OpenFile(gate, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-closed:
		t.Fatal("Close returned while an async hook was running")
	default:
	}
	_, _ = w.WriteString("at close\n")
	_ = w.Close()
	<-closed
	if b, _ := os.ReadFile(done); string(b) != "at close\n" {
		t.Fatalf("the hook running at Close did not finish: %q", b)
	}
}
