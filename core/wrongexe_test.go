package core_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/riot-tools/riot/core"
)

// A library user who gives the resolver the wrong executable gets an error
// from core.New that says so, not a host without its builtins that answers
// every call with "no tool named Read".
func TestNewFailsWhenBuiltinsCannotStart(t *testing.T) {
	for name, exe := range map[string]string{
		"missing":       filepath.Join(t.TempDir(), "no-such-riot"),
		"not riot":      "/bin/true",
		"not a program": garbageFile(t),
	} {
		t.Run(name, func(t *testing.T) {
			cfg := testConfig(t)
			specs, _ := core.Resolver{Workspace: filepath.Dir(cfg.StateDir), Exe: exe, Builtins: []string{"read"}, Getenv: func(string) string { return "" }}.ResolvePlugins(cfg)
			var builtins []core.PluginSpec
			for _, s := range specs {
				if s.Builtin {
					builtins = append(builtins, s)
				}
			}
			if len(builtins) == 0 {
				t.Fatal("the resolver gave no builtin to start")
			}
			h, err := core.New(context.Background(), core.Options{Config: cfg, Workspace: filepath.Dir(cfg.StateDir), Plugins: builtins,
				Logger: hclog.NewNullLogger()})
			if err == nil {
				h.Close()
				t.Fatal("core.New built a host whose builtins cannot start")
			}
			if !strings.Contains(err.Error(), "Resolver.Exe") || !strings.Contains(err.Error(), exe) {
				t.Fatalf("the error does not name the executable and the option to fix: %v", err)
			}
		})
	}
}

// A plugin binary built for another platform is named as such, with the
// platform riot accepts, not "could not start, see the log".
func TestExecFormatErrorNamed(t *testing.T) {
	h := newHost(t, withPlugins(core.PluginSpec{Name: "foreign", Path: garbageFile(t)}))
	res := h.RunTurn(context.Background(), []core.ToolUse{{ID: "t1", Name: "Foreign", Input: []byte(`{}`)}})
	var problem string
	for _, p := range h.Plugins() {
		if p.Name == "foreign" {
			problem = p.Problem
		}
	}
	for _, want := range []string{"exec format error", runtime.GOOS + "/" + runtime.GOARCH} {
		if !strings.Contains(problem, want) {
			t.Fatalf("the plugin's problem %q does not say %q", problem, want)
		}
	}
	if len(res) != 1 || !strings.Contains(res[0].Text(), "exec format error") {
		t.Fatalf("the call's result does not say why its plugin is missing: %+v", res)
	}
}

// garbageFile is an executable file that is no program: exec fails with
// ENOEXEC, as for a binary of another architecture.
func garbageFile(t *testing.T) string {
	p := filepath.Join(t.TempDir(), "riot-tool-foreign")
	if err := os.WriteFile(p, []byte("\x7fELF\x02\x01\x01garbage-not-a-program"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}
