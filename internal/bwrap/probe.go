package bwrap

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
)

// Namespaces are the flags every sandbox starts with: its own user, PID,
// IPC, UTS and cgroup namespaces, no capabilities, and no controlling
// terminal (--new-session: a command cannot push input into the user's
// shell with TIOCSTI or read the terminal). Without network, its own
// network namespace too. The command line and the probe both use them, so
// what the probe checked is what every call gets.
func Namespaces(network bool) []string {
	args := []string{
		"--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
		"--die-with-parent", "--new-session", "--cap-drop", "ALL",
	}
	if !network {
		args = append(args, "--unshare-net")
	}
	return args
}

// Probe checks that the bwrap at path starts a sandbox here with
// Namespaces; the error says why not, for the user.
func Probe(ctx context.Context, path string) error {
	args := append(Namespaces(false), "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "true")
	out, err := exec.CommandContext(ctx, path, args...).CombinedOutput()
	if err == nil {
		return nil
	}
	why, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	if why == "" {
		why = "it exited with " + err.Error()
	}
	return fmt.Errorf("bwrap cannot start a sandbox here (%s; user namespaces may be disabled)", why)
}
