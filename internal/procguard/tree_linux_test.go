//go:build linux && !mutation

// Not under the mutation tag: a mutant of the code that kills processes
// could kill processes that are not the test's.

package procguard

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/riot-tools/riot/internal/proctest"
)

// escapes are the ways a command detaches a process from itself; each
// starts `sleep 300` and writes its pid to the FIFO at $1.
var escapes = map[string]string{
	"setsid":       `setsid sh -c 'echo $$ > "$1"; exec sleep 300' sh "$1" &`,
	"double fork":  `(sh -c 'echo $$ > "$1"; exec sleep 300' sh "$1" &) &`,
	"nohup":        `nohup sh -c 'echo $$ > "$1"; exec sleep 300' sh "$1" >/dev/null 2>&1 &`,
	"ignored TERM": `(trap '' TERM; sh -c 'echo $$ > "$1"; exec sleep 300' sh "$1") &`,
}

// readFIFO makes a FIFO and returns it with a channel of the first line
// written to it.
func readFIFO(t *testing.T) (string, <-chan string) {
	t.Helper()
	fifo := filepath.Join(t.TempDir(), "pid")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 1)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			lines <- ""
			return
		}
		defer f.Close()
		line, _ := bufio.NewReader(f).ReadString('\n')
		lines <- strings.TrimSpace(line)
	}()
	return fifo, lines
}

// unblock opens fifo for writing, so its reader returns.
func unblock(fifo string) {
	if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
		w.Close()
	}
}

func pidOf(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("read %q from the FIFO", s)
	}
	return n
}

// SIGKILL of the owner ends a command's whole tree, whatever way a process
// of it detached.
func TestTreeEndsWithItsOwner(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for name, escape := range escapes {
		t.Run(name, func(t *testing.T) {
			fifo, lines := readFIFO(t)
			owner := exec.Command(exe)
			// $1 of the escape is the FIFO.
			owner.Env = append(os.Environ(), ownerEnv+`=set -- "$FIFO"; `+escape+" wait", "FIFO="+fifo)
			var stderr bytes.Buffer
			owner.Stderr = &stderr
			if err := owner.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- owner.Wait() }()
			var pid int
			select {
			case s := <-lines:
				pid = pidOf(t, s)
			case err := <-exited:
				unblock(fifo)
				t.Fatalf("the owner exited first: %v\n%s", err, stderr.String())
			}
			if err := owner.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			<-exited
			if !proctest.WaitExit(pid, 3*time.Second) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
				t.Fatalf("%s: sleep %d outlived its owner by 3 s", name, pid)
			}
		})
	}
}

// guarded is a command under a tree guard of the test binary.
func guarded(t *testing.T, ctx context.Context, script string, args ...string) (*exec.Cmd, func()) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, "sh", append([]string{"-c", script, "sh"}, args...)...)
	release, err := (&Tree{Exe: exe}).Wrap(cmd)
	if err != nil {
		t.Fatal(err)
	}
	return cmd, release
}

// A command's exit status, its streams and its environment pass through
// the guard, which keeps its own mark for itself.
func TestTreePassesThrough(t *testing.T) {
	for _, tc := range []struct {
		script string
		code   int
	}{{"exit 0", 0}, {"exit 2", 2}, {"exit 7", 7}, {"kill -TERM $$", 128 + int(syscall.SIGTERM)}} {
		cmd, release := guarded(t, context.Background(), tc.script)
		err := cmd.Run()
		release()
		var exit *exec.ExitError
		if got := 0; tc.code != 0 && (!errors.As(err, &exit) || exit.ExitCode() != tc.code) || tc.code == 0 && err != nil {
			t.Errorf("%s: got %v (%d), want status %d", tc.script, err, got, tc.code)
		}
	}
	t.Setenv("V", "kept") // Wrap reads the environment: set nothing on cmd after it
	cmd, release := guarded(t, context.Background(), `read x; echo "in=$x mark=${`+Env+`-unset} v=$V"; echo err >&2`)
	defer release()
	cmd.Stdin = strings.NewReader("hello\n")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatal(err, stderr.String())
	}
	if got := stdout.String(); got != "in=hello mark=unset v=kept\n" || stderr.String() != "err\n" {
		t.Fatalf("stdout %q stderr %q", got, stderr.String())
	}
}

