package core_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/riot-tools/riot/core"
)

// The suites a plugin of an older protocol must pass as one of the newest
// does: crashes, hangs, cancellation, budgets, wire faults, state.
const protocolSuites = "^(TestProtocolNegotiated|TestPrepareElidedOnlyWhereDeclared|TestGuessOnlyWhereDeclared|TestCrashMatrix|TestRecoveredPanicKeepsThePlugin|TestSIGKILLMidCall|TestHangPastDeadline|TestCrashLoopDisablesThePlugin|TestWireFaults|TestCrashedPluginsSocketIsRemoved|TestPanicStackOnlyInTheLogFile|TestParallelGroup|TestMaxParallel|TestResultsKeepInputOrder|TestCascade|TestNonCascadingFailureCancelsNothing|TestCallerCancellation|TestSessionState|TestBudgetEdges|TestSpillUTF8|TestImagesAreNeverSpilled|TestTurnBudget|TestTurnBudgetKeepsTheReasonOfACancelledCall|TestManyCallsOneSession)$"

// testkit and wirefault negotiate the protocol this run builds them for:
// the newest, or 1 or 2 in TestSuitesOverProtocol1's or 2's run.
// Over protocol 3 the calls run on the link, not the stream it falls
// back to, once it opened behind the first calls.
func TestProtocolNegotiated(t *testing.T) {
	cfg := testConfig(t, bypass)
	cfg.Log.Level = "debug"
	// The log file, not the test's log, which it would be otherwise.
	h := newHost(t, withConfig(cfg), withPlugins(testkit(), wirefault()), func(o *core.Options) { o.Logger = nil; o.Stderr = io.Discard })
	wantResult(t, runOne(t, h, "Noop", `{}`), core.StatusOK, "ok")
	wantResult(t, runOne(t, h, "SplitUTF8", `{}`), core.StatusOK, "café au lait")
	if wantProtocol == 3 {
		untilLinkSettles(t, h, "testkit", "Noop", `{}`)
		untilLinkSettles(t, h, "wirefault", "SplitUTF8", `{}`)
	}
	for _, p := range h.Plugins() {
		if p.Protocol != wantProtocol {
			t.Errorf("%s negotiated protocol %d, want %d", p.Name, p.Protocol, wantProtocol)
		}
	}
	h.Close()
	log, err := os.ReadFile(h.LogFile())
	if err != nil {
		t.Fatal(err)
	}
	opened, failed := strings.Count(string(log), "opened the plugin's session link"), strings.Count(string(log), "cannot open the plugin's session link")
	if want := map[bool]int{true: 2}[wantProtocol == 3]; opened != want || failed != 0 {
		t.Fatalf("%d links opened and %d failed, want %d and none; the log:\n%s", opened, failed, want, log)
	}
}

// TestSuitesOverProtocol1 runs the suites again, in a run of this test
// binary whose testkit and wirefault are built with the riot_protocol1
// tag: plugins built against an SDK before protocol 2 keep working.
func TestSuitesOverProtocol1(t *testing.T) { suitesOver(t, "1") }

// TestSuitesOverProtocol2 does so with the riot_protocol2 tag: plugins
// built against an SDK before protocol 3 keep their Session stream.
func TestSuitesOverProtocol2(t *testing.T) { suitesOver(t, "2") }

func suitesOver(t *testing.T, version string) {
	if os.Getenv(binsEnv) != "" {
		t.Skip("this is the run it starts")
	}
	cmd := exec.Command(os.Args[0], "-test.run", protocolSuites, "-test.count", "1", "-test.v")
	cmd.Env = append(os.Environ(), protocolEnv+"="+version, binsEnv+"="+dirOf(bins.garbage))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the suites over protocol %s: %v\n%s", version, err, out)
	}
	// Every suite ran and passed: a pattern that matched nothing passes too.
	names := strings.Split(strings.TrimSuffix(strings.TrimPrefix(protocolSuites, "^("), ")$"), "|")
	for _, name := range names {
		if !strings.Contains(string(out), "--- PASS: "+name+" ") {
			t.Errorf("%s did not pass over protocol %s", name, version)
		}
	}
	if t.Failed() {
		t.Logf("its output:\n%s", out)
	}
}

