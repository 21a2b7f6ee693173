package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core"
)

// BenchmarkReadTurn is a turn of n Read calls, each of its own small file,
// through the host and the standalone Read plugin as `make plugins` builds
// it, warm. ns/call is the turn's time over its calls: what one more Read
// in a turn costs, with Read's calls running up to limits.max_parallel at
// once.
func BenchmarkReadTurn(b *testing.B) {
	for _, n := range []int{1, 10, 50, 200} {
		b.Run(fmt.Sprintf("calls=%d", n), func(b *testing.B) {
			ws, uses := readTurn(b, n)
			h := hostIn(b, ws, func(*config.Config) {}, core.PluginSpec{Name: "read", Path: bins.standalone["read"]})
			runTurn(b, h, uses) // warm: the plugin is started
			b.ResetTimer()
			for b.Loop() {
				runTurn(b, h, uses)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/call")
		})
	}
}

// readTurn is a workspace of n small files and a turn reading each.
func readTurn(b *testing.B, n int) (string, []core.ToolUse) {
	ws := b.TempDir()
	uses := make([]core.ToolUse, n)
	for i := range uses {
		f := filepath.Join(ws, fmt.Sprintf("f%03d.txt", i))
		if err := os.WriteFile(f, []byte(strings.Repeat(fmt.Sprintf("line of file %d\n", i), 20)), 0o644); err != nil {
			b.Fatal(err)
		}
		uses[i] = core.ToolUse{ID: fmt.Sprintf("toolu_%d", i), Name: "Read", Input: fmt.Appendf(nil, `{"file_path":%q}`, f)}
	}
	return ws, uses
}

// BenchmarkReadTurnSession is BenchmarkReadTurn's turn on three hosts, each
// iteration running it on every one in rotation: one on an ephemeral
// session (nothing written), one on a persisted session written before
// each call returns (the one-shot CLI), and one on a persisted session
// written behind and flushed after each turn, as a session host does.
// (See rotateSessions.)
// Read records every read in the session, so the persisted ways write on
// every call; ns/call is per way.
func BenchmarkReadTurnSession(b *testing.B) {
	for _, n := range []int{1, 10, 50, 200} {
		b.Run(fmt.Sprintf("calls=%d", n), func(b *testing.B) {
			ws, uses := readTurn(b, n)
			rotateSessions(b, ws, n, uses, core.PluginSpec{Name: "read", Path: bins.standalone["read"]})
		})
	}
}

// rotateSessions runs the turn on three hosts over specs, every one in
// each iteration, in rotation: on an ephemeral session (nothing written),
// on a persisted session written before each call returns (the one-shot
// CLI), and on one written behind and flushed after each turn, as a
// session host does once it has sent the results. It reports ns/call per
// way (the turn having calls calls) without the flush, which it reports
// apart per turn.
func rotateSessions(b *testing.B, ws string, calls int, uses []core.ToolUse, specs ...core.PluginSpec) {
	const (
		wEphemeral = iota
		wSync
		wBehind
		nWays
	)
	hosts := [nWays]*core.Host{
		wEphemeral: sessionHost(b, ws, "", false, specs),
		wSync:      sessionHost(b, ws, "sync", false, specs),
		wBehind:    sessionHost(b, ws, "behind", true, specs),
	}
	flush := func(h *core.Host) {
		if err := h.FlushSession(); err != nil {
			b.Fatal(err)
		}
	}
	for _, h := range hosts {
		runTurn(b, h, uses) // warm: the plugins are started
		flush(h)
	}
	var total, flushed [nWays]time.Duration
	i := 0
	b.ResetTimer()
	for b.Loop() {
		for k := range nWays {
			w := (i + k) % nWays
			start := time.Now()
			runTurn(b, hosts[w], uses)
			end := time.Now()
			total[w] += end.Sub(start)
			// The host sends the results, then flushes: timed apart.
			flush(hosts[w])
			flushed[w] += time.Since(end)
		}
		i++
	}
	per := func(w int) float64 { return float64(total[w].Nanoseconds()) / float64(b.N*calls) }
	b.ReportMetric(per(wEphemeral), "ephemeral-ns/call")
	b.ReportMetric(per(wSync), "sync-ns/call")
	b.ReportMetric(per(wBehind), "behind-ns/call")
	b.ReportMetric(float64(total[wBehind])/float64(total[wSync]), "behind/sync")
	b.ReportMetric(float64(flushed[wBehind].Nanoseconds())/float64(b.N), "behind-flush-ns/turn")
}

// sessionHost is a host over specs on session id ("" for an
// ephemeral one), written behind or not.
func sessionHost(b *testing.B, ws, id string, behind bool, specs []core.PluginSpec) *core.Host {
	b.Helper()
	cfg, err := config.Load(config.Options{Workspace: ws, UserFile: filepath.Join(ws, "none"), Getenv: func(string) string { return "" }})
	if err != nil {
		b.Fatal(err)
	}
	cfg.StateDir = b.TempDir()
	h, err := core.New(context.Background(), core.Options{Config: cfg, Workspace: ws, SessionID: id, WriteBehind: behind,
		Plugins: specs, Logger: hclog.NewNullLogger()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { h.Close() })
	return h
}

// BenchmarkThreeCallTurn is bench/session-host.sh's turn (Read of a
// 200-line file, Grep for 17, Bash ls) through a warm host on an ephemeral
// session: the host's side of an attached turn, without the client.
func BenchmarkThreeCallTurn(b *testing.B) {
	ws, uses, specs := threeCallTurn(b)
	h := hostIn(b, ws, func(*config.Config) {}, specs...)
	runTurn(b, h, uses)
	b.ResetTimer()
	for b.Loop() {
		runTurn(b, h, uses)
	}
}

// BenchmarkThreeCallTurnSession is BenchmarkThreeCallTurn's turn on the
// three sessions of rotateSessions: what a session host's writes add.
func BenchmarkThreeCallTurnSession(b *testing.B) {
	ws, uses, specs := threeCallTurn(b)
	rotateSessions(b, ws, len(uses), uses, specs...)
}

// threeCallTurn is the workspace, the calls and the plugins of
// bench/session-host.sh's turn.
func threeCallTurn(b *testing.B) (string, []core.ToolUse, []core.PluginSpec) {
	ws := b.TempDir()
	f := filepath.Join(ws, "a.txt")
	var lines strings.Builder
	for i := 1; i <= 200; i++ {
		fmt.Fprintln(&lines, i)
	}
	if err := os.WriteFile(f, []byte(lines.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	specs := []core.PluginSpec{
		{Name: "read", Path: bins.standalone["read"]},
		{Name: "grep", Path: bins.standalone["grep"]},
		{Name: "bash", Path: bins.standalone["bash"]},
	}
	uses := []core.ToolUse{
		{ID: "r", Name: "Read", Input: fmt.Appendf(nil, `{"file_path":%q}`, f)},
		{ID: "g", Name: "Grep", Input: []byte(`{"pattern":"17"}`)},
		{ID: "b", Name: "Bash", Input: []byte(`{"command":"ls"}`)},
	}
	return ws, uses, specs
}
