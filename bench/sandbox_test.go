package bench

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core"
)

// sandboxHost is a host over the Bash builtin in bypassPermissions, with
// [sandbox] mode set: "required" runs every command under bwrap, "off"
// none. bypassPermissions keeps the sandbox on; a call that is not
// read-only gets the write profile.
func sandboxHost(b *testing.B, mode config.SandboxMode) *core.Host {
	b.Helper()
	ws := b.TempDir()
	cfg, err := config.Load(config.Options{Workspace: ws, UserFile: filepath.Join(ws, "none"), Getenv: func(string) string { return "" }})
	if err != nil {
		b.Fatal(err)
	}
	cfg.StateDir = b.TempDir()
	cfg.Permissions.Mode = bypass
	cfg.Sandbox.Mode = mode
	h, err := core.New(context.Background(), core.Options{Config: cfg, Workspace: ws, Plugins: []core.PluginSpec{builtin("bash")}, Logger: hclog.NewNullLogger()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { h.Close() })
	if st := h.SandboxStatus(context.Background()); mode == "required" && !st.On {
		b.Skipf("the sandbox cannot run here: %s", st.Problem)
	}
	return h
}

func benchBash(b *testing.B, mode config.SandboxMode, command string) {
	h := sandboxHost(b, mode)
	uses := turnOf(1, "Bash", `{"command":"`+command+`"}`)
	runTurn(b, h, uses)
	b.ResetTimer()
	for b.Loop() {
		runTurn(b, h, uses)
	}
}

// BenchmarkBashTrueSandboxOn and ...Off: `true` through a warm host, with
// and without the kernel sandbox.
func BenchmarkBashTrueSandboxOn(b *testing.B)  { benchBash(b, "required", "true") }
func BenchmarkBashTrueSandboxOff(b *testing.B) { benchBash(b, "off", "true") }

// streamCommand writes 500 MB, which the host spills as it arrives.
const streamCommand = "yes 'the same 500 MB of text as the Bash stream benchmark' | head -c 500000000"

func BenchmarkBashStream500MBSandboxOn(b *testing.B)  { benchBash(b, "required", streamCommand) }
func BenchmarkBashStream500MBSandboxOff(b *testing.B) { benchBash(b, "off", streamCommand) }
