package main_test

import (
	"bytes"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// onPty runs cmd with stdin and stderr on a new pseudo-terminal, which the
// caller's SysProcAttr may make its controlling one or not. Each time a
// prompt ("Answer: ") appears, it types what answer says to all the
// terminal showed so far. It returns the terminal's text, stdout and the
// exit code.
func onPty(t *testing.T, cmd *exec.Cmd, answer func(shown string) string) (shown, stdout string, code int) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatalf("open a pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	var out bytes.Buffer
	cmd.Stdin, cmd.Stderr, cmd.Stdout = tty, tty, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var seen strings.Builder
	chunks := make(chan string, 64)
	go func() {
		defer close(chunks)
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			if n > 0 {
				chunks <- string(buf[:n])
			}
			if err != nil {
				return
			}
		}
	}()
	timeout := time.NewTimer(60 * time.Second)
	defer timeout.Stop()
	prompts := 0
	for done := false; !done; {
		select {
		case c, ok := <-chunks:
			if !ok {
				done = true
				break
			}
			seen.WriteString(c)
			if n := strings.Count(seen.String(), "Answer: "); n > prompts {
				prompts = n
				if _, err := ptmx.Write([]byte(answer(seen.String()) + "\n")); err != nil {
					t.Fatal(err)
				}
			}
		case <-timeout.C:
			_ = cmd.Process.Kill()
			<-exited
			t.Fatalf("riot did not finish; the terminal showed %q", seen.String())
		}
	}
	err = <-exited
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(seen.String(), "\r\n", "\n"), out.String(), code
}

// A `riot call --session` whose stdin and stderr are a terminal that is
// not its controlling terminal (a process that opened a pty to pass for a
// person) tells the host it is a terminal, and would allow anything it is
// asked: the host asks it nothing, and denies the call as without a
// terminal, with the rule that would allow it.
func TestSessionHostAsksOnlyTheClientsOwnTerminal(t *testing.T) {
	e := newEnv(t)
	e.userConfig(leakGuard)
	startHost(t, e, "S")
	cmd := e.command("", "call", "--session", "S", "Bash", `{"command":"touch forged"}`)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // no controlling terminal
	shown, stdout, code := onPty(t, cmd, func(string) string { return "y" })
	if code != 1 || !strings.Contains(stdout+shown, "Bash(touch:*)") || strings.Contains(shown, "wants to:") {
		t.Fatalf("want denied unasked, with the rule: exit %d\nterminal: %s\nstdout: %s", code, shown, stdout)
	}
	if exists(filepath.Join(e.ws, "forged")) {
		t.Fatal("a forged terminal's answer ran the call")
	}
}

// A riot client inside a real bwrap sandbox (new user, PID and mount
// namespaces), which sees the host's socket and its description, on a
// terminal that says yes to the host's prompt, is refused by the host
// before its hello is read: it warns why and runs the turn itself, where
// it is denied here. The host goes on serving its own clients.
func TestSessionHostRefusesASandboxedClient(t *testing.T) {
	requireSandbox(t)
	e := newEnv(t)
	e.userConfig(leakGuard + "\n[sandbox]\nmode = \"off\"\n")
	m := startHost(t, e, "S")
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		t.Fatal(err)
	}
	inner := e.command("", "call", "--session", "S", "Bash", `{"command":"touch forged"}`)
	cmd := exec.Command(bwrap, "--unshare-user", "--unshare-pid", "--die-with-parent", "--bind", "/", "/",
		"--proc", "/proc", "--dev", "/dev", "--chdir", e.ws, "--", inner.Path)
	cmd.Args = append(cmd.Args, inner.Args[1:]...)
	cmd.Env = inner.Env
	const refused = "the session host refuses this client: it runs in another mount, PID or user namespace than the host (inside a sandbox)"
	// Yes to the host; once refused, no to the client's own prompt.
	shown, stdout, code := onPty(t, cmd, func(shown string) string {
		if strings.Contains(shown, refused) {
			return "n"
		}
		return "y"
	})
	if !strings.Contains(shown, "riot: warning: "+refused) || !strings.Contains(shown, "running this turn here") {
		t.Fatalf("the client should say why the host refused it:\n%s", shown)
	}
	if code != 1 || exists(filepath.Join(e.ws, "forged")) {
		t.Fatalf("a sandboxed client's call ran: exit %d\nterminal: %s\nstdout: %s", code, shown, stdout)
	}
	if err := syscall.Kill(m.Pid, 0); err != nil {
		t.Fatalf("the host should still serve: %v", err)
	}
}
