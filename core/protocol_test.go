package core_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/riot-tools/riot/core"
	"github.com/riot-tools/riot/shared"
)

// testkit and wirefault negotiate the one protocol.
func TestProtocolNegotiated(t *testing.T) {
	h := newHost(t, withConfig(testConfig(t, bypass)), withPlugins(testkit(), wirefault()))
	wantResult(t, runOne(t, h, "Noop", `{}`), core.StatusOK, "ok")
	wantResult(t, runOne(t, h, "SplitUTF8", `{}`), core.StatusOK, "café au lait")
	for _, p := range h.Plugins() {
		if p.Protocol != shared.ProtocolVersion {
			t.Errorf("%s negotiated protocol %d, want %d", p.Name, p.Protocol, shared.ProtocolVersion)
		}
	}
}

// A plugin of any other protocol version is refused at its start, with
// what to do: versions 2 and 3 are those of an SDK that served them beside
// 1 (a plugin built with it alone would not get here), 99 a newer SDK's.
// The host's other plugins work.
func TestOtherProtocolRefused(t *testing.T) {
	rebuild := fmt.Sprintf("Rebuild it with this riot's SDK (go get %s@", shared.SDKModule)
	for _, tc := range []struct {
		version int
		want    string
	}{
		{2, "The wirefault plugin speaks protocol version 2, and this riot speaks protocol 1 only. " + rebuild},
		{3, "The wirefault plugin speaks protocol version 3, and this riot speaks protocol 1 only. " + rebuild},
		{99, "The wirefault plugin speaks protocol version 99, and this riot speaks protocol 1 only. Upgrade riot to a version that speaks it, or rebuild it with this riot's SDK (go get " + shared.SDKModule + "@"},
	} {
		t.Run(strconv.Itoa(tc.version), func(t *testing.T) {
			h := newHost(t, withConfig(testConfig(t, bypass)), withPlugins(wirefault("RIOT_WIREFAULT", fmt.Sprintf("version-%d", tc.version)), testkit()))
			if got := problemOf(t, h, "wirefault"); !strings.Contains(got, tc.want) {
				t.Fatalf("problem = %q, want %q", got, tc.want)
			}
			wantResult(t, runOne(t, h, "Noop", `{}`), core.StatusOK, "ok")
		})
	}
}

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
