package plugin

import (
	"context"
	"os/exec"
	"testing"

	"github.com/hashicorp/go-hclog"
)

type noopIn struct{}
type noopTool struct{}

func (noopTool) Name() string                               { return "Noop" }
func (noopTool) Prompt() string                             { return "Does nothing." }
func (noopTool) Describe(noopIn) string                     { return "Do nothing" }
func (noopTool) Call(context.Context, noopIn, *Env) Outcome { return Ok(Text("ok")) }

// ServeReadOnly's manifest says that the plugin starts no processes and
// its tools' Proc refuses; Serve's says nothing and its Proc is the real
// one, with the process guard.
func TestManifestSaysWhetherThePluginStartsProcesses(t *testing.T) {
	for _, readOnly := range []bool{false, true} {
		srv, err := NewServer(serveRuntime(readOnly, hclog.NewNullLogger()), New[noopIn](noopTool{}))
		if err != nil {
			t.Fatal(err)
		}
		m, _ := srv.Manifest(context.Background())
		if m.GetStartsNoProcesses() != readOnly {
			t.Errorf("read-only %v: the manifest says starts_no_processes = %v", readOnly, m.GetStartsNoProcesses())
		}
		switch p := srv.rt.Proc.(type) {
		case noProc:
			if !readOnly {
				t.Error("Serve's tools cannot start processes")
			}
			if _, err := p.Start(context.Background(), exec.Command("/bin/true")); err == nil {
				t.Error("a read-only plugin started a process")
			}
		case *OSProc:
			if readOnly || p.guard == nil {
				t.Errorf("read-only %v: an OSProc, guard %v", readOnly, p.guard)
			}
		default:
			t.Errorf("read-only %v: Proc %T", readOnly, p)
		}
	}
}
