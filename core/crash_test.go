package core_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core"
)

func use(id, name, input string) core.ToolUse {
	return core.ToolUse{ID: id, Name: name, Input: json.RawMessage(input)}
}

func runOne(t *testing.T, h *core.Host, name, input string) core.ToolResult {
	t.Helper()
	return h.RunTurn(context.Background(), []core.ToolUse{use("toolu_1", name, input)})[0]
}

func bypass(c *config.Config) { c.Permissions.Mode = "bypassPermissions" }

func wantResult(t *testing.T, r core.ToolResult, status core.Status, substrings ...string) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status = %s, want %s; content: %s", r.Status, status, r.Text())
	}
	for _, s := range substrings {
		if !strings.Contains(r.Text(), s) {
			t.Fatalf("content lacks %q:\n%s", s, r.Text())
		}
	}
	if strings.Contains(r.Text(), "rpc error") || strings.Contains(r.Text(), "code = ") {
		t.Fatalf("content leaks a raw RPC error:\n%s", r.Text())
	}
}

// The crash matrix: each way a plugin can die mid-call becomes a Failed
// result that names the tool and what happened, and the next call works.
func TestCrashMatrix(t *testing.T) {
	cases := []struct {
		name, input string
		want        []string
	}{
		{"goroutine panic", `{"how":"goroutine-panic"}`, []string{"The Crash tool stopped unexpectedly (exit status 2) while running this call.", "It may have partially run; check the state it would have changed before retrying."}},
		{"os.Exit", `{"how":"exit","code":3}`, []string{"The Crash tool stopped unexpectedly (exit status 3) while running this call.", "It may have partially run"}},
		{"read-only crash", `{"how":"exit","code":3,"read_only":true}`, []string{"The Crash tool stopped unexpectedly (exit status 3) while running this call. Retry the call; the tool will be restarted."}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHost(t, withConfig(testConfig(t, bypass)))
			r := runOne(t, h, "Crash", tc.input)
			wantResult(t, r, core.StatusFailed, tc.want...)
			if strings.Contains(r.Text(), "goroutine ") || strings.Contains(r.Text(), "panic:") {
				t.Fatalf("a stack trace reached the model:\n%s", r.Text())
			}
			wantResult(t, runOne(t, h, "Noop", `{}`), core.StatusOK, "ok")
		})
	}
}

func TestRecoveredPanicKeepsThePlugin(t *testing.T) {
	h := newHost(t, withConfig(testConfig(t, bypass)))
	wantResult(t, runOne(t, h, "Crash", `{"how":"call-panic"}`), core.StatusFailed,
		"The Crash tool failed with an internal error while running this call; it may have partially run.")
	before := processesOf(bins.testkit)
	wantResult(t, runOne(t, h, "Noop", `{}`), core.StatusOK, "ok")
	if after := processesOf(bins.testkit); len(before) != 1 || len(after) != 1 || before[0] != after[0] {
		t.Fatalf("a recovered panic restarted the plugin: %v then %v", before, after)
	}
}

// progressPIDs collects the pids Block reports through progress events.
func progressPIDs() (func(core.Progress), <-chan int) {
	ch := make(chan int, 16)
	return func(p core.Progress) {
		if pid, ok := strings.CutPrefix(p.Message, "pid="); ok {
			n, _ := strconv.Atoi(pid)
			ch <- n
		}
	}, ch
}

func TestSIGKILLMidCall(t *testing.T) {
	onProgress, pids := progressPIDs()
	h := newHost(t, withConfig(testConfig(t, bypass)), func(o *core.Options) { o.OnProgress = onProgress })
	go func() {
		pid := <-pids
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}()
	wantResult(t, runOne(t, h, "Block", `{}`), core.StatusFailed,
		"The Block tool stopped unexpectedly (signal: killed) while running this call.", "may have partially run")
	wantResult(t, runOne(t, h, "Noop", `{}`), core.StatusOK, "ok")
}

func TestHangPastDeadline(t *testing.T) {
	spec := testkit()
	spec.Timeout = 300 * time.Millisecond
	h := newHost(t, withConfig(testConfig(t, bypass)), withPlugins(spec))
	wantResult(t, runOne(t, h, "Block", `{"ignore_cancel":true}`), core.StatusFailed,
		"Timed out after 300ms: the Block tool did not finish in time and was stopped.", "may have partially run")
	wantResult(t, runOne(t, h, "Noop", `{}`), core.StatusOK, "ok")
}

