package procguard

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
)

// ownerEnv makes the test binary an owner: it runs the command in
// OWNER_SCRIPT under a tree guard and waits, for a test to kill it.
const ownerEnv = "PROCGUARD_TEST_OWNER"

func TestMain(m *testing.M) {
	Main() // the test binary is its own guard
	if script := os.Getenv(ownerEnv); script != "" {
		os.Exit(runOwner(script))
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

func withoutOwner(env []string) []string {
	var out []string
	for _, kv := range env {
		if len(kv) > len(ownerEnv) && kv[:len(ownerEnv)+1] == ownerEnv+"=" {
			continue
		}
		out = append(out, kv)
	}
	return out
}
