//go:build linux

package plugin_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/riot-tools/riot/internal/bwrap"
	"github.com/riot-tools/riot/plugin"
	"github.com/riot-tools/riot/plugin/sandbox"
)

// Every command a call's Proc starts goes without the variables its
// profile hides, whether it runs in a bwrap of its own, in a long-lived
// sandbox, or unconfined where bwrap cannot run; in proxy mode a sandboxed
// one gets riot's proxy variables, an unconfined one (which could not
// reach the proxy) does not.
func TestProcHidesVariables(t *testing.T) {
	if _, err := bwrap.Find(); err != nil {
		if os.Getenv("RIOT_REQUIRE_SANDBOX") != "" {
			t.Fatalf("RIOT_REQUIRE_SANDBOX is set but %v", err)
		}
		t.Skipf("needs bubblewrap: %v", err)
	}
	t.Setenv("RIOT_TEST_TOKEN", "secret-value")
	t.Setenv("KEEP_TOKEN", "kept-value")
	dir := t.TempDir()
	profile := &sandbox.Profile{
		Writable: true, Network: true, WritePaths: []string{dir},
		Egress:  &sandbox.Egress{Socket: filepath.Join(dir, "egress.sock"), User: "u", Password: "p"},
		HideEnv: []string{"*_token"}, PassEnv: []string{"KEEP_TOKEN"},
	}
	proc := plugin.NewOSProc()
	t.Cleanup(proc.Close)
	noBwrap := plugin.NewOSProcFindingBwrap(func() (string, error) { return "", errors.New("no bwrap here") })
	for _, c := range []struct {
		name      string
		proc      plugin.Proc
		shared    bool
		proxyVars bool
	}{
		{"direct", proc.Sandboxed(profile), false, true},
		{"pooled", proc.Sandboxed(profile), true, true},
		{"unconfined", noBwrap.Sandboxed(profile), false, false},
	} {
		out, err := os.CreateTemp(dir, "out")
		if err != nil {
			t.Fatal(err)
		}
		// A nil Env is the plugin's own environment, hidden all the same.
		cmd := exec.Command("/usr/bin/env")
		cmd.Dir = dir
		cmd.Stdout, cmd.Stderr = out, out
		var p plugin.Process
		if c.shared {
			p, err = plugin.StartShared(t.Context(), c.proc, cmd)
		} else {
			p, err = c.proc.Start(t.Context(), cmd)
		}
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if err := p.Wait(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		_ = out.Close()
		b, err := os.ReadFile(out.Name())
		if err != nil {
			t.Fatal(err)
		}
		env := string(b)
		if strings.Contains(env, "secret-value") || !strings.Contains(env, "KEEP_TOKEN=kept-value\n") {
			t.Errorf("%s: the hidden variable shows or the passed one does not:\n%s", c.name, env)
		}
		if got := strings.Contains(env, "http_proxy=http://u:p@127.0.0.1:3128\n"); got != c.proxyVars {
			t.Errorf("%s: proxy variables %v, want %v:\n%s", c.name, got, c.proxyVars, env)
		}
	}
}
