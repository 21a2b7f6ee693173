package bash

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"

	"github.com/riot-tools/riot/plugin"
	"github.com/riot-tools/riot/plugin/plugintest"
	"github.com/riot-tools/riot/shared"
)

// streamCommand writes 500 MB of 'a' to stdout.
const (
	streamBytes   = 500_000_000
	streamCommand = `head -c 500000000 /dev/zero | tr '\0' a`
)

// BenchmarkCallTrue is one Bash call of `true` through plugintest: Call
// over real go-plugin gRPC, bash started in its own group, the cwd file,
// the wait. Compare with BenchmarkExecTrue.
func BenchmarkCallTrue(b *testing.B) {
	c := plugintest.Serve(b, Tools(), plugintest.WithProc(plugintest.RealProc(b)))
	cpu := startCPU()
	for b.Loop() {
		if res := c.Call("Bash", run("true")); !res.Ok {
			b.Fatal(res.Message)
		}
	}
	cpu.report(b)
}

// BenchmarkExecTrue is `bash -c true` run directly.
func BenchmarkExecTrue(b *testing.B) {
	cpu := startCPU()
	for b.Loop() {
		if err := exec.Command("bash", "-c", "true").Run(); err != nil {
			b.Fatal(err)
		}
	}
	cpu.report(b)
}

// cpuClock measures the CPU time of this process and the children it
// waited for: on a loaded machine it varies far less than wall time.
type cpuClock time.Duration

func cpuNow() time.Duration {
	var self, children syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
	total := time.Duration(0)
	for _, r := range []syscall.Rusage{self, children} {
		total += time.Duration(r.Utime.Nano() + r.Stime.Nano())
	}
	return total
}

func startCPU() cpuClock { return cpuClock(cpuNow()) }

// report adds cpu-ms/op, CPU time of the whole call per operation.
func (c cpuClock) report(b *testing.B) {
	used := cpuNow() - time.Duration(c)
	b.ReportMetric(float64(used.Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// BenchmarkStreamThroughTool streams 500 MB through Bash and gRPC into a
// sink that discards it.
func BenchmarkStreamThroughTool(b *testing.B) {
	stub := discardingClient(b)
	input, _ := json.Marshal(run(streamCommand))
	b.SetBytes(streamBytes)
	cpu := startCPU()
	defer cpu.report(b)
	for b.Loop() {
		var got int64
		err := stub.Call(context.Background(), shared.CallRequest{
			Tool: "Bash", CallID: "bench", Input: input,
			Context: shared.CallContext{Cwd: b.TempDir()},
		}, func(ev shared.CallEvent) error {
			if ch := ev.Chunk; ch != nil {
				got += int64(len(ch.Data))
			}
			if f := ev.Final; f != nil && f.Status != shared.StatusOK {
				b.Fatalf("failed: %s", f.Message)
			}
			return nil
		})
		if err != nil || got != streamBytes {
			b.Fatalf("streamed %d bytes (%v)", got, err)
		}
	}
}

// BenchmarkStreamToFile is the same command piped to a file by bash.
func BenchmarkStreamToFile(b *testing.B) {
	out := filepath.Join(b.TempDir(), "out")
	b.SetBytes(streamBytes)
	cpu := startCPU()
	defer cpu.report(b)
	for b.Loop() {
		if err := exec.Command("bash", "-c", streamCommand+" > "+shellQuote(out)).Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// discardingClient serves the tools over real go-plugin gRPC, as
// plugintest does, but hands back the raw stub so a benchmark can drop the
// content instead of assembling it.
func discardingClient(b *testing.B) shared.ToolPlugin {
	b.Helper()
	cfg := defaultConfig()
	cfg.tempDir = b.TempDir()
	srv, err := plugin.NewServer(plugin.Runtime{
		Clock: plugin.SystemClock{}, Proc: plugintest.RealProc(b), Log: hclog.NewNullLogger(),
	}, newToolSet(cfg).handlers...)
	if err != nil {
		b.Fatal(err)
	}
	conn, server := goplugin.TestPluginGRPCConn(b, false, shared.VersionedPlugins(srv)[shared.ProtocolVersion])
	b.Cleanup(func() {
		_ = conn.Close()
		server.Stop()
	})
	raw, err := conn.Dispense(shared.PluginName)
	if err != nil {
		b.Fatal(err)
	}
	return raw.(shared.ToolPlugin)
}
