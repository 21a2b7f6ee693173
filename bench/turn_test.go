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

// hostWith is a host over the given plugin specs in the given permission
// mode; "" keeps the embedded default.
func hostWith(b *testing.B, mode config.Mode, specs ...core.PluginSpec) *core.Host {
	b.Helper()
	return hostIn(b, b.TempDir(), func(cfg *config.Config) {
		if mode != "" {
			cfg.Permissions.Mode = mode
		}
	}, specs...)
}

// hostIn is a host over the workspace ws with the embedded defaults, as
// configure changes them.
func hostIn(b *testing.B, ws string, configure func(*config.Config), specs ...core.PluginSpec) *core.Host {
	b.Helper()
	cfg, err := config.Load(config.Options{Workspace: ws, UserFile: filepath.Join(ws, "none"), Getenv: func(string) string { return "" }})
	if err != nil {
		b.Fatal(err)
	}
	cfg.StateDir = b.TempDir()
	configure(cfg)
	h, err := core.New(context.Background(), core.Options{Config: cfg, Workspace: ws, Plugins: specs, Logger: hclog.NewNullLogger()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { h.Close() })
	return h
}

// bypass is the mode of the benchmarks whose calls are not read-only, so
// that nothing is asked.
const bypass = "bypassPermissions"

func testkit() core.PluginSpec { return core.PluginSpec{Name: "testkit", Path: bins.testkit} }

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
	h := hostWith(b, bypass, testkit())
	uses := turnOf(1, "Sleep", `{"ms":200}`)
	runTurn(b, h, uses)
	b.ResetTimer()
	for b.Loop() {
		runTurn(b, h, uses)
	}
}

func BenchmarkSleep200msParallel10(b *testing.B) {
	h := hostWith(b, bypass, testkit())
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
	h := hostWith(b, bypass, builtin("bash"))
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
// reports each plugin process's memory at rest: VmRSS, and the private part
// of it (RssAnon). The rest is the binary's text, file pages shared by every
// process that runs the same binary. Builtins run as `riot __plugin NAME`,
// so they map the whole riot binary; standalone runs each as the
// riot-tool-NAME binary that `make plugins` builds.
func BenchmarkPluginIdleRSS(b *testing.B) {
	for _, mode := range []string{"builtin", "standalone"} {
		b.Run(mode, func(b *testing.B) {
			for b.Loop() {
				specs := make([]core.PluginSpec, 0, len(builtins))
				for _, name := range builtins {
					if mode == "builtin" {
						specs = append(specs, builtin(name))
					} else {
						specs = append(specs, core.PluginSpec{Name: name, Path: bins.standalone[name]})
					}
				}
				h := hostWith(b, bypass, specs...)
				exerciseBuiltins(b, h)
				for name, m := range pluginMemory(b) {
					b.ReportMetric(float64(m.rss)/1024, "MB-rss-"+name)
					b.ReportMetric(float64(m.anon)/1024, "MB-private-"+name)
				}
				h.Close()
			}
		})
	}
}

// exerciseBuiltins calls each builtin once, so each is started and warm.
func exerciseBuiltins(b *testing.B, h *core.Host) {
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
}

type memory struct{ rss, anon int } // KB

// pluginMemory maps each plugin process this benchmark started (a child of
// this process) to its memory, by tool set name; Bash's process guard is
// "bash-guard".
func pluginMemory(b *testing.B) map[string]memory {
	out := map[string]memory{}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		b.Skipf("no /proc: %v", err)
	}
	self := strconv.Itoa(os.Getpid())
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		dir := filepath.Join("/proc", e.Name())
		status, err := os.ReadFile(filepath.Join(dir, "status"))
		if err != nil {
			continue
		}
		fields := map[string]string{}
		for _, line := range strings.Split(string(status), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok {
				fields[k] = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB"))
			}
		}
		exe, _ := os.Readlink(filepath.Join(dir, "exe"))
		name := pluginName(exe, dir)
		if name == "" {
			continue
		}
		environ, _ := os.ReadFile(filepath.Join(dir, "environ"))
		if strings.Contains("\x00"+string(environ), "\x00RIOT_PROC_GUARD=1\x00") {
			name += "-guard"
		} else if fields["PPid"] != self {
			continue
		}
		rss, _ := strconv.Atoi(fields["VmRSS"])
		anon, _ := strconv.Atoi(fields["RssAnon"])
		out[name] = memory{rss, anon}
	}
	return out
}

// pluginName is the tool set a process serves, or "" if it is not one of
// the benchmark's plugin binaries.
func pluginName(exe, dir string) string {
	for name, path := range bins.standalone {
		if exe == path {
			return name
		}
	}
	if exe != bins.riot {
		return ""
	}
	cmdline, _ := os.ReadFile(filepath.Join(dir, "cmdline"))
	args := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
	if len(args) < 3 || args[1] != "__plugin" {
		return ""
	}
	return args[2]
}
