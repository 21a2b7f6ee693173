package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
			ws := b.TempDir()
			h := hostIn(b, ws, func(*config.Config) {}, core.PluginSpec{Name: "read", Path: bins.standalone["read"]})
			uses := make([]core.ToolUse, n)
			for i := range uses {
				f := filepath.Join(ws, fmt.Sprintf("f%03d.txt", i))
				if err := os.WriteFile(f, []byte(strings.Repeat(fmt.Sprintf("line of file %d\n", i), 20)), 0o644); err != nil {
					b.Fatal(err)
				}
				uses[i] = core.ToolUse{ID: fmt.Sprintf("toolu_%d", i), Name: "Read", Input: fmt.Appendf(nil, `{"file_path":%q}`, f)}
			}
			runTurn(b, h, uses) // warm: the plugin is started
			b.ResetTimer()
			for b.Loop() {
				runTurn(b, h, uses)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/call")
		})
	}
}
