package core_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/riot-tools/riot/core"
)

// liveHeap is the heap in use after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// sustainedLoad runs n turns of three calls (a small result, a spilled one
// and a validation failure) through h.
func sustainedLoad(t testing.TB, h *core.Host, from, n int) {
	for i := from; i < from+n; i++ {
		rs := h.RunTurn(context.Background(), []core.ToolUse{
			use(fmt.Sprintf("toolu_%d_a", i), "Echo", `{"text":"hello"}`),
			use(fmt.Sprintf("toolu_%d_b", i), "Stream", `{"bytes":60000}`),
			use(fmt.Sprintf("toolu_%d_c", i), "Echo", `{"txt":"x"}`),
		})
		if rs[0].Status != core.StatusOK || rs[1].Spill == nil || rs[2].Status != core.StatusFailed {
			t.Fatalf("turn %d: %s / %v / %s", i, rs[0].Status, rs[1].Spill, rs[2].Status)
		}
	}
}

// TestHeapUnderSustainedLoad: nothing is retained per call. After a
// warm-up, 2,000 more calls through one host must not grow the live heap
// by more than a few hundred bytes a call (see BENCHMARKS.md for the
// profile behind it).
func TestHeapUnderSustainedLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 2,400 calls")
	}
	// t.Log keeps every line until the test ends, so the host logs nowhere.
	h := newHost(t, withConfig(testConfig(t, bypass)), func(o *core.Options) { o.Logger = hclog.NewNullLogger() })
	sustainedLoad(t, h, 0, 100)
	before := liveHeap()
	const turns = 667 // 2,001 calls
	sustainedLoad(t, h, 100, turns)
	after := liveHeap()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	perCall := (int64(after) - int64(before)) / (3 * turns)
	t.Logf("live heap %d KiB before, %d KiB after %d calls: %d bytes a call; heap obtained from the OS %d KiB, next GC at %d KiB",
		before>>10, after>>10, 3*turns, perCall, m.HeapSys>>10, m.NextGC>>10)
	if perCall > 256 {
		t.Fatalf("the live heap grew by %d bytes a call over %d calls", perCall, 3*turns)
	}
}
