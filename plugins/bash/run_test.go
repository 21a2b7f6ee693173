//go:build linux

package bash

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/riot-tools/riot/plugin/plugintest"
	"github.com/riot-tools/riot/shared"
)

func TestSessionCwdPersists(t *testing.T) {
	f := newFixture(t, nil)
	c := f.c
	sub := filepath.Join(c.Cwd, "sub dir")

	res := c.Call("Bash", run(`mkdir "sub dir" && cd "sub dir" && pwd`))
	if !res.Ok || res.Text != sub+"\n" {
		t.Fatalf("cd into a new directory: ok=%v text=%q msg=%q", res.Ok, res.Text, res.Message)
	}
	if c.State[cwdStateKey] != sub {
		t.Fatalf("the directory the command ended in was not recorded: state=%v", c.State)
	}

	res = c.Call("Bash", run("pwd"))
	if res.Text != sub+"\n" {
		t.Fatalf("the next call did not start where the last one ended: %q", res.Text)
	}

	// A failing command still moved the shell, so the directory still
	// persists.
	res = c.Call("Bash", run("cd .. && false"))
	if res.Ok {
		t.Fatalf("false succeeded: %+v", res)
	}
	if _, kept := c.State[cwdStateKey]; kept {
		t.Fatalf("back in the workspace directory, the state should be cleared, got %v", c.State)
	}

	// exit N runs the EXIT trap, so the directory is still known.
	res = c.Call("Bash", run(`cd "sub dir"; exit 3`))
	if firstLine(res.Message) != "Exit status 3." || c.State[cwdStateKey] != sub {
		t.Fatalf("exit 3 after cd: msg=%q state=%v", res.Message, c.State)
	}

	// exec replaces the shell and its trap: the directory is unknown and
	// the previous one stays.
	res = c.Call("Bash", run("cd / && exec true"))
	if !res.Ok || c.State[cwdStateKey] != sub {
		t.Fatalf("exec: the previous directory should stay: ok=%v state=%v", res.Ok, c.State)
	}
}

// The command is bash's script as written: the trap that reports the
// directory neither shows nor changes how it runs.
func TestCommandRunsUnmodified(t *testing.T) {
	f := newFixture(t, nil)
	c := f.c
	tests := []struct {
		name, cmd string
		ok        bool
		want      string // a substring of the output
		wantNot   string
	}{
		{"no positional parameters", `echo "$0 $#"`, true, "bash 0\n", ""},
		{"line numbers match the command", "echo a\nnosuchcmd_riot_test", false, "line 2: nosuchcmd_riot_test: command not found", ""},
		{"syntax errors name the line", "echo a\nif", false, "line 3: syntax error: unexpected end of file", ""},
		{"an unterminated heredoc swallows nothing", "cat <<EOF\nhello", true, "hello\n", "pwd"},
		{"an unterminated quote swallows nothing", `echo "abc`, false, "unexpected EOF while looking for matching", "pwd"},
		{"a deleted directory makes no noise", "mkdir gone && cd gone && rmdir ../gone && echo done", true, "done\n", "pwd"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := c.Call("Bash", run(tt.cmd))
			if res.Ok != tt.ok || !strings.Contains(res.Text, tt.want) || tt.wantNot != "" && strings.Contains(res.Text, tt.wantNot) {
				t.Fatalf("%q: ok=%v text=%q msg=%q", tt.cmd, res.Ok, res.Text, res.Message)
			}
		})
	}

	// noclobber does not stop the trap.
	c.State = map[string]string{}
	if err := os.Mkdir(filepath.Join(c.Cwd, "nc"), 0o700); err != nil {
		t.Fatal(err)
	}
	c.Call("Bash", run("set -o noclobber; cd nc"))
	if c.State[cwdStateKey] != filepath.Join(c.Cwd, "nc") {
		t.Fatalf("noclobber lost the directory: %v", c.State)
	}
	// A command that does not parse runs nothing; the directory stays.
	c.Call("Bash", run("cd / && if"))
	if c.State[cwdStateKey] != filepath.Join(c.Cwd, "nc") {
		t.Fatalf("a syntax error moved the session: %v", c.State)
	}
}

