package sessionhost

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/riot-tools/riot/core"
	"github.com/riot-tools/riot/core/permission"
)

// clientCmd is a client process (clientMain) sending hello and uses to
// h's socket, answering prompts with answer.
func (h *testHost) clientCmd(hello Hello, answer string, uses ...core.ToolUse) *exec.Cmd {
	h.t.Helper()
	req, err := json.Marshal(clientRequest{Socket: h.srv.Paths.Socket, Hello: hello, Uses: uses, Answer: answer})
	if err != nil {
		h.t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		h.t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), clientEnv+"="+string(req))
	return cmd
}

// outcome runs cmd, whose stdout it sets, and reads what the client saw.
func outcome(t *testing.T, cmd *exec.Cmd) clientOutcome {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	if cmd.Stderr == nil {
		cmd.Stderr = &stderr
	}
	if err := cmd.Run(); err != nil {
		t.Fatalf("the client failed: %v\n%s%s", err, stdout.String(), stderr.String())
	}
	return decodeOutcome(t, stdout.Bytes())
}

func decodeOutcome(t *testing.T, data []byte) clientOutcome {
	t.Helper()
	var out clientOutcome
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatalf("the client's outcome %q: %v", data, err)
	}
	return out
}

// openPty opens a pseudo-terminal whose both ends the test closes.
func openPty(t *testing.T) (ptmx, tty *os.File) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatalf("open a pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { _ = ptmx.Close(); _ = tty.Close() })
	return ptmx, tty
}

// A client whose process has no terminal of its own, or a terminal on its
// stdin and stderr that is not its controlling terminal, or its
// controlling terminal but not on its stdin and stderr, or in the
// background, says it is a terminal and
// answers "allow" to any prompt: the host does not ask it, and denies the
// call as without a terminal, with the rule that would allow it. Nothing
// was written.
func TestForgedTerminalIsNotAsked(t *testing.T) {
	h := startHost(t)
	for _, tc := range []struct {
		name string
		// wrap sets the client process up, or returns the command that
		// starts it.
		wrap func(t *testing.T, client *exec.Cmd) *exec.Cmd
	}{
		{"no terminal", func(_ *testing.T, cmd *exec.Cmd) *exec.Cmd {
			// A session of its own, without a controlling terminal,
			// whatever the test's own.
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
			return cmd
		}},
		{"a terminal that is not its controlling one", func(t *testing.T, cmd *exec.Cmd) *exec.Cmd {
			_, tty := openPty(t)
			cmd.Stdin, cmd.Stderr = tty, tty
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
			return cmd
		}},
		{"its controlling terminal, but not on its stdin and stderr", func(t *testing.T, cmd *exec.Cmd) *exec.Cmd {
			_, tty := openPty(t)
			cmd.ExtraFiles = []*os.File{tty} // fd 3
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 3}
			return cmd
		}},
		{"its controlling terminal, in the background", func(t *testing.T, cmd *exec.Cmd) *exec.Cmd {
			// A shell with job control on the terminal starts the client
			// as a background job, in a process group of its own.
			_, tty := openPty(t)
			sh := exec.Command("/bin/sh", "-c", `set -m; "$0" & wait $!`, cmd.Path)
			sh.Env, sh.Stdin, sh.Stderr = cmd.Env, tty, tty
			sh.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
			return sh
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target := filepath.Join(t.TempDir(), "written")
			hello := self(h.ws)
			hello.Terminal = true
			cmd := tc.wrap(t, h.clientCmd(hello, fmt.Sprint(int(permission.AnswerAllowOnce)), bash("b", "touch "+target)))
			out := outcome(t, cmd)
			if out.Refused != "" || out.Err != "" {
				t.Fatalf("the host should serve the turn: %+v", out)
			}
			wantStatus(t, out.Results, 0, core.StatusDenied, "Bash(touch:*)")
			if out.Asked != 0 {
				t.Fatalf("the host prompted a client without a terminal %d times", out.Asked)
			}
			if _, err := os.Stat(target); !os.IsNotExist(err) {
				t.Fatalf("the forged answer wrote %s: %v", target, err)
			}
		})
	}
}

