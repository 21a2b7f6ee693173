package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core"
	"github.com/riot-tools/riot/internal/benchrotate"
)

// BenchmarkGuessPaired rotates, in each iteration, one-call turns whose
// Prepare answer the host can guess right (testkit's Noop; Read of the
// same file each time) and one it guesses wrong every time (Read of two
// files in turn: the answer's subject is the path), with one raw unary RPC
// as the anchor. Run from a tree without the guessed Prepare, every way
// makes two exchanges: the ratios of two builds say what the guess saves,
// and what a wrong one costs.
func BenchmarkGuessPaired(b *testing.B) {
	ws := b.TempDir()
	files := [2]string{filepath.Join(ws, "a.txt"), filepath.Join(ws, "b.txt")}
	for _, f := range files {
		if err := os.WriteFile(f, []byte("a line\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	noop := hostWith(b, "", testkit())
	readHost := func() *core.Host {
		return hostIn(b, ws, func(*config.Config) {}, core.PluginSpec{Name: "read", Path: bins.standalone["read"]})
	}
	same, other := readHost(), readHost()
	cfg, env := riotTLS(b)
	client, unary := rawClient(b, bins.testkit, cfg, env, false)
	defer client.Kill()
	readUse := func(f string) []core.ToolUse {
		return []core.ToolUse{{ID: "toolu_1", Name: "Read", Input: json.RawMessage(fmt.Sprintf(`{"file_path":%q}`, f))}}
	}
	turn := func(h *core.Host, uses func() []core.ToolUse) func() {
		return func() {
			if r := h.RunTurn(context.Background(), uses()); r[0].IsError() {
				b.Fatal(r[0].Text())
			}
		}
	}
	noopUses := []core.ToolUse{{ID: "toolu_1", Name: "Noop", Input: json.RawMessage(`{}`)}}
	next := 0
	const (
		wNoop = iota
		wReadSame
		wReadOther
		wUnary
		nWays
	)
	ways := []func(){
		wNoop:     turn(noop, func() []core.ToolUse { return noopUses }),
		wReadSame: turn(same, func() []core.ToolUse { return readUse(files[0]) }),
		// Each call reads the other file than its host's call before it.
		wReadOther: turn(other, func() []core.ToolUse { next = 1 - next; return readUse(files[next]) }),
		wUnary: func() {
			if _, err := unary.Prepare(context.Background(), noopPrepare); err != nil {
				b.Fatal(err)
			}
		},
	}
	for _, w := range ways {
		w() // warm: every plugin is started
	}
	total := benchrotate.Totals(b, ways)
	us := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(b.N) }
	ratio := func(a, c int) float64 { return float64(total[a]) / float64(total[c]) }
	b.ReportMetric(us(total[wNoop]), "noop-us")
	b.ReportMetric(us(total[wReadSame]), "readsame-us")
	b.ReportMetric(us(total[wReadOther]), "readother-us")
	b.ReportMetric(us(total[wUnary]), "unary-us")
	b.ReportMetric(ratio(wNoop, wUnary), "noop/unary")
	b.ReportMetric(ratio(wReadSame, wUnary), "readsame/unary")
	b.ReportMetric(ratio(wReadOther, wUnary), "readother/unary")
}