func TestMissingCwdFallsBackToWorkspace(t *testing.T) {
	f := newFixture(t, nil)
	c := f.c
	gone := filepath.Join(t.TempDir(), "gone")
	c.State[cwdStateKey] = gone

	res := c.Call("Bash", run("pwd"))
	if !res.Ok || res.Text != c.Cwd+"\n" {
		t.Fatalf("should run in the workspace directory: ok=%v text=%q", res.Ok, res.Text)
	}
	if !strings.Contains(res.Message, "The working directory "+gone+" no longer exists") {
		t.Fatalf("the note should say the directory is gone: %q", res.Message)
	}
	if _, kept := c.State[cwdStateKey]; kept {
		t.Fatalf("the stale directory should be cleared from the state: %v", c.State)
	}

	// Same for a failed command: the note follows the cause.
	c.State[cwdStateKey] = gone
	res = c.Call("Bash", run("exit 4"))
	if firstLine(res.Message) != "Exit status 4." || !strings.Contains(res.Message, "no longer exists") {
		t.Fatalf("failed command in a missing directory: %q", res.Message)
	}
}

func TestEnvironmentDoesNotPersist(t *testing.T) {
	f := newFixture(t, nil)
	f.c.Call("Bash", run("export RIOT_TEST_FOO=1"))
	res := f.c.Call("Bash", run(`echo "[$RIOT_TEST_FOO]"`))
	if res.Text != "[]\n" {
		t.Fatalf("an exported variable leaked into the next call: %q", res.Text)
	}
}

func TestEnvironmentIsThePluginsWithoutProtocolVariables(t *testing.T) {
	t.Setenv("RIOT_TEST_USER_VAR", "from the user")
	t.Setenv(shared.Handshake.MagicCookieKey, "secret cookie")
	f := newFixture(t, nil)
	res := f.c.Call("Bash", run(`echo "[$RIOT_TEST_USER_VAR] [${`+shared.Handshake.MagicCookieKey+`:-}] [$PWD]"`))
	want := "[from the user] [] [" + f.c.Cwd + "]\n"
	if res.Text != want {
		t.Fatalf("environment: got %q, want %q", res.Text, want)
	}
}

func TestStdinIsDevNull(t *testing.T) {
	f := newFixture(t, nil)
	res := f.c.Call("Bash", runT(`cat; read -r x; echo "read exit $?"`, 10_000))
	if !res.Ok || res.Text != "read exit 1\n" {
		t.Fatalf("a read from stdin should see end of file at once: ok=%v text=%q", res.Ok, res.Text)
	}
}

func TestInterleavedOutputKeepsOrder(t *testing.T) {
	f := newFixture(t, nil)
	res := f.c.Call("Bash", run(`for i in 1 2 3; do echo out$i; echo err$i >&2; done`))
	want := "out1\nerr1\nout2\nerr2\nout3\nerr3\n"
	if !res.Ok || res.Text != want {
		t.Fatalf("stdout and stderr out of order: %q, want %q", res.Text, want)
	}
}

// Text on the wire is UTF-8 (the host refuses anything else): NUL passes
// through, a byte that is not UTF-8 becomes U+FFFD.
func TestOutputBytesPassThrough(t *testing.T) {
	f := newFixture(t, nil)
	res := f.c.Call("Bash", run(`printf 'a\xffb\x00c'`))
	if !bytes.Equal(res.Blocks[0].Data, []byte("a\uFFFDb\x00c")) {
		t.Fatalf("NUL should pass through and invalid UTF-8 become U+FFFD: %q", res.Blocks[0].Data)
	}
}

func TestLargeOutputIsStreamedWhole(t *testing.T) {
	f := newFixture(t, nil)
	const n = 5_000_000
	res := f.c.Call("Bash", run(`head -c 5000000 /dev/zero | tr '\0' a`))
	if !res.Ok || len(res.Text) != n || strings.Trim(res.Text, "a") != "" {
		t.Fatalf("got %d bytes, want %d of 'a'", len(res.Text), n)
	}
	if res.Chunks < 2 {
		t.Fatalf("5 MB arrived in %d chunk(s); it should stream", res.Chunks)
	}
	var ui runUI
	if err := json.Unmarshal(res.UI, &ui); err != nil || ui.OutputBytes != n {
		t.Fatalf("ui = %s (%v)", res.UI, err)
	}
}

