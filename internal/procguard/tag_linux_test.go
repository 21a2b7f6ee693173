//go:build linux && !mutation

// Not under the mutation tag: a mutant of the code that kills processes
// could kill processes that are not the test's.

package procguard

import (
	"bufio"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/riot-tools/riot/internal/proctest"
)

// startReporting starts `sh -c script` with env and attr, and returns the
// pids it prints, n lines of one pid each. The test kills what is left.
func startReporting(t *testing.T, env []string, attr *syscall.SysProcAttr, script string, n int) []int {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.Env = env
	cmd.SysProcAttr = attr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var pids []int
	t.Cleanup(func() {
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	sc := bufio.NewScanner(out)
	for range n {
		if !sc.Scan() {
			t.Fatalf("%q printed %d pids of %d", script, len(pids), n)
		}
		pids = append(pids, pidOf(t, strings.TrimSpace(sc.Text())))
	}
	return pids
}

// A Guard's input ending kills every process that carries its tag, however
// it detached, and the group of each that leads one; it spares the
// untagged, a group a tagged process only joined, and the carriers of a
// name that is not a tag.
func TestRunGuardKillsTaggedProcesses(t *testing.T) {
	tag := newTag()
	own := &syscall.SysProcAttr{Setpgid: true}
	tagged := startReporting(t, append(os.Environ(), tag+"=1"), own, detached, 4)
	untagged := startReporting(t, os.Environ(), own, `echo $$; exec sleep 300`, 1)[0]
	notATag := TagPrefix + "0123"
	fake := startReporting(t, append(os.Environ(), notATag+"=1"), own, `echo $$; exec sleep 300`, 1)[0]
	// A tagged process in the untagged one's group: itself killed, the
	// group it joined not.
	joined := startReporting(t, append(os.Environ(), tag+"=1"), &syscall.SysProcAttr{Setpgid: true, Pgid: untagged}, `echo $$; exec sleep 300`, 1)[0]

	RunGuard(strings.NewReader("=" + notATag + "\n=" + tag + "\n"))
	signal.Reset(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE)

	for _, pid := range append(tagged, joined) {
		if !proctest.WaitExit(pid, 3*time.Second) {
			t.Errorf("tagged process %d outlived the guard's input by 3 s", pid)
		}
	}
	for _, pid := range []int{untagged, fake} {
		if err := syscall.Kill(pid, 0); err != nil {
			t.Errorf("process %d, which does not carry the tag, was killed: %v", pid, err)
		}
	}
}

// A name that is not a tag, sent alone, makes the Guard kill nothing.
func TestRunGuardIgnoresANameThatIsNotATag(t *testing.T) {
	notATag := TagPrefix + "short"
	pid := startReporting(t, append(os.Environ(), notATag+"=1"), &syscall.SysProcAttr{Setpgid: true}, `echo $$; exec sleep 300`, 1)[0]
	RunGuard(strings.NewReader("=" + notATag + "\n"))
	signal.Reset(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE)
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("a carrier of %q was killed: %v", notATag, err)
	}
}

// Env adds the running guard's tag to a copy of the environment, and a
// nil Guard leaves the environment as it is.
func TestGuardEnvAddsItsTag(t *testing.T) {
	var none *Guard
	base := make([]string, 1, 4)
	base[0] = "A=1"
	if got := none.Env(base); len(got) != 1 || got[0] != "A=1" {
		t.Fatalf("a nil Guard's Env = %q", got)
	}
	g := New(hclog.NewNullLogger(), withoutOwner(os.Environ()))
	got := g.Env(base)
	t.Cleanup(func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		if g.w != nil {
			_ = g.w.Close()
		}
	})
	if len(got) != 2 || got[0] != "A=1" || !strings.HasSuffix(got[1], "=1") || !validTag(strings.TrimSuffix(got[1], "=1")) {
		t.Fatalf("Env = %q, want A=1 and a tag", got)
	}
	if spare := base[:2]; spare[1] != "" {
		t.Fatalf("Env wrote into the caller's slice: %q", spare)
	}
	if again := g.Env(nil); len(again) != 1 || again[0] != got[1] {
		t.Fatalf("a second Env = %q, want the same tag %q", again, got[1])
	}
}

// An owner's SIGKILL, before it registered a command's group, makes its
// Guard kill the command and all it forked by the tag, and nothing
// untagged.
func TestGuardKillsWhatItsOwnerNeverRegistered(t *testing.T) {
	line, kill := startOwner(t, tagOwnerEnv)
	groups := strings.Split(line, ",")
	if len(groups) != 2 {
		t.Fatalf("read %q", line)
	}
	var tagged, untagged []int
	for _, f := range strings.Fields(groups[0]) {
		tagged = append(tagged, pidOf(t, f))
	}
	for _, f := range strings.Fields(groups[1]) {
		untagged = append(untagged, pidOf(t, f))
	}
	t.Cleanup(func() {
		for _, pid := range append(tagged, untagged...) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	kill()
	for _, pid := range tagged {
		if !proctest.WaitExit(pid, 3*time.Second) {
			t.Errorf("process %d of the unregistered command outlived its owner by 3 s", pid)
		}
	}
	for _, pid := range untagged {
		if err := syscall.Kill(pid, 0); err != nil {
			t.Errorf("untagged process %d was killed: %v", pid, err)
		}
	}
}
