package core_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

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

// script writes an executable hook script with body as it is (it reads
// stdin itself) and returns its path.
func script(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "hook.sh")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func cmdHook(matcher, command string) config.Hook {
	return config.Hook{Matcher: matcher, Command: command, Timeout: 10 * time.Second}
}

// defer is no opinion: the chain decides, and it outranks another hook's
// allow; an ask still outranks it.
func TestPreToolUseDefer(t *testing.T) {
	const deferOut = `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"defer"}}'`
	h := newHost(t, withConfig(preHooks(t, deferOut)))
	wantResult(t, runOne(t, h, "Echo", `{"text":"hi"}`), core.StatusOK, "hi")
	// Echo asks by an ask rule; with nobody to ask, that is a denial: an
	// allow beside a defer does not stand in for the user.
	cfg := preHooks(t, hookAllow, deferOut)
	cfg.Permissions.Ask = []config.Rule{{Text: "Echo"}}
	wantResult(t, runOne(t, newHost(t, withConfig(cfg)), "Echo", `{"text":"hi"}`), core.StatusDenied)
	cfg = preHooks(t, hookAllow)
	cfg.Permissions.Ask = []config.Rule{{Text: "Echo"}}
	wantResult(t, runOne(t, newHost(t, withConfig(cfg)), "Echo", `{"text":"hi"}`), core.StatusDenied, "Echo")
}

