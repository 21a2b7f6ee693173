package core

import (
	"context"
	"os/exec"
	"testing"

	"github.com/riot-tools/riot/config"
)

// needBwrap skips where bubblewrap cannot start a sandbox; CI installs it.
func needBwrap(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bwrap is not installed (apt-get install bubblewrap)")
	}
	if err := ProbeSandbox(context.Background()); err != nil {
		t.Skip(err)
	}
}

// With the sandbox off nothing is probed.
func TestSandboxProbeNotStartedWhenOff(t *testing.T) {
	h, _ := sandboxHostFor(t, nil, config.Sandbox{Mode: "off"})
	h.startNeeded(nil)
	h.sbox.probing.Wait()
	ran := true
	h.sbox.probeOnce.Do(func() { ran = false })
	if ran {
		t.Fatal("a host with the sandbox off started bwrap to probe it")
	}
}

// The probe's answer stands for the host's life, so the turn that first
// needs it being cancelled does not make the sandbox broken: in auto mode
// that would run every later command unconfined.
func TestSandboxProbeOutlivesACancelledTurn(t *testing.T) {
	needBwrap(t)
	h, _ := sandboxHostFor(t, nil, config.Sandbox{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := h.probeSandbox(ctx); err != nil {
		t.Fatalf("a probe under a cancelled turn gave %v; bwrap works here", err)
	}
	if st := h.SandboxStatus(context.Background()); !st.On || st.Problem != "" {
		t.Fatalf("after a cancelled turn the sandbox is %+v, want on", st)
	}
}
