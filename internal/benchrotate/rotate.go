// Package benchrotate times several ways of doing one thing in one
// benchmark loop, one run of each per iteration, each iteration starting one
// way further along, so that every way meets the same load: on a machine
// shared with other work, ratios of ways timed this way hold where separate
// benchmarks minutes apart do not. The plugin and sandbox benchmarks of the
// Bash call path use it.
package benchrotate

import (
	"testing"
	"time"
)

// Run times ways under b's loop and reports each way's mean as
// <name>-ms/op; names[i] names ways[i].
func Run(b *testing.B, names []string, ways []func()) {
	b.Helper()
	if len(names) != len(ways) {
		b.Fatalf("%d names for %d ways", len(names), len(ways))
	}
	total := Totals(b, ways)
	for k, name := range names {
		b.ReportMetric(float64(total[k].Microseconds())/1000/float64(b.N), name+"-ms/op")
	}
	// The loop's own ns/op is the sum of the ways, which says nothing.
	b.ReportMetric(0, "ns/op")
}

// Totals runs every way once per iteration of b's loop, starting one
// further along each time, and returns each way's total time, for callers
// that report their own ratios.
func Totals(b *testing.B, ways []func()) []time.Duration {
	b.Helper()
	total := make([]time.Duration, len(ways))
	i := 0
	b.ResetTimer()
	for b.Loop() {
		for k := range ways {
			w := (i + k) % len(ways)
			start := time.Now()
			ways[w]()
			total[w] += time.Since(start)
		}
		i++
	}
	return total
}
