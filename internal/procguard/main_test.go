package procguard

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/hashicorp/go-hclog"
)

// ownerEnv makes the test binary an owner: it runs the command in
// OWNER_SCRIPT under a tree guard and waits, for a test to kill it.
const ownerEnv = "PROCGUARD_TEST_OWNER"

func TestMain(m *testing.M) {
	Main() // the test binary is its own guard
	if script := os.Getenv(ownerEnv); script != "" {
		os.Exit(runOwner(script))
	}
	if fifo := os.Getenv(guardOwnerEnv); fifo != "" {
		os.Exit(runGuardOwner(fifo))
	}
	if fifo := os.Getenv(tagOwnerEnv); fifo != "" {
		os.Exit(runTagOwner(fifo))
	}
	os.Exit(m.Run())
}

func runOwner(script string) int {
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	cmd := exec.Command("sh", "-c", script)
	cmd.Env = withoutOwner(os.Environ())
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	release, err := (&Tree{Exe: exe}).Wrap(cmd)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer release()
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// guardOwnerEnv makes the test binary a Guard's owner: it starts two
// process groups, registers both with its Guard and removes the second,
// writes their pids to the FIFO it names, and waits to be killed.
const guardOwnerEnv = "PROCGUARD_TEST_GUARD_OWNER"

func runGuardOwner(fifo string) int {
	g := New(hclog.NewNullLogger(), withoutOwner(os.Environ()))
	g.Ready()
	var pids []string
	for i := range 2 {
		cmd := exec.Command("sleep", "300")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		g.Add(cmd.Process.Pid)
		if i == 1 {
			g.Remove(cmd.Process.Pid)
		}
		pids = append(pids, strconv.Itoa(cmd.Process.Pid))
	}
	f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		return 1
	}
	fmt.Fprintln(f, strings.Join(pids, " "))
	f.Close()
	select {}
}

func withoutOwner(env []string) []string {
	var out []string
	for _, kv := range env {
		if strings.HasPrefix(kv, ownerEnv+"=") || strings.HasPrefix(kv, guardOwnerEnv+"=") || strings.HasPrefix(kv, tagOwnerEnv+"=") {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// detached prints the pid of the shell and of a child of each way to
// detach one: 4 lines.
const detached = `sh -c 'echo $$; exec sleep 300' &
setsid sh -c 'echo $$; exec sleep 300' &
(sh -c 'echo $$; exec sleep 300' &) &
echo $$; wait`

// tagOwnerEnv makes the test binary an owner that dies between starting
// a command and registering its group: it starts `detached` with its
// Guard's tag and an untagged `sleep`, registers neither, writes their
// pids to the FIFO it names, and waits to be killed.
const tagOwnerEnv = "PROCGUARD_TEST_TAG_OWNER"

func runTagOwner(fifo string) int {
	g := New(hclog.NewNullLogger(), withoutOwner(os.Environ()))
	var pids []string
	for _, env := range [][]string{g.Env(withoutOwner(os.Environ())), withoutOwner(os.Environ())} {
		cmd := exec.Command("sh", "-c", detached)
		cmd.Env = env
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		out, err := cmd.StdoutPipe()
		if err != nil || cmd.Start() != nil {
			return 1
		}
		sc := bufio.NewScanner(out)
		var group []string
		for range 4 {
			if !sc.Scan() {
				return 1
			}
			group = append(group, strings.TrimSpace(sc.Text()))
		}
		pids = append(pids, strings.Join(group, " "))
	}
	f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		return 1
	}
	_, _ = f.WriteString(strings.Join(pids, ",") + "\n")
	_ = f.Close()
	select {}
}
