//go:build linux

package plugin_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/riot-tools/riot/plugin"
)

const noTerminalChild = "RIOT_TEST_NO_TERMINAL_CHILD"

// A command started unsandboxed gets no controlling terminal, as a
// sandboxed one does (bwrap --new-session): it cannot open /dev/tty, so
// it can neither read the user's terminal nor push input into the user's
// shell with TIOCSTI. The test runs itself again as a session leader with
// a pseudo-terminal as its controlling terminal, as a plugin started from
// an interactive riot has, and starts the command from there.
func TestUnsandboxedCommandHasNoTerminal(t *testing.T) {
	if os.Getenv(noTerminalChild) == "1" {
		noTerminal()
		return
	}
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	defer ptmx.Close()
	if err := unix.IoctlSetPointerInt(int(ptmx.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(ptmx.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	pts, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer pts.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestUnsandboxedCommandHasNoTerminal$")
	cmd.Env = append(os.Environ(), noTerminalChild+"=1")
	cmd.Stdin = pts
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "plugin: has a terminal") {
		t.Fatalf("the child did not get a terminal to test with:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "command: NONE") {
		t.Fatalf("the command could open the plugin's terminal:\n%s", out.String())
	}
}

// noTerminal is the child: it starts a command through OSProc, which
// says whether it can open the controlling terminal.
func noTerminal() {
	if f, err := os.Open("/dev/tty"); err == nil {
		_ = f.Close()
		fmt.Println("plugin: has a terminal")
	}
	r, w, err := os.Pipe()
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	cmd := exec.Command("/bin/sh", "-c", "if (exec 3</dev/tty) 2>/dev/null; then echo HAS; else echo NONE; fi")
	cmd.Stdout = w
	proc := plugin.NewOSProc()
	defer proc.Close()
	p, err := proc.Start(context.Background(), cmd)
	_ = w.Close()
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	buf := make([]byte, 64)
	k, _ := r.Read(buf)
	_ = p.Wait()
	fmt.Printf("command: %s\n", strings.TrimSpace(string(buf[:k])))
}