// requireBwrap skips a test where bubblewrap cannot run, and fails it
// where RIOT_REQUIRE_SANDBOX is set, as CI does.
func requireBwrap(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("bwrap")
	if err == nil {
		var out []byte
		if out, err = exec.Command(path, "--unshare-user", "--unshare-pid", "--bind", "/", "/", "true").CombinedOutput(); err != nil {
			err = fmt.Errorf("%w: %s", err, out)
		}
	}
	if err != nil {
		if os.Getenv("RIOT_REQUIRE_SANDBOX") != "" {
			t.Fatalf("RIOT_REQUIRE_SANDBOX is set but bwrap cannot run: %v", err)
		}
		t.Skipf("needs bubblewrap: %v", err)
	}
	return path
}

// A client in a real bwrap sandbox (new mount, and PID and user,
// namespaces) that sees the host's socket, as through a bind mount, and
// says it is a terminal that allows everything, is refused before the
// host reads its hello: it is told why, the host logs it, nothing runs.
// Its stop is refused too, and the host goes on serving its own clients.
func TestSandboxedClientIsRefused(t *testing.T) {
	bwrap := requireBwrap(t)
	h := startHost(t)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"mount namespace", nil},
		{"mount and PID namespaces", []string{"--unshare-pid"}},
		{"user, mount and PID namespaces", []string{"--unshare-user", "--unshare-pid"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target := filepath.Join(t.TempDir(), "written")
			hello := self(h.ws)
			hello.Terminal = true
			inner := h.clientCmd(hello, fmt.Sprint(int(permission.AnswerAllowAlways)), bash("b", "touch "+target))
			args := append(append([]string{"--die-with-parent"}, tc.args...), "--bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "--", inner.Path)
			cmd := exec.Command(bwrap, args...)
			cmd.Env = inner.Env
			out := outcome(t, cmd)
			if out.Refused != sandboxedPeer || out.Asked != 0 || len(out.Results) != 0 {
				t.Fatalf("want refused: %q, got %+v", sandboxedPeer, out)
			}
			if _, err := os.Stat(target); !os.IsNotExist(err) {
				t.Fatalf("a sandboxed client's call wrote %s: %v", target, err)
			}
		})
	}
	// Nor may it stop the host.
	stop := h.clientCmd(self(h.ws), "stop")
	cmd := exec.Command(bwrap, "--die-with-parent", "--unshare-user", "--unshare-pid", "--bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "--", stop.Path)
	cmd.Env = stop.Env
	if out := outcome(t, cmd); out.Refused != sandboxedPeer {
		t.Fatalf("a sandboxed stop: want refused: %q, got %+v", sandboxedPeer, out)
	}
	if got := strings.Count(h.log(), "refused a client: "+sandboxedPeer); got != 4 {
		t.Fatalf("the host should log each refusal: %d in\n%s", got, h.log())
	}
	rs, err := h.turn(Handlers{}, use("s", "State", map[string]string{}))
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, rs, 0, core.StatusOK, "was=")
}

// A client on its own controlling terminal, in its foreground, is asked
// there, and its "yes" runs the call; the same client saying it is no
// terminal is not asked.
func TestClientOnItsTerminalIsAsked(t *testing.T) {
	h := startHost(t)
	target := filepath.Join(t.TempDir(), "written")
	ptmx, tty := openPty(t)
	hello := self(h.ws)
	hello.Terminal = true
	cmd := h.clientCmd(hello, "tty", bash("b", "touch "+target))
	var stdout bytes.Buffer
	cmd.Stdin, cmd.Stderr, cmd.Stdout = tty, tty, &stdout
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	shown := make(chan string, 64)
	go func() {
		defer close(shown)
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			if n > 0 {
				shown <- string(buf[:n])
			}
			if err != nil {
				return
			}
		}
	}()
	var seen strings.Builder
	timeout := time.NewTimer(30 * time.Second)
	defer timeout.Stop()
	for !strings.Contains(seen.String(), "Answer: ") {
		select {
		case s, ok := <-shown:
			if !ok {
				t.Fatalf("the terminal closed before the prompt; it showed %q", seen.String())
			}
			seen.WriteString(s)
		case <-timeout.C:
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatalf("no prompt on the client's terminal; it showed %q", seen.String())
		}
	}
	if !strings.Contains(seen.String(), "touch "+target) {
		t.Fatalf("the prompt should name the command: %q", seen.String())
	}
	if _, err := ptmx.Write([]byte("y\n")); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the client failed: %v", err)
	}
	out := decodeOutcome(t, stdout.Bytes())
	wantStatus(t, out.Results, 0, core.StatusOK, "")
	if _, err := os.Stat(target); err != nil {
		t.Fatalf("the allowed call should have written %s: %v", target, err)
	}
	// Terminal in the hello only narrows: a client that declines prompts
	// is not asked, on a terminal or not.
	target2 := filepath.Join(t.TempDir(), "declined")
	cmd = h.clientCmd(self(h.ws), fmt.Sprint(int(permission.AnswerAllowOnce)), bash("b", "touch "+target2))
	cmd.Stdin, cmd.Stderr = tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	out = outcome(t, cmd)
	wantStatus(t, out.Results, 0, core.StatusDenied, "Bash(touch:*)")
	if out.Asked != 0 {
		t.Fatal("a client that declined prompts was asked")
	}
	if _, err := os.Stat(target2); !os.IsNotExist(err) {
		t.Fatalf("a call nobody allowed wrote %s", target2)
	}
}