// updatedToolOutput replaces what the model sees, and the budget applies
// to the replacement; additionalContext follows it; systemMessage goes
// to the user only.
func TestPostToolUseUpdatedOutput(t *testing.T) {
	replace := script(t, `cat >/dev/null
echo '{"systemMessage":"for the user only","hookSpecificOutput":{"hookEventName":"PostToolUse","updatedToolOutput":"REDACTED","additionalContext":"checked by the hook"}}'
`)
	var logged strings.Builder
	var mu sync.Mutex
	cfg := testConfig(t, func(c *config.Config) { c.Hooks.PostToolUse = []config.Hook{cmdHook("Echo", replace)} })
	h := newHost(t, withConfig(cfg), func(o *core.Options) {
		o.Logger = hclog.New(&hclog.LoggerOptions{Output: writerFunc(func(p []byte) { mu.Lock(); logged.Write(p); mu.Unlock() }), Level: hclog.Info})
	})
	r := runOne(t, h, "Echo", `{"text":"the secret 12345"}`)
	wantResult(t, r, core.StatusOK, "REDACTED\nchecked by the hook")
	if strings.Contains(r.Text(), "12345") || strings.Contains(r.Text(), "for the user only") {
		t.Fatalf("the model sees the original or the user's message: %q", r.Text())
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(logged.String(), "for the user only") {
		t.Fatalf("the systemMessage did not reach the user:\n%s", logged.String())
	}

	// A replacement over the budget is spilled like any output.
	big := script(t, `cat >/dev/null
printf '{"hookSpecificOutput":{"updatedToolOutput":"'
head -c 120000 /dev/zero | tr '\0' 'x'
printf '"}}'
`)
	h = newHost(t, withConfig(testConfig(t, func(c *config.Config) { c.Hooks.PostToolUse = []config.Hook{cmdHook("Echo", big)} })))
	r = runOne(t, h, "Echo", `{"text":"small"}`)
	wantResult(t, r, core.StatusOK, "too large for the context")
	if n := len(r.Text()); n > 10_000 || r.Spill == nil {
		t.Fatalf("the replaced output passed the budget: %d chars, spill %v", n, r.Spill)
	}
	// So is additional context.
	huge := script(t, `cat >/dev/null
printf '{"hookSpecificOutput":{"additionalContext":"'
head -c 120000 /dev/zero | tr '\0' 'y'
printf '"}}'
`)
	h = newHost(t, withConfig(testConfig(t, func(c *config.Config) { c.Hooks.PostToolUse = []config.Hook{cmdHook("Echo", huge)} })))
	r = runOne(t, h, "Echo", `{"text":"small"}`)
	if n := len(r.Text()); n > 10_000 || !strings.Contains(r.Text(), "small") {
		t.Fatalf("a hook's context passed the budget: %d chars:\n%.300s", n, r.Text())
	}
}

type writerFunc func([]byte)

func (f writerFunc) Write(p []byte) (int, error) { f(p); return len(p), nil }

// continue: false stops the rest of the turn with the hook's reason; the
// call it ran on keeps its result.
func TestHookContinueFalse(t *testing.T) {
	stop := script(t, `cat >/dev/null
echo '{"continue":false,"stopReason":"the build is red"}'
`)
	h := newHost(t, withConfig(testConfig(t, func(c *config.Config) { c.Hooks.PostToolUse = []config.Hook{cmdHook("Noop", stop)} })))
	rs := h.RunTurn(context.Background(), []core.ToolUse{use("a", "Noop", `{}`), use("b", "Echo", `{"text":"later"}`)})
	wantResult(t, rs[0], core.StatusOK)
	wantResult(t, rs[1], core.StatusCancelled, "stopped this turn", "the build is red")

	h = newHost(t, withConfig(testConfig(t, func(c *config.Config) { c.Hooks.PreToolUse = []config.Hook{cmdHook("Noop", stop)} })))
	rs = h.RunTurn(context.Background(), []core.ToolUse{use("a", "Echo", `{"text":"first"}`), use("b", "Noop", `{}`), use("c", "Echo", `{"text":"later"}`)})
	wantResult(t, rs[0], core.StatusOK, "first")
	wantResult(t, rs[1], core.StatusDenied, "stopped this turn: the build is red")
	wantResult(t, rs[2], core.StatusCancelled, "the build is red")
}

// PostToolUseFailure sees failed, denied and cancelled calls with their
// status and reason; what it adds reaches the model. PostToolUse does not
// run on them.
func TestPostToolUseFailure(t *testing.T) {
	seen := filepath.Join(t.TempDir(), "seen")
	fail := script(t, `input=$(cat)
printf '%s\n' "$input" >> `+seen+`
echo '{"hookSpecificOutput":{"hookEventName":"PostToolUseFailure","additionalContext":"see the runbook"}}'
`)
	post := script(t, "cat >/dev/null\necho post >> "+seen+"\n")
	cfg := testConfig(t, func(c *config.Config) {
		c.Hooks.PostToolUseFailure = []config.Hook{cmdHook("*", fail)}
		c.Hooks.PostToolUse = []config.Hook{cmdHook("Fail", post)}
		c.Permissions.Deny = []config.Rule{{Text: "Noop"}}
	})
	h := newHost(t, withConfig(cfg))
	rs := h.RunTurn(context.Background(), []core.ToolUse{use("a", "Noop", `{}`), use("b", "Fail", `{"message":"disk full","safe":true}`)})
	wantResult(t, rs[0], core.StatusDenied, "see the runbook")
	wantResult(t, rs[1], core.StatusFailed, "disk full", "see the runbook")
	b, _ := os.ReadFile(seen)
	for _, want := range []string{`"hook_event_name":"PostToolUseFailure"`, `"status":"denied"`, `"status":"failed"`, `"error":"`, `disk full`, `"is_interrupt":false`} {
		if !strings.Contains(string(b), want) {
			t.Fatalf("the hook's input lacks %s:\n%s", want, b)
		}
	}
	if strings.Contains(string(b), "post") {
		t.Fatal("PostToolUse ran on a failed call")
	}
}

// A hung or crashing hook is ignored, with a warning, unless it is
// fail_closed, which blocks.
func TestHookFailuresFailClosed(t *testing.T) {
	for _, c := range []struct{ name, body string }{
		{"crash", "cat >/dev/null\nkill -9 $$\n"},
		{"exit 1", "cat >/dev/null\necho broken >&2\nexit 1\n"},
		{"bad JSON", "cat >/dev/null\necho '{not json'\n"},
		{"hang", "cat >/dev/null\nexec sleep 30\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			hk := cmdHook("Echo", script(t, c.body))
			hk.Timeout = time.Second
			h := newHost(t, withConfig(testConfig(t, func(cf *config.Config) { cf.Hooks.PreToolUse = []config.Hook{hk} })))
			wantResult(t, runOne(t, h, "Echo", `{"text":"went on"}`), core.StatusOK, "went on")
			hk.FailClosed = true
			h = newHost(t, withConfig(testConfig(t, func(cf *config.Config) { cf.Hooks.PreToolUse = []config.Hook{hk} })))
			wantResult(t, runOne(t, h, "Echo", `{"text":"must not run"}`), core.StatusDenied, "fail_closed")
		})
	}
}

