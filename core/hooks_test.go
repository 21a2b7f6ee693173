package core_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core"
)

// hookScript writes an executable hook script and returns its path.
func hookScript(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "hook.sh")
	if err := os.WriteFile(p, []byte("#!/bin/sh\ncat >/dev/null\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func preHooks(t *testing.T, bodies ...string) *config.Config {
	return testConfig(t, func(c *config.Config) {
		for _, b := range bodies {
			c.Hooks.PreToolUse = append(c.Hooks.PreToolUse, config.Hook{Matcher: "Echo", Command: hookScript(t, b), Timeout: 10 * time.Second})
		}
	})
}

const (
	hookAllow = `echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'`
	hookAsk   = `echo '{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"a person must look"}}'`
	hookDeny  = `echo '{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"policy says no"}}'`
)

// Several matching hooks run, and their answers combine deny over ask over
// allow, whatever their order.
func TestHooksCombine(t *testing.T) {
	for _, c := range []struct {
		name   string
		hooks  []string
		status core.Status
		want   string
	}{
		{"deny wins over allow", []string{hookAllow, hookDeny}, core.StatusDenied, "policy says no"},
		{"deny wins over ask", []string{hookDeny, hookAsk}, core.StatusDenied, "policy says no"},
		{"ask wins over allow", []string{hookAllow, hookAsk}, core.StatusDenied, "a person must look"},
		{"the old block form denies", []string{hookAllow, `echo '{"decision":"block","reason":"old style"}'`}, core.StatusDenied, "old style"},
		{"a failed hook does not decide", []string{"exit 7", hookAllow}, core.StatusOK, "hi"},
		{"plain output is no decision", []string{"echo just a log line"}, core.StatusOK, "hi"},
		{"an unknown decision is a failure, not an allow", []string{`echo '{"hookSpecificOutput":{"permissionDecision":"yes"}}'`}, core.StatusOK, "hi"},
		{"different rewrites run neither", []string{
			`echo '{"hookSpecificOutput":{"updatedInput":{"text":"one"}}}'`,
			`echo '{"hookSpecificOutput":{"updatedInput":{"text":"two"}}}'`,
		}, core.StatusDenied, "rewrote this call's input in different ways"},
		{"equal rewrites agree", []string{
			`echo '{"hookSpecificOutput":{"updatedInput":{"text":"same"}}}'`,
			`echo '{"hookSpecificOutput":{"updatedInput":{ "text" : "same" }}}'`,
		}, core.StatusOK, "same"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHost(t, withConfig(preHooks(t, c.hooks...)))
			r := runOne(t, h, "Echo", `{"text":"hi"}`)
			if r.Status != c.status || !strings.Contains(r.Text(), c.want) {
				t.Fatalf("got %s: %q; want %s with %q", r.Status, r.Text(), c.status, c.want)
			}
		})
	}
}

// A hook that is not matched does not run; matchers are anchored.
func TestHookMatchers(t *testing.T) {
	for _, c := range []struct {
		matcher string
		runs    bool
	}{{"Echo", true}, {"*", true}, {"", true}, {"Ech", false}, {"E.*", true}, {"Bash|Echo", true}, {"Bash|Read", false}} {
		h := config.Hook{Matcher: c.matcher, Command: "x"}
		if got := h.Matches("Echo"); got != c.runs {
			t.Errorf("matcher %q on Echo: %v, want %v", c.matcher, got, c.runs)
		}
	}
}
