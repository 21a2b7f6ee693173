//go:build linux

package bash

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"

	"github.com/riot-tools/riot/shared"
)

// TestPluginSIGKILLLeavesNoChild builds the real riot-tool-bash, starts it
// as the host does, runs a command that forks, in the foreground and as a
// background job, and kills the plugin with SIGKILL: the process guard
// must take every process of both groups with it, and the one that left
// its group with setsid, which it finds by its tag.
func TestPluginSIGKILLLeavesNoChild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the plugin binary")
	}
	bin := filepath.Join(t.TempDir(), "riot-tool-bash")
	build := exec.Command("go", "build", "-o", bin, "./cmd/riot-tool-bash")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	tlsMat, err := shared.NewTLSMaterial()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin)
	// The plugin dies by SIGKILL, so what it would have removed (its
	// socket, the command's directory file, the job output) stays: in the
	// test's directory.
	cmd.Env = append(os.Environ(), tlsMat.PluginEnv(), "TMPDIR="+t.TempDir())
	client := goplugin.NewClient(&goplugin.ClientConfig{
		HandshakeConfig:  shared.Handshake,
		VersionedPlugins: shared.VersionedPlugins(nil),
		Cmd:              cmd,
		SkipHostEnv:      true,
		AllowedProtocols: []goplugin.Protocol{goplugin.ProtocolGRPC},
		TLSConfig:        tlsMat.ClientConfig(),
		Logger:           hclog.NewNullLogger(),
	})
	t.Cleanup(client.Kill)
	rpc, err := client.Client()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := rpc.Dispense(shared.PluginName)
	if err != nil {
		t.Fatal(err)
	}
	stub := raw.(shared.ToolPlugin)
	cwd := t.TempDir()
	call := func(ctx context.Context, input map[string]any) error {
		in, _ := json.Marshal(input)
		return stub.Call(ctx, shared.CallRequest{
			Tool: "Bash", CallID: "c", Input: in,
			Context: shared.CallContext{SessionID: "s", Cwd: cwd},
		}, func(shared.CallEvent) error { return nil })
	}

	// A background job whose bash and child both report their pids.
	jobFifo := mkfifo(t, "job")
	jobPids := make(chan string, 1)
	go func() {
		line, _ := readFifoLine(jobFifo)
		jobPids <- line
	}()
	if err := call(context.Background(), background(`sleep 300 & echo "$! $$" > `+shellQuote(jobFifo)+`; wait`)); err != nil {
		t.Fatal(err)
	}
	watch := watchExit(t, pids(t, <-jobPids)...)

	// A foreground command, still running when the plugin dies, with a
	// child that left its group: the guard finds that one by its tag.
	fgFifo := mkfifo(t, "fg")
	fgPids := make(chan string, 1)
	go func() {
		line, _ := readFifoLine(fgFifo)
		fgPids <- line
	}()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		_ = call(ctx, run(`sleep 300 & a=$!; setsid sleep 300 & echo "$a $! $$" > `+shellQuote(fgFifo)+`; wait`))
	}()
	for pid, fd := range watchExit(t, pids(t, <-fgPids)...) {
		watch[pid] = fd
	}

	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	if left := watch.wait(time.Now().Add(3 * time.Second)); len(left) > 0 {
		t.Fatalf("still running 3 s after the plugin died: %v", left)
	}
}