// The exec form runs a program with its arguments and no shell: nothing
// in them is expanded.
func TestHookExecForm(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	prog := script(t, `cat >/dev/null
printf '%s|' "$@" > `+out+`
`)
	hk := config.Hook{Matcher: "Echo", Args: []string{prog, "a b", "$(touch pwned);", "`id`"}, Timeout: 10 * time.Second}
	cfg := testConfig(t, func(c *config.Config) { c.Hooks.PreToolUse = []config.Hook{hk} })
	h := newHost(t, withConfig(cfg))
	wantResult(t, runOne(t, h, "Echo", `{"text":"x"}`), core.StatusOK)
	b, _ := os.ReadFile(out)
	if string(b) != "a b|$(touch pwned);|`id`|" {
		t.Fatalf("args = %q", b)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(cfg.StateDir), "pwned")); err == nil {
		t.Fatal("an argument was run by a shell")
	}
}

// An HTTP hook gets the event as a POST of JSON with its headers, and its
// answer decides as a command's would; it reaches loopback only, or what
// the network policy allows.
func TestHTTPHook(t *testing.T) {
	t.Setenv("RIOT_TEST_HOOK_TOKEN", "s3cret")
	got := make(chan string, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- r.Header.Get("Authorization") + " " + r.Header.Get("X-Other") + " " + string(b)
		if strings.Contains(string(b), `"text":"no"`) {
			_, _ = io.WriteString(w, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"the server says no"}}`)
			return
		}
		if strings.Contains(string(b), `"text":"500"`) {
			w.WriteHeader(500)
			return
		}
	}))
	defer srv.Close()
	hk := config.Hook{Matcher: "Echo", Type: "http", URL: srv.URL + "/hook", Timeout: 10 * time.Second,
		Headers:        map[string]string{"Authorization": "Bearer $RIOT_TEST_HOOK_TOKEN", "X-Other": "${HOME}"},
		AllowedEnvVars: []string{"RIOT_TEST_HOOK_TOKEN"}}
	h := newHost(t, withConfig(testConfig(t, func(c *config.Config) { c.Hooks.PreToolUse = []config.Hook{hk} })))
	wantResult(t, runOne(t, h, "Echo", `{"text":"no"}`), core.StatusDenied, "the server says no")
	req := <-got
	if !strings.HasPrefix(req, "Bearer s3cret  {") || !strings.Contains(req, `"hook_event_name":"PreToolUse"`) {
		t.Fatalf("request: %s", req)
	}
	wantResult(t, runOne(t, h, "Echo", `{"text":"yes"}`), core.StatusOK, "yes")
	<-got
	// A status other than 2xx is a failure: ignored, or blocking when
	// fail_closed.
	wantResult(t, runOne(t, h, "Echo", `{"text":"500"}`), core.StatusOK)
	<-got
	hk.FailClosed = true
	h = newHost(t, withConfig(testConfig(t, func(c *config.Config) { c.Hooks.PreToolUse = []config.Hook{hk} })))
	wantResult(t, runOne(t, h, "Echo", `{"text":"500"}`), core.StatusDenied, "HTTP status 500", "fail_closed")
	<-got
	// Off loopback, only what [sandbox.network] allows.
	hk.URL = "http://hooks.example.com/hook"
	h = newHost(t, withConfig(testConfig(t, func(c *config.Config) { c.Hooks.PreToolUse = []config.Hook{hk} })))
	wantResult(t, runOne(t, h, "Echo", `{"text":"x"}`), core.StatusDenied, "neither loopback nor allowed")
}

// A PermissionRequest hook answers where the chain would ask: its allow
// runs the call as the user's would (once; for the session with
// updatedPermissions), its deny refuses the call in every mode.
func TestPermissionRequest(t *testing.T) {
	count := filepath.Join(t.TempDir(), "count")
	allow := script(t, `input=$(cat)
case "$input" in *'"hook_event_name":"PermissionRequest"'*'"tool_name":"Fail"'*) ;; *) exit 1 ;; esac
echo x >> `+count+`
echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}'
`)
	h := newHost(t, withConfig(testConfig(t, func(c *config.Config) { c.Hooks.PermissionRequest = []config.Hook{cmdHook("Fail", allow)} })))
	for range 2 {
		wantResult(t, runOne(t, h, "Fail", `{"message":"it ran"}`), core.StatusFailed, "it ran")
	}
	if b, _ := os.ReadFile(count); strings.Count(string(b), "x") != 2 {
		t.Fatalf("an allow without updatedPermissions holds once: the hook ran %d times", strings.Count(string(b), "x"))
	}
	_ = os.Remove(count)
	session := script(t, `cat >/dev/null