// A plugin confined by Landlock, as a read-only one is, opens its link:
// it connects to the host's socket and needs no right to make one.
func TestLinkOfAConfinedPlugin(t *testing.T) {
	if wantProtocol != 3 {
		t.Skip("no link below protocol 3")
	}
	cfg := testConfig(t, bypass)
	cfg.Log.Level = "debug"
	spec := testkit()
	spec.Env = map[string]string{"RIOT_TESTKIT_READ_ONLY": "1"}
	h := newHost(t, withConfig(cfg), withPlugins(spec), func(o *core.Options) { o.Logger = nil; o.Stderr = io.Discard })
	wantResult(t, runOne(t, h, "Noop", `{}`), core.StatusOK, "ok")
	wantResult(t, runOne(t, h, "Echo", `{"text":"confined"}`), core.StatusOK, "confined")
	untilLinkSettles(t, h, "testkit", "Noop", `{}`)
	h.Close()
	log, err := os.ReadFile(h.LogFile())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(log), "restricted with Landlock") {
		if strings.Contains(string(log), "cannot restrict this read-only plugin with Landlock") {
			t.Skip("this kernel has no Landlock")
		}
		t.Fatalf("the plugin did not say it is confined; the log:\n%s", log)
	}
	if !strings.Contains(string(log), "opened the plugin's session link") || strings.Contains(string(log), "cannot open the plugin's session link") {
		t.Fatalf("the confined plugin's link did not open; the log:\n%s", log)
	}
}

// A plugin of protocol 3 whose link cannot open (here it refuses it, as
// where Unix sockets are denied) keeps working over the Session stream,
// and its faults read as they do over protocol 2.
func TestLinkFallsBackToTheStream(t *testing.T) {
	if wantProtocol != 3 {
		t.Skip("no link below protocol 3")
	}
	cfg := testConfig(t, bypass)
	cfg.Log.Level = "debug"
	h := newHost(t, withConfig(cfg), withPlugins(wirefault("RIOT_WIREFAULT", "refuse-link"), testkit()), func(o *core.Options) { o.Logger = nil; o.Stderr = io.Discard })
	wantResult(t, runOne(t, h, "SplitUTF8", `{}`), core.StatusOK, "café au lait")
	wantResult(t, runOne(t, h, "EarlyClose", `{}`), core.StatusFailed, "without a final result")
	wantResult(t, runOne(t, h, "SplitUTF8", `{}`), core.StatusOK, "café au lait")
	untilLinkSettles(t, h, "wirefault", "SplitUTF8", `{}`)
	for _, p := range h.Plugins() {
		if p.Name == "wirefault" && p.Protocol != 3 {
			t.Errorf("wirefault negotiated protocol %d, want 3", p.Protocol)
		}
	}
	h.Close()
	log, err := os.ReadFile(h.LogFile())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(log), "cannot open the plugin's session link") || !strings.Contains(string(log), "no Unix sockets here") {
		t.Fatalf("the log does not say why the link did not open:\n%s", log)
	}
}

// untilLinkSettles runs tool until the log says how plugin's link opening
// ended, opened or not: it opens behind the first calls, which run on the
// stream and do not wait for it, so a host closed at once may abandon it.
// A call or two is enough on any machine; a thousand fail the test.
func untilLinkSettles(t *testing.T, h *core.Host, plugin, tool, input string) {
	t.Helper()
	for range 1000 {
		log, err := os.ReadFile(h.LogFile())
		if err != nil {
			t.Fatal(err)
		}
		prefix := "riot." + plugin + ": "
		if strings.Contains(string(log), prefix+"opened the plugin's session link") || strings.Contains(string(log), prefix+"cannot open the plugin's session link") {
			return
		}
		if r := runOne(t, h, tool, input); r.Status != core.StatusOK {
			t.Fatalf("%s while %s's link opens: %v", tool, plugin, r)
		}
	}
	t.Fatalf("%s's link neither opened nor failed in a thousand calls", plugin)
}

func dirOf(path string) string { return path[:strings.LastIndexByte(path, '/')] }

// Many calls of one turn share a plugin, concurrently, and a call that a
// cascade cancels stops alone: the plugin is not restarted, and its next
// calls run.
func TestManyCallsOneSession(t *testing.T) {
	h := newHost(t, withConfig(testConfig(t, bypass)))
	for round := range 3 {
		var uses []core.ToolUse
		for i := range 5 {
			uses = append(uses, use(fmt.Sprintf("b%d", i), "Barrier", fmt.Sprintf(`{"name":"round%d","n":5}`, round)))
		}
		for _, r := range h.RunTurn(context.Background(), uses) {
			wantResult(t, r, core.StatusOK, "crossed")
		}
	}
	pids := processesOf(bins.testkit)
	rs := h.RunTurn(context.Background(), []core.ToolUse{
		use("running", "Block", `{"safe":true}`),
		use("failing", "Fail", `{"message":"Exit status 2.","safe":true}`),
	})
	if rs[0].Status != core.StatusCancelled {
		t.Fatalf("the running sibling: %s %q", rs[0].Status, rs[0].Text())
	}
	rs = h.RunTurn(context.Background(), []core.ToolUse{use("n1", "Noop", `{}`), use("e1", "Echo", `{"text":"after"}`)})
	wantResult(t, rs[0], core.StatusOK, "ok")
	wantResult(t, rs[1], core.StatusOK, "after")
	if after := processesOf(bins.testkit); len(pids) != 1 || len(after) != 1 || pids[0] != after[0] {
		t.Fatalf("a cancelled call restarted the plugin: %v, then %v", pids, after)
	}
}
