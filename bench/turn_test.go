package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core"
)

// hostWith is a host over the given plugin specs, in bypass mode so that
// nothing is asked.
func hostWith(b *testing.B, specs ...core.PluginSpec) *core.Host {
	b.Helper()
	ws := b.TempDir()
	cfg, err := config.Load(config.Options{Workspace: ws, UserFile: filepath.Join(ws, "none"), Getenv: func(string) string { return "" }})
	if err != nil {
		b.Fatal(err)
	}
	cfg.StateDir = b.TempDir()
	cfg.Permissions.Mode = "bypassPermissions"
	h, err := core.New(context.Background(), core.Options{Config: cfg, Workspace: ws, Plugins: specs, Logger: hclog.NewNullLogger()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { h.Close() })
	return h
}

func builtin(name string) core.PluginSpec {
	return core.PluginSpec{Name: name, Path: bins.riot, Args: []string{"__plugin", name}, Builtin: true}
}

func turnOf(n int, name, input string) []core.ToolUse {
	uses := make([]core.ToolUse, n)
	for i := range uses {
		uses[i] = core.ToolUse{ID: fmt.Sprintf("toolu_%d", i), Name: name, Input: json.RawMessage(input)}
	}
	return uses
}

func runTurn(b *testing.B, h *core.Host, uses []core.ToolUse) {
	for _, r := range h.RunTurn(context.Background(), uses) {
		if r.IsError() {
			b.Fatal(r.Text())
		}
	}
}

// BenchmarkSleep200msSingle and BenchmarkSleep200msParallel10 compare one
// 200 ms call with a turn of ten: concurrency-safe calls run together.
func BenchmarkSleep200msSingle(b *testing.B) {
	h := hostWith(b, core.PluginSpec{Name: "testkit", Path: bins.testkit})
	uses := turnOf(1, "Sleep", `{"ms":200}`)
	runTurn(b, h, uses)
	b.ResetTimer()
	for b.Loop() {
		runTurn(b, h, uses)
	}
}

func BenchmarkSleep200msParallel10(b *testing.B) {
	h := hostWith(b, core.PluginSpec{Name: "testkit", Path: bins.testkit})
	uses := turnOf(10, "Sleep", `{"ms":200}`)
	runTurn(b, h, uses)
	b.ResetTimer()
	for b.Loop() {
		runTurn(b, h, uses)
	}
}

// BenchmarkBashTrueHost is `true` through the Bash builtin, warm, with the
// whole pipeline; BenchmarkBashTrueDirect is `bash -c true` from Go.
func BenchmarkBashTrueHost(b *testing.B) {
	h := hostWith(b, builtin("bash"))
	uses := turnOf(1, "Bash", `{"command":"true"}`)
	runTurn(b, h, uses)
	b.ResetTimer()
	for b.Loop() {
		runTurn(b, h, uses)
	}
}

func BenchmarkBashTrueDirect(b *testing.B) {
	for b.Loop() {
		if err := exec.Command("bash", "-c", "true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPluginIdleRSS starts every builtin, calls each once, and
// reports each plugin process's resident memory at rest.
func BenchmarkPluginIdleRSS(b *testing.B) {
	for b.Loop() {
		h := hostWith(b, builtin("bash"), builtin("grep"), builtin("read"), builtin("diagnostics"))
		ws := b.TempDir()
		f := filepath.Join(ws, "f.txt")
		if err := os.WriteFile(f, []byte("x\n"), 0o644); err != nil {
			b.Fatal(err)
		}
		runTurn(b, h, []core.ToolUse{
			{ID: "1", Name: "Bash", Input: json.RawMessage(`{"command":"true"}`)},
			{ID: "2", Name: "Grep", Input: json.RawMessage(fmt.Sprintf(`{"pattern":"x","path":%q}`, ws))},
			{ID: "3", Name: "Read", Input: json.RawMessage(fmt.Sprintf(`{"file_path":%q}`, f))},
		})
		// Diagnostics fails without a project; it is started all the same.
		h.RunTurn(context.Background(), []core.ToolUse{{ID: "4", Name: "Diagnostics", Input: json.RawMessage(fmt.Sprintf(`{"path":%q}`, ws))}})
		for name, kb := range pluginRSS(bins.riot) {
			b.ReportMetric(float64(kb)/1024, "MB-rss-"+name)
		}
		h.Close()
	}
}

// pluginRSS maps each builtin plugin process of riot to its VmRSS in KB.
func pluginRSS(riot string) map[string]int {
	out := map[string]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		exe, _ := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		if exe != riot {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		args := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
		if len(args) < 3 || args[1] != "__plugin" {
			continue
		}
		status, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "status"))
		for _, line := range strings.Split(string(status), "\n") {
			if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
				kb, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
				name := args[2]
				if _, seen := out[name]; seen {
					name += "-guard"
				}
				out[name] = kb
			}
		}
	}
	return out
}