func TestExitStatus(t *testing.T) {
	f := newFixture(t, nil)
	dir := f.c.Cwd
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "b.txt"), []byte("beta\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, cmd string
		ok        bool
		// message is the whole note of an Ok result, or the first line of
		// a Failed one.
		message string
		detail  string
	}{
		{"success", "true", true, "", ""},
		{"plain failure", "false", false, "Exit status 1.", ""},
		{"exit code", "exit 3", false, "Exit status 3.", ""},
		{"grep no match", "grep zzz a.txt", true, "(exit status 1: no match)", ""},
		{"grep no match after a pipe", "cat a.txt | grep zzz", true, "(exit status 1: no match)", ""},
		{"grep error is a failure", "grep zzz missing.txt", false, "Exit status 2.", ""},
		{"diff differs", "diff a.txt b.txt", true, "(exit status 1: files differ)", ""},
		{"cmp differs", "cmp -s a.txt b.txt", true, "(exit status 1: files differ)", ""},
		{"test false", "test -e nothing-here", true, "(exit status 1: false)", ""},
		{"bracket false", "[ -e nothing-here ]", true, "(exit status 1: false)", ""},
		{"grep not last", "grep zzz a.txt; false", false, "Exit status 1.", ""},
		{"grep no match then echo", "grep zzz a.txt && echo found", false, "Exit status 1.", ""},
		{"status 2 from test", "test 1 -gt", false, "Exit status 2.", ""},
		{"child killed by signal", "bash -c 'kill -TERM $$'", false, "Exit status 143.", "143 is 128 + 15: the command was probably killed by SIGTERM"},
		{"bash killed by signal", "kill -KILL $$", false, "Killed by signal SIGKILL.", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := f.c.Call("Bash", run(tt.cmd))
			if res.Ok != tt.ok {
				t.Fatalf("%s: ok=%v, want %v (message %q, output %q)", tt.cmd, res.Ok, tt.ok, res.Message, res.Text)
			}
			got := res.Message
			if !tt.ok {
				got = firstLine(got)
			}
			if got != tt.message {
				t.Fatalf("%s: message %q, want %q", tt.cmd, got, tt.message)
			}
			if !strings.Contains(res.Message, tt.detail) {
				t.Fatalf("%s: message %q should explain %q", tt.cmd, res.Message, tt.detail)
			}
		})
	}
}

func TestTimeoutKeepsPartialOutput(t *testing.T) {
	f := newFixture(t, nil)
	start := time.Now()
	res := f.c.Call("Bash", runT("echo partial; sleep 30", 1000))
	elapsed := time.Since(start)
	if elapsed > 3*time.Second {
		t.Fatalf("a 1 s timeout took %v to come back", elapsed)
	}
	if res.Ok || firstLine(res.Message) != "Command timed out after 1 s." {
		t.Fatalf("should fail as timed out: ok=%v msg=%q", res.Ok, res.Message)
	}
	if !strings.HasPrefix(res.Text, "partial\n") {
		t.Fatalf("the output before the timeout was lost: %q", res.Text)
	}
	if !strings.Contains(res.Text, "timed out after 1 s and was stopped; the output above is incomplete") {
		t.Fatalf("the content should say it is incomplete: %q", res.Text)
	}
	var ui runUI
	if err := json.Unmarshal(res.UI, &ui); err != nil || !ui.TimedOut {
		t.Fatalf("ui = %s", res.UI)
	}
	// A command that did not exit by itself has no exit code, not 0.
	if !strings.Contains(string(res.UI), `"exit_code":null`) {
		t.Fatalf("a timed-out command's UI should say exit_code null: %s", res.UI)
	}
}

func TestExitCodeInUI(t *testing.T) {
	f := newFixture(t, nil)
	for cmd, want := range map[string]string{"true": `"exit_code":0`, "exit 3": `"exit_code":3`, "kill -9 $$": `"exit_code":null`} {
		res := f.c.Call("Bash", run(cmd))
		if !strings.Contains(string(res.UI), want) {
			t.Errorf("%s: UI %s lacks %s", cmd, res.UI, want)
		}
	}
}

// A group that ignores SIGTERM gets SIGKILL after the grace.
func TestTimeoutEscalatesToSIGKILL(t *testing.T) {
	f := newFixture(t, func(c *config) { c.killGrace = 300 * time.Millisecond })
	fifo := mkfifo(t, "pids")
	watch := make(chan exitWatch, 1)
	go func() {
		line, _ := readFifoLine(fifo)
		watch <- watchExit(t, pids(t, line)...)
	}()
	start := time.Now()
	res := f.c.Call("Bash", runT(`trap '' TERM; sleep 30 & echo "$! $$" > `+shellQuote(fifo)+`; wait`, 500))
	elapsed := time.Since(start)
	if res.Ok || firstLine(res.Message) != "Command timed out after 0.5 s." {
		t.Fatalf("should time out: %q", res.Message)
	}
	if elapsed < 800*time.Millisecond {
		t.Fatalf("came back after %v: SIGKILL came before the grace", elapsed)
	}
	if left := (<-watch).wait(time.Now().Add(time.Second)); len(left) > 0 {
		t.Errorf("survived SIGKILL: %v", left)
	}
}

