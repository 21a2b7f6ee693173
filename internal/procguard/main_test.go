package procguard

import (
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
		if strings.HasPrefix(kv, ownerEnv+"=") || strings.HasPrefix(kv, guardOwnerEnv+"=") {
			continue
		}
		out = append(out, kv)
	}
	return out
}
