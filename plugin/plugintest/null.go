package plugintest

import (
	"context"
	"errors"
	"net/http"
	"os/exec"
	"sync"
	"syscall"
	"testing"

	"github.com/riot-tools/riot/plugin"
)

// ErrNoProcess is what NullProc returns.
var ErrNoProcess = errors.New("plugintest: this test gives the tool no process access")

// ErrNoNetwork is what NullNet returns.
var ErrNoNetwork = errors.New("plugintest: this test gives the tool no network access")

// NullProc refuses to start any process.
type NullProc struct{}

// Start returns ErrNoProcess.
func (NullProc) Start(context.Context, *exec.Cmd) (plugin.Process, error) { return nil, ErrNoProcess }

// NullNet refuses every request.
type NullNet struct{}

// Do returns ErrNoNetwork.
func (NullNet) Do(*http.Request) (*http.Response, error) { return nil, ErrNoNetwork }

// RealProc starts real processes, each in a process group of its own, and
// kills every group it started when the test ends, so a failing test leaves
// no process behind.
func RealProc(t testing.TB) plugin.Proc {
	p := &trackedProc{}
	t.Cleanup(p.killAll)
	return p
}

type trackedProc struct {
	os    plugin.OSProc
	mu    sync.Mutex
	procs []plugin.Process
}

func (p *trackedProc) Start(ctx context.Context, cmd *exec.Cmd) (plugin.Process, error) {
	proc, err := p.os.Start(ctx, cmd)
	if err == nil {
		p.mu.Lock()
		p.procs = append(p.procs, proc)
		p.mu.Unlock()
	}
	return proc, err
}

func (p *trackedProc) killAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, proc := range p.procs {
		_ = proc.Signal(syscall.SIGKILL)
	}
}
