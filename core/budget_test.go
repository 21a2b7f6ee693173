package core

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/hashicorp/go-hclog"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/shared"
)

func budgetHost(t *testing.T) *Host {
	root := filepath.Join(t.TempDir(), "results")
	h := &Host{
		cfg:     &config.Config{Limits: config.Limits{TurnBudgetChars: 1000}},
		log:     hclog.NewNullLogger(),
		now:     time.Now,
		results: openResultStore(root, "s", config.Results{}, time.Now, hclog.NewNullLogger()),
	}
	t.Cleanup(h.results.close)
	return h
}

func collected(h *Host, id, text string) *call {
	c := &call{use: ToolUse{ID: id, Name: "Stream"}, limited: true}
	c.col = newCollector(50_000, h.results.spillPath(id), h.results)
	_ = c.col.add(shared.CallEvent{Chunk: &shared.Chunk{Kind: shared.BlockText, Data: []byte(text)}})
	c.col.finish()
	return c
}

// The turn budget spills the largest outputs, but never a call cancelled
// while it ran: its result is why it was cancelled, and that must stay.
func TestTurnBudgetKeepsTheReasonOfACancelledCall(t *testing.T) {
	h := budgetHost(t)
	big := collected(h, "toolu_1", strings.Repeat("line of output\n", 400))
	h.finishBody(big, StatusOK)
	cancelled := collected(h, "toolu_2", strings.Repeat("partial\n", 80))
	reason := "Cancelled while running: Bash call toolu_3 (`make`) failed: exit status 2. This call was stopped and may have partially run; re-issue it if it does not depend on that one."
	calls := []*call{big, cancelled}
	results := []ToolResult{big.result, textResult(cancelled.use, StatusCancelled, reason)}
	h.applyTurnBudget(calls, results)
	if results[0].Spill == nil {
		t.Fatalf("the largest output was not spilled:\n%s", results[0].Text())
	}
	if results[1].Status != StatusCancelled || results[1].Text() != reason {
		t.Fatalf("the cancelled call's result became:\n%s", results[1].Text())
	}
}

// Two spills of one call id, written at once, land in two whole files,
// and nothing is visible under a spill's name before it is complete.
func TestConcurrentSpillsOfOneID(t *testing.T) {
	h := budgetHost(t)
	var wg sync.WaitGroup
	cols := make([]*collector, 4)
	for i := range cols {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := newCollector(10, h.results.spillPath("toolu_1"), h.results)
			for range 64 {
				_ = c.add(shared.CallEvent{Chunk: &shared.Chunk{Kind: shared.BlockText, Data: []byte(strings.Repeat(string(rune('a'+i)), 1000))}})
				if _, err := os.Stat(c.spillPath); err == nil {
					t.Error("a spill is visible at its path before it is complete")
				}
			}
			c.finish()
			cols[i] = c
		}()
	}
	wg.Wait()
	var paths []string
	for i, c := range cols {
		data, err := os.ReadFile(c.spillPath)
		if err != nil || len(data) != 64000 || strings.Count(string(data), string(rune('a'+i))) != 64000 {
			t.Fatalf("spill %d is not whole and its own: %d bytes, %v", i, len(data), err)
		}
		paths = append(paths, c.spillPath)
	}
	slices.Sort(paths)
	if len(slices.Compact(paths)) != len(cols) {
		t.Fatalf("spills share paths: %v", paths)
	}
}

// A text stream cut into chunks anywhere is accepted exactly when the
// whole is UTF-8, and then kept byte for byte.
func FuzzCollectorUTF8(f *testing.F) {
	f.Add([]byte("caf\xc3\xa9"), uint8(4))
	f.Add([]byte("bad \xff"), uint8(1))
	f.Add([]byte("cut \xe2\x82"), uint8(5))
	f.Fuzz(func(t *testing.T, data []byte, cut uint8) {
		c := newCollector(-1, "", nil)
		at := min(int(cut), len(data))
		var err error
		for _, part := range [][]byte{data[:at], data[at:]} {
			if err == nil {
				err = c.add(shared.CallEvent{Chunk: &shared.Chunk{Kind: shared.BlockText, Data: part}})
			}
		}
		if err == nil {
			err = c.add(shared.CallEvent{Final: &shared.Final{Status: shared.StatusOK}})
		}
		if valid := utf8.Valid(data); valid != (err == nil) {
			t.Fatalf("%q cut at %d: valid %v, error %v", data, at, valid, err)
		}
		if err == nil && c.text.String() != string(data) {
			t.Fatalf("kept %q of %q", c.text.String(), data)
		}
	})
}
