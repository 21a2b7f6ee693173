package core_test

import (
	"bufio"
	"context"
	"fmt"
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

func lookUse(id string, path string, extra string) core.ToolUse {
	return use(id, "Look", fmt.Sprintf(`{"path":%q%s}`, path, extra))
}

// The Prepares of calls that may run together run in parallel: four Looks
// whose Prepares each wait until all four have arrived all pass.
func TestPreparesRunInParallel(t *testing.T) {
	h := newHost(t)
	dir := t.TempDir()
	var uses []core.ToolUse
	for i := range 4 {
		uses = append(uses, lookUse(fmt.Sprintf("l%d", i), dir, `,"meet":"p","n":4`))
	}
	for _, r := range h.RunTurn(context.Background(), uses) {
		wantResult(t, r, core.StatusOK, "peak 4")
	}
}

// No more Prepares are in flight than limits.max_parallel: with 2, the
// first two Looks' Prepares meet, and no Prepare of five ever saw more
// than two in flight.
func TestParallelPreparesBoundedByMaxParallel(t *testing.T) {
	cfg := testConfig(t)
	cfg.Limits.MaxParallel = 2
	h := newHost(t, withConfig(cfg))
	dir := t.TempDir()
	var uses []core.ToolUse
	for i := range 5 {
		uses = append(uses, lookUse(fmt.Sprintf("l%d", i), dir, `,"meet":"m","n":2`))
	}
	for _, r := range h.RunTurn(context.Background(), uses) {
		wantResult(t, r, core.StatusOK, "peak 2")
	}
}

// With limits.max_parallel 2, three Looks whose Prepares wait for all
// three never meet: two Prepares arrive, the third is not started, and
// cancelling the turn cancels the two in flight and leaves the third not
// run.
func TestParallelPreparesNeverExceedMaxParallel(t *testing.T) {
	cfg := testConfig(t)
	cfg.Limits.MaxParallel = 2
	h := newHost(t, withConfig(cfg))
	dir := t.TempDir()
	fifo := filepath.Join(dir, "arrivals")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// Read and write, so that it never reads end-of-file between arrivals.
	arrivals, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = arrivals.Close() }()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var uses []core.ToolUse
	for i := range 3 {
		uses = append(uses, lookUse(fmt.Sprintf("l%d", i), dir, fmt.Sprintf(`,"meet":"three","n":3,"signal":%q`, fifo)))
	}
	done := make(chan []core.ToolResult)
	go func() { done <- h.RunTurn(ctx, uses) }()
	lines := bufio.NewScanner(arrivals)
	for range 2 {
		if !lines.Scan() {
			t.Fatal(lines.Err())
		}
	}
	cancel()
	rs := <-done
	// Every Prepare has returned: a third arrival would be in the FIFO.
	if err := arrivals.SetReadDeadline(time.Now()); err != nil {
		t.Fatal(err)
	}
	if lines.Scan() {
		t.Fatal("a third Prepare ran beside two with limits.max_parallel 2")
	}
	wantResult(t, rs[0], core.StatusCancelled)
	wantResult(t, rs[1], core.StatusCancelled)
	wantResult(t, rs[2], core.StatusCancelled, "Not run")
}

// A call that is not concurrency-safe runs before the calls after it are
// prepared: the Look after a Touch sees the file in its Prepare, though
// the host prepared it once already while the Look before the Touch was
// prepared.
func TestUnsafeCallRunsBeforeTheNextIsPrepared(t *testing.T) {
	h := newHost(t, withConfig(testConfig(t, bypass)))
	f := filepath.Join(t.TempDir(), "made")
	rs := h.RunTurn(context.Background(), []core.ToolUse{
		lookUse("a", f, ""),
		use("b", "Touch", fmt.Sprintf(`{"path":%q}`, f)),
		lookUse("c", f, ""),
		lookUse("d", f, ""),
	})
	for _, r := range rs {
		wantResult(t, r, core.StatusOK)
	}
	if !strings.HasSuffix(rs[0].Describe, ": absent") {
		t.Errorf("the Look before the Touch: %q, want absent", rs[0].Describe)
	}
	for _, r := range rs[2:] {
		if !strings.HasSuffix(r.Describe, ": present") {
			t.Errorf("a Look after the Touch was prepared before it ran: %q", r.Describe)
		}
	}
}

// orderLog is a prompter that notes each ask in the log the hooks write
// to, and allows once.
type orderLog struct {
	mu   sync.Mutex
	path string
}

func (o *orderLog) Prompt(_ context.Context, req permission.Request, _ permission.Decision) (permission.Answer, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	f, err := os.OpenFile(o.path, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		return permission.AnswerDeny, err
	}
	defer func() { _ = f.Close() }()
	_, err = fmt.Fprintf(f, "ask %s\n", strings.TrimSuffix(filepath.Base(strings.Fields(req.Describe)[1]), ":"))
	return permission.AnswerAllowOnce, err
}

// However parallel their Prepares, the calls' PreToolUse hooks and asks
// come one call at a time, in input order: each call's hook, then its
// ask, then the next call's.
func TestHooksAndAsksKeepInputOrderUnderParallelPrepare(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "order.log")
	hook := hookScript(t, "") // only for its directory's permissions
	script := fmt.Sprintf("#!/bin/sh\nid=$(sed -n 's/.*\"tool_use_id\": *\"\\([^\"]*\\)\".*/\\1/p')\necho \"hook $id\" >> %s\n", log)
	if err := os.WriteFile(hook, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(t, func(c *config.Config) {
		c.Hooks.PreToolUse = append(c.Hooks.PreToolUse, config.Hook{Matcher: "Look", Command: hook, Timeout: 10 * time.Second})
		c.Permissions.Ask = append(c.Permissions.Ask, config.Rule{Text: "Look"})
	})
	h := newHost(t, withConfig(cfg), func(o *core.Options) { o.Prompter = &orderLog{path: log} })
	var uses []core.ToolUse
	var want []string
	for i := range 4 {
		id := fmt.Sprintf("c%d", i)
		uses = append(uses, lookUse(id, filepath.Join(dir, id), `,"meet":"o","n":4`))
		want = append(want, "hook "+id, "ask "+id)
	}
	for _, r := range h.RunTurn(context.Background(), uses) {
		wantResult(t, r, core.StatusOK, "peak 4")
	}
	got, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if g := strings.TrimSpace(string(got)); g != strings.Join(want, "\n") {
		t.Fatalf("hooks and asks ran in this order:\n%s\nwant:\n%s", g, strings.Join(want, "\n"))
	}
}

// A plugin that dies in a Prepare run in parallel with others gives that
// call a normal Failed result that says so; the calls ahead of it run.
func TestCrashInParallelPrepareIsFailed(t *testing.T) {
	h := newHost(t)
	dir := t.TempDir()
	rs := h.RunTurn(context.Background(), []core.ToolUse{
		lookUse("a", dir, ""),
		lookUse("b", dir, `,"crash":true`),
	})
	wantResult(t, rs[1], core.StatusFailed, "stopped unexpectedly", "while checking this call", "Retry it")
	if rs[0].Status != core.StatusOK && rs[0].Status != core.StatusFailed {
		t.Fatalf("the call beside the crash: %s %s", rs[0].Status, rs[0].Text())
	}
	// The plugin starts again for the next turn.
	wantResult(t, h.RunTurn(context.Background(), []core.ToolUse{lookUse("c", dir, "")})[0], core.StatusOK)
}