// With a clock whose Sleep returns at once, the timeout fires at once: the
// timeout path is tested without waiting.
func TestTimeoutUsesTheClock(t *testing.T) {
	clock := plugintest.NewFixedClock(time.Unix(0, 0))
	f := newFixture(t, nil, plugintest.WithClock(clock))
	start := time.Now()
	res := f.c.Call("Bash", run("sleep 30"))
	if res.Ok || firstLine(res.Message) != "Command timed out after 120 s." {
		t.Fatalf("should time out at once under a fixed clock: %q", res.Message)
	}
	if time.Since(start) > 2*time.Second {
		t.Fatalf("took %v", time.Since(start))
	}
}

func TestCancellationKillsTheGroup(t *testing.T) {
	f := newFixture(t, nil)
	fifo := mkfifo(t, "pids")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type started struct {
		watch exitWatch
		at    time.Time
		pids  []int
	}
	ready := make(chan started, 1)
	go func() {
		line, err := readFifoLine(fifo)
		if err != nil {
			t.Error(err)
		}
		p := pids(t, line)
		// Watched before the cancel, so their exit cannot be missed.
		w := watchExit(t, p...)
		cancel()
		ready <- started{w, time.Now(), p}
	}()
	res := f.c.CallContext(ctx, "Bash", run(`sleep 30 & a=$!; sleep 30 & b=$!; echo "$a $b $$" > `+shellQuote(fifo)+`; wait`))
	if res.Ok {
		t.Fatalf("a cancelled call succeeded: %+v", res)
	}
	s := <-ready
	if left := s.watch.wait(s.at.Add(time.Second)); len(left) > 0 {
		t.Fatalf("still running 1 s after the cancel: %v of %v", left, s.pids)
	}
}

// Processes left behind with & that still hold the output are stopped when
// the command ends, and the note says so; those that write elsewhere keep
// running.
func TestBackgroundedProcessesAtExit(t *testing.T) {
	f := newFixture(t, nil)

	res := f.c.Call("Bash", run("sleep 30 & echo $!"))
	if !res.Ok || !strings.Contains(res.Message, "still wrote to its output, so they were stopped") {
		t.Fatalf("a stray holding the output: ok=%v msg=%q", res.Ok, res.Message)
	}
	stray := pids(t, res.Text)[0]
	if left := watchExit(t, stray).wait(time.Now().Add(3 * time.Second)); len(left) > 0 {
		t.Fatalf("the stray %d is still running", stray)
	}

	res = f.c.Call("Bash", run("sleep 30 >/dev/null 2>&1 & echo $!"))
	if !res.Ok || !strings.Contains(res.Message, "still running; they stop when the plugin or the session ends") {
		t.Fatalf("a survivor writing elsewhere: ok=%v msg=%q", res.Ok, res.Message)
	}
	if survivor := pids(t, res.Text)[0]; !alive(survivor) {
		t.Fatalf("the survivor %d should still run", survivor)
	}
}

// A process that left the group (setsid) and holds the output cannot be
// killed with the group: the call cuts its output off instead of waiting
// for it forever.
func TestOutputHeldOutsideTheGroupIsAbandoned(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid")
	}
	f := newFixture(t, func(c *config) {
		c.killGrace = 100 * time.Millisecond
		c.abandonAfter = 100 * time.Millisecond
	})
	start := time.Now()
	res := f.c.Call("Bash", run("setsid sleep 30 & echo $!"))
	if escaped := pids(t, res.Text); len(escaped) == 1 {
		t.Cleanup(func() { _ = syscall.Kill(escaped[0], syscall.SIGKILL) })
	}
	if !res.Ok || !strings.Contains(res.Message, "left the command's process group still held its output") {
		t.Fatalf("ok=%v msg=%q", res.Ok, res.Message)
	}
	if time.Since(start) > 10*time.Second {
		t.Fatalf("took %v", time.Since(start))
	}
}

func TestMissingBash(t *testing.T) {
	f := newFixture(t, func(c *config) {
		c.lookPath = func(string) (string, error) { return "", os.ErrNotExist }
	})
	res := f.c.Call("Bash", run("true"))
	if res.Ok || !strings.HasPrefix(res.Message, "bash was not found on the PATH") {
		t.Fatalf("missing bash: %q", res.Message)
	}
}

func TestWorkspaceDirMissing(t *testing.T) {
	f := newFixture(t, nil)
	f.c.Cwd = filepath.Join(t.TempDir(), "nope")
	res := f.c.Call("Bash", run("true"))
	if res.Ok || !strings.Contains(res.Message, "the directory does not exist or is not accessible") {
		t.Fatalf("missing workspace directory: %q", res.Message)
	}
}