// What a command leaves behind ends when it exits, detached or not: by
// the time Wait returns, it is gone.
func TestTreeEndsLeftovers(t *testing.T) {
	for name, escape := range escapes {
		t.Run(name, func(t *testing.T) {
			fifo, lines := readFIFO(t)
			done := filepath.Join(t.TempDir(), "done")
			if err := syscall.Mkfifo(done, 0o600); err != nil {
				t.Fatal(err)
			}
			// The command exits once the test, having the sleep's pid,
			// opens the second FIFO.
			cmd, release := guarded(t, context.Background(), escape+` : < "$2"`, fifo, done)
			defer release()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			pid := pidOf(t, <-lines)
			w, err := os.OpenFile(done, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			w.Close()
			if err := cmd.Wait(); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
				t.Fatalf("%s: sleep %d outlived the command: %v", name, pid, err)
			}
		})
	}
}

// Cancelling the command's context ends its whole tree, not only its
// group.
func TestTreeCancelEndsTree(t *testing.T) {
	fifo, lines := readFIFO(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd, release := guarded(t, ctx, escapes["setsid"]+" wait", fifo)
	defer release()
	cmd.WaitDelay = 3 * time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := pidOf(t, <-lines)
	cancel()
	start := time.Now()
	_ = cmd.Wait()
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("the guard took %s to end the tree", d)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("sleep %d outlived the cancelled command: %v", pid, err)
	}
}

// A command that cannot start is the guard's status 127 with a reason on
// stderr, and a command the caller could not find is Wrap's error.
func TestTreeStartFailures(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(t.TempDir(), "missing"))
	cmd.Err = nil // as if found, then removed
	release, err := (&Tree{Exe: exe}).Wrap(cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	var exit *exec.ExitError
	if err := cmd.Run(); !errors.As(err, &exit) || exit.ExitCode() != 127 || !strings.Contains(stderr.String(), "procguard: cannot start") {
		t.Fatalf("got %v, %q", err, stderr.String())
	}
	if _, err := (&Tree{Exe: exe}).Wrap(exec.Command("no-such-command-" + fmt.Sprint(os.Getpid()))); err == nil {
		t.Fatal("Wrap took a command that was not found")
	}
	var nilTree *Tree
	plain := exec.Command("true")
	if release, err := nilTree.Wrap(plain); err != nil || plain.Path == exe || nilTree.Enabled() {
		t.Fatal("a nil Tree wrapped the command")
	} else {
		release()
	}
}

// An owner's SIGKILL makes its Guard kill the groups still registered,
// and leaves the one it removed.
func TestGuardEndsWithItsOwner(t *testing.T) {
	line, kill := startOwner(t, guardOwnerEnv)
	f := strings.Fields(line)
	if len(f) != 2 {
		t.Fatalf("read %q", line)
	}
	registered, removed := pidOf(t, f[0]), pidOf(t, f[1])
	defer func() { _ = syscall.Kill(removed, syscall.SIGKILL) }()
	kill()
	if !proctest.WaitExit(registered, 3*time.Second) {
		_ = syscall.Kill(registered, syscall.SIGKILL)
		t.Fatalf("the registered group %d outlived its owner by 3 s", registered)
	}
	if err := syscall.Kill(removed, 0); err != nil {
		t.Fatalf("the removed group %d was killed: %v", removed, err)
	}
}

// startOwner runs the test binary as an owner, with env naming a FIFO,
// and returns the line it writes there, and kill, which SIGKILLs it and
// waits for its end.
func startOwner(t *testing.T, env string) (line string, kill func()) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	fifo, lines := readFIFO(t)
	owner := exec.Command(exe)
	owner.Env = append(os.Environ(), env+"="+fifo)
	var stderr bytes.Buffer
	owner.Stderr = &stderr
	if err := owner.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- owner.Wait() }()
	select {
	case line = <-lines:
	case err := <-exited:
		unblock(fifo)
		t.Fatalf("the owner exited first: %v\n%s", err, stderr.String())
	}
	return line, func() {
		if err := owner.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		<-exited
	}
}
