package core_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core"
	"github.com/riot-tools/riot/core/permission"
)

// hearing is a prompter, as a Go program would write one, whose user
// answers each question only once the Notification hook has told them of
// it: it says it is asking (permission.Asking), waits for what the hook
// passed on (listen), records it, and then answers yes. A question the
// hook never announces is refused, so the call fails.
type hearing struct {
	listen func() (string, bool)
	mu     sync.Mutex
	heard  []string
}

func (p *hearing) wait(ctx context.Context) bool {
	permission.Asking(ctx)
	s, ok := p.listen()
	if ok {
		p.mu.Lock()
		p.heard = append(p.heard, s)
		p.mu.Unlock()
	}
	return ok
}

func (p *hearing) told() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.heard...)
}

func (p *hearing) Prompt(ctx context.Context, _ permission.Request, _ permission.Decision) (permission.Answer, error) {
	if !p.wait(ctx) {
		return permission.AnswerDeny, nil
	}
	return permission.AnswerAllowOnce, nil
}

func (p *hearing) PromptNetwork(ctx context.Context, _ permission.NetworkQuestion) (permission.Answer, error) {
	if !p.wait(ctx) {
		return permission.AnswerDeny, nil
	}
	return permission.AnswerAllowSession, nil
}

func (p *hearing) Elicit(ctx context.Context, _, _ string, _ json.RawMessage) (string, map[string]any, error) {
	if !p.wait(ctx) {
		return "decline", nil, nil
	}
	return "accept", map[string]any{"color": "blue"}, nil
}

// notifyTimeout bounds the wait for a notification that should come at
// once: a failing test ends instead of hanging.
const notifyTimeout = 30 * time.Second

// scriptNotification is a Notification hook that passes its input on
// through a fifo, and the user who hears it there.
func scriptNotification(t *testing.T, matcher string) (config.Hook, *hearing) {
	t.Helper()
	fifo := filepath.Join(t.TempDir(), "notify")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 4)
	listen := func() (string, bool) {
		go func() {
			b, _ := os.ReadFile(fifo) // blocks until the hook opens it
			got <- string(b)
		}()
		select {
		case s := <-got:
			return s, true
		case <-time.After(notifyTimeout):
			// Unblock the reader, which gives up its read.
			if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
				_ = w.Close()
			}
			<-got
			return "", false
		}
	}
	return cmdHook(matcher, "cat > "+fifo), &hearing{listen: listen}
}

// httpNotification is a Notification hook posting to a loopback server,
// and the user who hears it there.
func httpNotification(t *testing.T, matcher string) (config.Hook, *hearing) {
	t.Helper()
	got := make(chan string, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- string(b)
	}))
	t.Cleanup(srv.Close)
	listen := func() (string, bool) {
		select {
		case s := <-got:
			return s, true
		case <-time.After(notifyTimeout):
			return "", false
		}
	}
	return config.Hook{Matcher: matcher, Type: "http", URL: srv.URL + "/notify", Timeout: 10 * time.Second}, &hearing{listen: listen}
}

func wantHeard(t *testing.T, p *hearing, want ...string) {
	t.Helper()
	heard := p.told()
	if len(heard) != 1 {
		t.Fatalf("the user heard %d notifications: %q", len(heard), heard)
	}
	for _, w := range append([]string{`"hook_event_name":"Notification"`}, want...) {
		if !strings.Contains(heard[0], w) {
			t.Fatalf("the notification lacks %s: %s", w, heard[0])
		}
	}
}

// A permission prompt waiting for the user runs the Notification hooks
// while it waits, by a script and over HTTP; a matcher picks the type.
func TestNotificationPermissionPrompt(t *testing.T) {
	for name, mk := range map[string]func(*testing.T, string) (config.Hook, *hearing){"script": scriptNotification, "http": httpNotification} {
		t.Run(name, func(t *testing.T) {
			hk, user := mk(t, "permission_prompt")
			cfg := testConfig(t, func(c *config.Config) { c.Hooks.Notification = []config.Hook{hk} })
			h := newHost(t, withConfig(cfg), func(o *core.Options) { o.Prompter = user })
			// Fail asks (it is not read-only); the user allows it once
			// they heard of the question.
			wantResult(t, runOne(t, h, "Fail", `{"message":"it ran"}`), core.StatusFailed, "it ran")
			wantHeard(t, user, `"notification_type":"permission_prompt"`, `"message":"riot needs your permission to use Fail"`)
			// An allowed call asks nobody.
			wantResult(t, runOne(t, h, "Echo", `{"text":"quiet"}`), core.StatusOK, "quiet")
			if heard := user.told(); len(heard) != 1 {
				t.Fatalf("a call that asked nobody notified: %q", heard)
			}
		})
	}
}

// An MCP server's question to the user is announced as an
// elicitation_dialog.
func TestNotificationElicitation(t *testing.T) {
	hk, user := scriptNotification(t, "elicitation_dialog")
	cfg := testConfig(t, func(c *config.Config) {
		c.MCPServers = []config.MCPServer{{Name: "srv", Command: bins.mcpserve, Args: []string{"classic"}, Enabled: true}}
		c.Permissions.Allow = append(c.Permissions.Allow, config.Rule{Text: "mcp__srv"})
		c.Hooks.Notification = []config.Hook{hk}
	})
	h := newHost(t, withConfig(cfg), withPlugins(), func(o *core.Options) { o.Prompter = user })
	if r := mcpCall(t, h, "mcp__srv__ask", `{}`); r.Status != core.StatusOK || r.Text() != "accept blue" {
		t.Fatalf("the answered question: %s %q", r.Status, r.Text())
	}
	wantHeard(t, user, `"notification_type":"elicitation_dialog"`, `the MCP server srv asks: Which color?`)
}

// The network policy's question about an unknown name waits for the user
// too, and is announced as a permission prompt.
func TestNotificationNetworkQuestion(t *testing.T) {
	port := webServer(t)
	hk, user := scriptNotification(t, "permission_prompt")
	h, _ := egressHost(t, names{"asked.test": true}, user, func(c *config.Config) { c.Hooks.Notification = []config.Hook{hk} })
	r := bash(t, h, "asks", fmt.Sprintf("curl -sS --fail --max-time 20 http://asked.test:%d/", port))
	if r.IsError() || !strings.Contains(r.Text(), "hello from asked.test") {
		t.Fatalf("after the user allowed it: %s %s", r.Status, r.Text())
	}
	wantHeard(t, user, `"notification_type":"permission_prompt"`, fmt.Sprintf("riot needs your permission for Bash to reach asked.test:%d", port))
}