// A process of another user that reaches the socket (here a directory
// made searchable and the socket writable after the host started) is
// refused before its hello is read, told why, and logged.
func TestOtherUserIsRefused(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("connecting as another user needs root, as CI runs")
	}
	h := startHost(t)
	for d := filepath.Dir(h.srv.Paths.Socket); d != "/"; d = filepath.Dir(d) {
		info, err := os.Stat(d)
		if err != nil {
			t.Fatal(err)
		}
		if perm := info.Mode().Perm(); perm&0o001 == 0 {
			if err := os.Chmod(d, perm|0o011); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = os.Chmod(d, perm) })
		}
	}
	if err := os.Chmod(h.srv.Paths.Socket, 0o666); err != nil {
		t.Fatal(err)
	}
	const nobody = 65534
	c, err := connectAs(nobody, h.srv.Paths.Socket)
	if err != nil {
		t.Fatalf("connect as uid %d: %v", nobody, err)
	}
	defer c.Close()
	if err := os.Chmod(h.srv.Paths.Socket, 0o600); err != nil {
		t.Fatal(err)
	}
	hello := self(h.ws)
	hello.Terminal = true
	if err := json.NewEncoder(c).Encode(clientFrame{Hello: &hello, Uses: []core.ToolUse{use("s", "State", map[string]string{"set": "other"})}}); err != nil {
		t.Fatal(err)
	}
	var f hostFrame
	if err := json.NewDecoder(c).Decode(&f); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("the session host refuses this client: it runs as another user (uid %d); run riot as the user who started the host", nobody)
	if f.Refused != want {
		t.Fatalf("want refused: %q, got %+v", want, f)
	}
	if !strings.Contains(h.log(), "refused a client: "+want) {
		t.Fatalf("the host should log the refusal:\n%s", h.log())
	}
	rs, err := h.turn(Handlers{}, use("s", "State", map[string]string{}))
	if err != nil || text(rs[0]) != "was=" {
		t.Fatalf("another user's turn ran: %v %+v", err, rs)
	}
}

// connectAs connects to the socket at path as uid: the connecting thread
// alone takes uid for the connect, which the kernel records as the
// socket's peer, and gives it back.
func connectAs(uid int, path string) (net.Conn, error) {
	type result struct {
		c   net.Conn
		err error
	}
	done := make(chan result, 1)
	go func() {
		runtime.LockOSThread()
		if _, _, e := syscall.RawSyscall(syscall.SYS_SETRESUID, uintptr(uid), uintptr(uid), ^uintptr(0)); e != 0 {
			runtime.UnlockOSThread()
			done <- result{err: e}
			return
		}
		fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
		if err == nil {
			if err = syscall.Connect(fd, &syscall.SockaddrUnix{Name: path}); err != nil {
				_ = syscall.Close(fd)
			}
		}
		// A thread that cannot be root again ends with its goroutine.
		if _, _, e := syscall.RawSyscall(syscall.SYS_SETRESUID, 0, 0, ^uintptr(0)); e == 0 {
			runtime.UnlockOSThread()
		}
		if err != nil {
			done <- result{err: err}
			return
		}
		f := os.NewFile(uintptr(fd), path)
		c, err := net.FileConn(f)
		_ = f.Close()
		done <- result{c, err}
	}()
	r := <-done
	return r.c, r.err
}
