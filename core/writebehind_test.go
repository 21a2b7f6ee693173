package core_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/riot-tools/riot/core"
)

// A host that writes its session behind: a change is seen by the next
// call at once, and is on disk after FlushSession, and after Close for
// what came after.
func TestWriteBehindHostSession(t *testing.T) {
	cfg := testConfig(t, bypass)
	h := newHost(t, withConfig(cfg), func(o *core.Options) { o.SessionID = "wb"; o.WriteBehind = true })
	stored := func() string {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(cfg.StateDir, "sessions", "wb.json"))
		if err != nil {
			t.Fatal(err)
		}
		var d struct{ State map[string]map[string]string }
		if err := json.Unmarshal(data, &d); err != nil {
			t.Fatal(err)
		}
		return d.State["testkit"]["value"]
	}
	rs := h.RunTurn(context.Background(), []core.ToolUse{use("a", "State", `{"set":"x"}`), use("b", "State", `{"set":"y"}`)})
	wantResult(t, rs[0], core.StatusOK, "was=")
	wantResult(t, rs[1], core.StatusOK, "was=x")
	if err := h.FlushSession(); err != nil {
		t.Fatal(err)
	}
	if v := stored(); v != "y" {
		t.Fatalf("after FlushSession the session file has %q, want y", v)
	}
	wantResult(t, runOne(t, h, "State", `{"set":"z"}`), core.StatusOK, "was=y")
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	if v := stored(); v != "z" {
		t.Fatalf("after Close the session file has %q, want z", v)
	}
}
