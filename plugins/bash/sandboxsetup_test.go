//go:build linux

package bash

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/riot-tools/riot/plugin"
	"github.com/riot-tools/riot/plugin/plugintest"
)

// setupLimit is a generous bound on a call whose sandbox cannot be set up:
// it must fail at once, not after the pool's 10 s start timeout.
const setupLimit = 5 * time.Second

// fakeBwrap is a bwrap that passes riot's checks (it is given to the probe
// directly) but fails every sandbox the way bwrap does, with its own text.
func fakeBwrap(t *testing.T, message string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "bwrap")
	script := "#!/bin/sh\necho " + shellQuote(message) + " >&2\nexit 1\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// callWithin runs a Bash call and fails the test if it takes longer than
// setupLimit.
func callWithin(t *testing.T, f *fixture, command string) plugintest.Result {
	t.Helper()
	got := make(chan plugintest.Result, 1)
	go func() { got <- f.c.Call("Bash", run(command)) }()
	select {
	case res := <-got:
		return res
	case <-time.After(setupLimit):
		t.Fatalf("a sandbox that could not be set up held the call for over %s", setupLimit)
	}
	return plugintest.Result{}
}

// A sandbox bwrap cannot set up fails the call at once, with riot's words
// for what failed (the path it could not mount) and what to do, never
// bwrap's text as the reason; in the long-lived sandbox and in a sandbox of
// the command's own alike.
func TestSandboxSetupFailureIsFastAndWorded(t *testing.T) {
	const bad = "/nonexistent/riot-setup-test"
	for _, tc := range []struct {
		name, message, want string
	}{
		{"a path", "bwrap: Can't mkdir parents for " + bad + ": No such file or directory", "could not mount " + bad},
		{"unknown", "bwrap: something no one classified", "bwrap exited before the command started"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := fakeBwrap(t, tc.message)
			proc := plugin.NewOSProcFindingBwrap(func() (string, error) { return fake, nil })
			t.Cleanup(proc.Close)
			f := newFixture(t, nil, plugintest.WithProc(proc))
			f.sandbox(true)
			for range 2 { // the second finds what the first left of the pool
				res := callWithin(t, f, "echo ran")
				if res.Ok || !strings.Contains(res.Message, "the kernel sandbox could not be set up") || !strings.Contains(res.Message, tc.want) {
					t.Fatalf("ok=%v msg=%q text=%q", res.Ok, res.Message, res.Text)
				}
				if strings.Contains(res.Message, "bwrap: ") || strings.Contains(res.Message, "Exit status") {
					t.Fatalf("bwrap's text or its status is given as the reason: %q", res.Message)
				}
				if strings.Contains(res.Text, "ran") {
					t.Fatalf("the command ran: %q", res.Text)
				}
			}
		})
	}
}

// A command naming a path under /proc runs: the subject /proc/self/...
// (and the riot pid it resolves to) is never bound from the host, which
// made bwrap fail every such sandbox.
func TestSandboxProcPathSubject(t *testing.T) {
	needBwrap(t)
	f := newFixture(t, nil)
	f.sandbox(true)
	self, err := filepath.EvalSymlinks("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	f.c.Sandbox.ReadPaths = []string{"/proc/self/status", self, "/sys/kernel", "/dev/null"}
	f.c.Sandbox.WritePaths = append(f.c.Sandbox.WritePaths, "/proc/self/fd", "/dev/shm")
	res := callWithin(t, f, "head -1 /proc/self/status")
	if !res.Ok || !strings.HasPrefix(res.Text, "Name:") {
		t.Fatalf("ok=%v msg=%q text=%q", res.Ok, res.Message, res.Text)
	}
}

// A background job whose sandbox could not be set up says so in riot's
// words, not as an exit status.
func TestBackgroundJobSandboxSetupFailure(t *testing.T) {
	const bad = "/nonexistent/riot-setup-job"
	fake := fakeBwrap(t, "bwrap: Can't mkdir parents for "+bad+": No such file or directory")
	proc := plugin.NewOSProcFindingBwrap(func() (string, error) { return fake, nil })
	t.Cleanup(proc.Close)
	f := newFixture(t, nil, plugintest.WithProc(proc))
	f.sandbox(true)
	if res := f.c.Call("Bash", background("echo ran")); !res.Ok {
		t.Fatalf("start: %q", res.Message)
	}
	f.waitJob(t, "bash_1")
	res := f.c.Call("BashOutput", map[string]any{"bash_id": "bash_1"})
	all := res.Text + res.Message
	if !strings.Contains(all, "the kernel sandbox could not be set up") || !strings.Contains(all, "could not mount "+bad) || strings.Contains(all, "exited with status") {
		t.Fatalf("text=%q msg=%q", res.Text, res.Message)
	}
}
