package core_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/riot-tools/riot/core"
)

// The suites a plugin of protocol 1 alone must pass as one of protocol 2
// does: crashes, hangs, cancellation, budgets, wire faults, state.
const protocolSuites = "^(TestProtocolNegotiated|TestCrashMatrix|TestRecoveredPanicKeepsThePlugin|TestSIGKILLMidCall|TestHangPastDeadline|TestCrashLoopDisablesThePlugin|TestWireFaults|TestCrashedPluginsSocketIsRemoved|TestPanicStackOnlyInTheLogFile|TestParallelGroup|TestMaxParallel|TestResultsKeepInputOrder|TestCascade|TestNonCascadingFailureCancelsNothing|TestCallerCancellation|TestSessionState|TestBudgetEdges|TestSpillUTF8|TestImagesAreNeverSpilled|TestTurnBudget|TestTurnBudgetKeepsTheReasonOfACancelledCall|TestManyCallsOneSession)$"

// testkit and wirefault negotiate the protocol this run builds them for:
// the newest, or 1 alone in TestSuitesOverProtocol1's run.
func TestProtocolNegotiated(t *testing.T) {
	h := newHost(t, withConfig(testConfig(t, bypass)), withPlugins(testkit(), wirefault()))
	wantResult(t, runOne(t, h, "Noop", `{}`), core.StatusOK, "ok")
	wantResult(t, runOne(t, h, "SplitUTF8", `{}`), core.StatusOK, "café au lait")
	for _, p := range h.Plugins() {
		if p.Protocol != wantProtocol {
			t.Errorf("%s negotiated protocol %d, want %d", p.Name, p.Protocol, wantProtocol)
		}
	}
}

// TestSuitesOverProtocol1 runs the suites again, in a run of this test
// binary whose testkit and wirefault are built with the riot_protocol1
// tag: plugins built against an SDK before protocol 2 keep working.
func TestSuitesOverProtocol1(t *testing.T) {
	if os.Getenv(binsEnv) != "" {
		t.Skip("this is the run it starts")
	}
	cmd := exec.Command(os.Args[0], "-test.run", protocolSuites, "-test.count", "1", "-test.v")
	cmd.Env = append(os.Environ(), protocolEnv+"=1", binsEnv+"="+dirOf(bins.garbage))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the suites over protocol 1: %v\n%s", err, out)
	}
	// Every suite ran and passed: a pattern that matched nothing passes too.
	names := strings.Split(strings.TrimSuffix(strings.TrimPrefix(protocolSuites, "^("), ")$"), "|")
	for _, name := range names {
		if !strings.Contains(string(out), "--- PASS: "+name+" ") {
			t.Errorf("%s did not pass over protocol 1", name)
		}
	}
	if t.Failed() {
		t.Logf("its output:\n%s", out)
	}
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