// After three crashes within a minute the tool is unavailable for the
// session, and says where the log is.
func TestCrashLoopDisablesThePlugin(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	h := newHost(t, withConfig(testConfig(t, bypass)), func(o *core.Options) { o.Now = clock })
	for i := 0; i < 2; i++ {
		wantResult(t, runOne(t, h, "Crash", `{"how":"exit","code":3}`), core.StatusFailed, "exit status 3")
	}
	// A crash more than 60 s after the first two does not count them.
	mu.Lock()
	now = now.Add(61 * time.Second)
	mu.Unlock()
	wantResult(t, runOne(t, h, "Crash", `{"how":"exit","code":3}`), core.StatusFailed, "exit status 3")
	wantResult(t, runOne(t, h, "Noop", `{}`), core.StatusOK, "ok")
	wantResult(t, runOne(t, h, "Crash", `{"how":"exit","code":3}`), core.StatusFailed, "exit status 3")
	wantResult(t, runOne(t, h, "Crash", `{"how":"exit","code":3}`), core.StatusFailed, "exit status 3")
	r := runOne(t, h, "Noop", `{}`)
	wantResult(t, r, core.StatusFailed,
		"The testkit plugin's tools are unavailable for the rest of this session: the plugin crashed 3 times within 60 s.",
		h.LogFile())
}

func TestStartFailures(t *testing.T) {
	pinned := testkit()
	pinned.SHA256 = strings.Repeat("ab", 32)
	notExec := t.TempDir() + "/riot-tool-notexec"
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		spec core.PluginSpec
		want string
	}{
		{"missing binary", core.PluginSpec{Name: "ghost", Path: "/nonexistent/riot-tool-ghost"}, "The ghost plugin's binary /nonexistent/riot-tool-ghost does not exist."},
		{"not executable", core.PluginSpec{Name: "notexec", Path: notExec}, "is not an executable file. Make it executable (chmod +x)"},
		{"sha256 mismatch", pinned, "does not match its pinned sha256 (the config pins abababababab…, the file has "},
		{"stdout garbage", core.PluginSpec{Name: "garbage", Path: bins.garbage}, `The garbage plugin wrote to stdout before the handshake ("hello from a plugin that prints")`},
		{"cookie mismatch", core.PluginSpec{Name: "badcookie", Path: bins.badcookie}, "The badcookie plugin did not accept riot's handshake"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// The broken plugin comes first; the testkit after it works.
			h := newHost(t, withConfig(testConfig(t, bypass)), withPlugins(tc.spec, core.PluginSpec{Name: "other", Path: bins.testkit}))
			var found bool
			for _, p := range h.Plugins() {
				if p.Name == tc.spec.Name {
					found = true
					if !strings.Contains(p.Problem, tc.want) {
						t.Fatalf("problem = %q, want it to contain %q", p.Problem, tc.want)
					}
				}
			}
			if !found {
				t.Fatalf("plugin %s not listed", tc.spec.Name)
			}
			wantResult(t, runOne(t, h, "Noop", `{}`), core.StatusOK, "ok")
		})
	}
}

// A pinned plugin whose binary no longer matches fails its calls with the
// reason, even after an earlier host cached its manifest.
func TestChangedPinnedPluginFailsItsCalls(t *testing.T) {
	cfg := testConfig(t, bypass)
	newHost(t, withConfig(cfg)) // caches the manifest
	pinned := testkit()
	pinned.SHA256 = strings.Repeat("ab", 32)
	h := newHost(t, withConfig(cfg), withPlugins(pinned))
	wantResult(t, runOne(t, h, "Noop", `{}`), core.StatusFailed, "does not match its pinned sha256")
}

// A plugin killed by SIGKILL cannot remove its socket; the host removes it
// when it handles the crash, and puts every plugin's socket in a directory
// of its own that Close removes, so nothing is left in the temporary
// directory.
func TestCloseRemovesKilledPluginsSockets(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	onProgress, pids := progressPIDs()
	h := newHost(t, withConfig(testConfig(t, bypass)), func(o *core.Options) { o.OnProgress = onProgress })
	go func() { _ = syscall.Kill(<-pids, syscall.SIGKILL) }()
	wantResult(t, runOne(t, h, "Block", `{}`), core.StatusFailed, "stopped unexpectedly (signal: killed)")
	wantResult(t, runOne(t, h, "Noop", `{}`), core.StatusOK, "ok")
	sockets, _ := filepath.Glob(filepath.Join(tmp, "riot-*", "plugin*"))
	if len(sockets) != 1 {
		t.Errorf("sockets under %s: %v, want its successor's alone", tmp, sockets)
	}
	h.Close()
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("Close left %d entries in the temporary directory, the first %s", len(left), left[0].Name())
	}
}