echo x >> `+count+`
echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedPermissions":[{"type":"addRules","rules":[{"toolName":"Fail"}],"behavior":"allow","destination":"session"}]}}}'
`)
	h = newHost(t, withConfig(testConfig(t, func(c *config.Config) { c.Hooks.PermissionRequest = []config.Hook{cmdHook("Fail", session)} })))
	for range 2 {
		wantResult(t, runOne(t, h, "Fail", `{"message":"it ran"}`), core.StatusFailed, "it ran")
	}
	if b, _ := os.ReadFile(count); strings.Count(string(b), "x") != 1 {
		t.Fatalf("the session grant did not hold: the hook ran %d times", strings.Count(string(b), "x"))
	}

	deny := script(t, `cat >/dev/null
echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"deny","message":"not on Fridays"}}}'
`)
	for _, mode := range config.Modes {
		cfg := testConfig(t, func(c *config.Config) {
			c.Hooks.PermissionRequest = []config.Hook{cmdHook("*", deny)}
			c.Permissions.Ask = []config.Rule{{Text: "Echo"}}
			c.Permissions.Mode = mode
		})
		r := runOne(t, newHost(t, withConfig(cfg)), "Echo", `{"text":"x"}`)
		if r.Status != core.StatusDenied {
			t.Fatalf("%s: %s %q", mode, r.Status, r.Text())
		}
		if mode != config.ModeDontAsk && !strings.Contains(r.Text(), "not on Fridays") {
			t.Fatalf("%s: the hook's reason is not the model's: %q", mode, r.Text())
		}
	}
}

// SessionStart runs once, before the first turn, and its context reaches
// the model in that turn's first result; SessionEnd runs at Close.
func TestSessionHooks(t *testing.T) {
	log := filepath.Join(t.TempDir(), "log")
	start := script(t, `input=$(cat)
case "$input" in *'"source":"startup"'*) ;; *) exit 1 ;; esac
echo start >> `+log+`
echo '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"the repo uses tabs"}}'
`)
	end := script(t, `input=$(cat)
case "$input" in *'"hook_event_name":"SessionEnd"'*'"reason":"other"'*) echo end >> `+log+` ;; esac
`)
	cfg := testConfig(t, func(c *config.Config) {
		c.Hooks.SessionStart = []config.Hook{cmdHook("", start)}
		c.Hooks.SessionEnd = []config.Hook{cmdHook("", end)}
	})
	h := newHost(t, withConfig(cfg))
	h.StartSession(context.Background())
	wantResult(t, runOne(t, h, "Echo", `{"text":"one"}`), core.StatusOK, "one\nthe repo uses tabs")
	r := runOne(t, h, "Echo", `{"text":"two"}`)
	if strings.Contains(r.Text(), "tabs") {
		t.Fatalf("the context came twice: %q", r.Text())
	}
	h.Close()
	if b, _ := os.ReadFile(log); string(b) != "start\nend\n" {
		t.Fatalf("session hooks ran: %q", b)
	}
}
