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
	"github.com/riot-tools/riot/plugin/sandbox"
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
	osProc := plugin.NewOSProc()
	p := &trackedProc{os: osProc, list: &procList{}}
	t.Cleanup(func() {
		p.list.killAll()
		osProc.Close()
	})
	return p
}

// trackedProc is an OSProc that remembers what it started. It applies the
// call's sandbox profile as Serve's does.
type trackedProc struct {
	os   plugin.SandboxingProc
	list *procList
}

type procList struct {
	mu    sync.Mutex
	procs []plugin.Process
}

func (p *trackedProc) Start(ctx context.Context, cmd *exec.Cmd) (plugin.Process, error) {
	proc, err := p.os.Start(ctx, cmd)
	if err == nil {
		p.list.mu.Lock()
		p.list.procs = append(p.list.procs, proc)
		p.list.mu.Unlock()
	}
	return proc, err
}

func (p *trackedProc) StartShared(ctx context.Context, cmd *exec.Cmd) (plugin.Process, error) {
	proc, err := plugin.StartShared(ctx, p.os, cmd)
	if err == nil {
		p.list.mu.Lock()
		p.list.procs = append(p.list.procs, proc)
		p.list.mu.Unlock()
	}
	return proc, err
}

func (p *trackedProc) Sandboxed(profile *sandbox.Profile) plugin.Proc {
	return &trackedProc{os: p.os.Sandboxed(profile).(plugin.SandboxingProc), list: p.list}
}

func (l *procList) killAll() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, proc := range l.procs {
		_ = proc.Signal(syscall.SIGKILL)
	}
}
