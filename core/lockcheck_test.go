package core_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/riot-tools/riot/core"
	"github.com/riot-tools/riot/shared"
)

func toolsOf(h *core.Host, plugin string) []string {
	var out []string
	for _, t := range h.Tools() {
		if t.Plugin == plugin {
			out = append(out, t.Name)
		}
	}
	return out
}

// A locked plugin's tools are held to the lock: the locked ones keep the
// lock's order, a new one goes after them, and one removed or moved
// refuses the plugin with the command that records the change.
func TestLockedToolsOrder(t *testing.T) {
	first := newHost(t)
	served := toolsOf(first, "testkit")
	first.Close() // each subtest checks that no testkit process is left
	if len(served) < 3 {
		t.Fatalf("testkit serves %v; the test needs three tools", served)
	}
	locked := func(tools ...string) core.PluginSpec {
		s := testkit()
		s.Lock = &core.LockPin{File: "/ws/.riot/plugins.lock", Tools: tools}
		return s
	}
	t.Run("the lock's order, new tools appended", func(t *testing.T) {
		// The lock knows the first and last tools: the rest are new.
		head, last := served[0], served[len(served)-1]
		h := newHost(t, withPlugins(locked(head, last)))
		want := append([]string{head, last}, served[1:len(served)-1]...)
		if got := toolsOf(h, "testkit"); !slices.Equal(got, want) {
			t.Fatalf("tools %v, want %v", got, want)
		}
	})
	t.Run("a reorder is refused", func(t *testing.T) {
		rev := slices.Clone(served)
		slices.Reverse(rev)
		h := newHost(t, withPlugins(locked(rev...)))
		got := problemOf(t, h, "testkit")
		if !strings.Contains(got, "The testkit plugin serves its tools in another order ("+strings.Join(served, ", ")+") than /ws/.riot/plugins.lock records") || !strings.Contains(got, "riot plugins upgrade testkit") {
			t.Fatalf("problem = %q", got)
		}
		if len(toolsOf(h, "testkit")) != 0 {
			t.Fatal("a refused plugin's tools are listed")
		}
	})
	t.Run("a removed tool is refused", func(t *testing.T) {
		h := newHost(t, withPlugins(locked(append(slices.Clone(served), "Gone")...)))
		if got := problemOf(t, h, "testkit"); !strings.Contains(got, `The testkit plugin no longer serves "Gone", which /ws/.riot/plugins.lock records.`) {
			t.Fatalf("problem = %q", got)
		}
		if len(toolsOf(h, "testkit")) != 0 {
			t.Fatal("a refused plugin's tools are listed")
		}
	})
	t.Run("a binary that does not match the lock does not run", func(t *testing.T) {
		s := locked(served...)
		s.SHA256 = strings.Repeat("ab", 32)
		h := newHost(t, withPlugins(s))
		got := problemOf(t, h, "testkit")
		if !strings.Contains(got, "does not match /ws/.riot/plugins.lock (the lock pins sha256 abababab") || !strings.Contains(got, "so riot did not run it. Run `riot plugins install testkit`") {
			t.Fatalf("problem = %q", got)
		}
	})
	t.Run("a refused spec never starts", func(t *testing.T) {
		s := testkit()
		s.Refused = "The testkit plugin is declared but not installed."
		h := newHost(t, withPlugins(s))
		if got := problemOf(t, h, "testkit"); got != s.Refused {
			t.Fatalf("problem = %q", got)
		}
	})
}

// InspectPlugin reports a plugin's protocol and tools, and leaves no process.
func TestInspectPlugin(t *testing.T) {
	cfg := testConfig(t)
	p, err := core.InspectPlugin(t.Context(), cfg, "testkit", bins.testkit)
	if err != nil || p.Protocol != shared.ProtocolVersion || len(p.Tools) < 3 {
		t.Fatalf("inspection = %+v, %v", p, err)
	}
	if _, err := core.InspectPlugin(t.Context(), cfg, "garbage", bins.garbage); err == nil || !strings.Contains(err.Error(), "wrote to stdout before the handshake") {
		t.Fatalf("inspection of a broken plugin: %v", err)
	}
	assertNoProcesses(t, bins.testkit, bins.garbage)
}
