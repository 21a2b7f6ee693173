//go:build !mutation

// Not under the mutation tag: a mutant of the code that kills processes
// could kill processes that are not the test's.

package procguard

import (
	"errors"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A Guard's input ending kills the groups still registered, and not the
// ones removed.
func TestRunGuardKillsRegisteredGroups(t *testing.T) {
	start := func() *exec.Cmd {
		cmd := exec.Command("sleep", "300")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		return cmd
	}
	kept, killed := start(), start()
	in := strings.NewReader("+" + itoa(killed.Process.Pid) + "\n+" + itoa(kept.Process.Pid) + "\n-" + itoa(kept.Process.Pid) + "\n+1\n+x\n\n")
	RunGuard(in)
	// RunGuard ignores signals as a guard does; the test binary must not.
	signal.Reset(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE)
	done := make(chan error, 1)
	go func() { done <- killed.Wait() }()
	select {
	case err := <-done:
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Fatalf("the registered group ended with %v, not SIGKILL", err)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("the registered group outlived the guard's input by 3 s")
	}
	if err := syscall.Kill(kept.Process.Pid, 0); err != nil {
		t.Fatalf("the removed group was killed: %v", err)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
