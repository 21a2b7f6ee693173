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

// ServeReadOnly's and ServeWithoutProcesses' manifests say that the plugin
// starts no processes and their tools' Proc refuses; Serve's says nothing
// and its Proc is the real one, with the process guard.
func TestManifestSaysWhetherThePluginStartsProcesses(t *testing.T) {
	for _, mode := range []serveMode{serveProcesses, serveNoProcesses, serveReadOnly} {
		none := mode != serveProcesses
		srv, err := NewServer(serveRuntime(mode, hclog.NewNullLogger()), New[noopIn](noopTool{}))
		if err != nil {
			t.Fatal(err)
		}
		m, _ := srv.Manifest(context.Background())
		if m.StartsNoProcesses != none {
			t.Errorf("mode %d: the manifest says StartsNoProcesses = %v", mode, m.StartsNoProcesses)
		}
		switch p := srv.rt.Proc.(type) {
		case noProc:
			if !none {
				t.Error("Serve's tools cannot start processes")
			}
			if _, err := p.Start(context.Background(), exec.Command("/bin/true")); err == nil {
				t.Errorf("mode %d: a plugin that starts no processes started one", mode)
			}
		case *OSProc:
			if none || p.guard == nil {
				t.Errorf("mode %d: an OSProc, guard %v", mode, p.guard)
			}
		default:
			t.Errorf("mode %d: Proc %T", mode, p)
		}
	}
}
