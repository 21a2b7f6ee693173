package bwrap

import (
	"context"
	"errors"
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
// Namespaces; the error says why not, for the user, and Fix what to do.
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
	// In a container, the runtime masks parts of /proc by mounting over
	// them, and the kernel refuses a new proc mount in a user namespace
	// while the old one is partly hidden: user namespaces work there.
	masked := strings.Contains(why, "Can't mount proc") && strings.Contains(why, "Operation not permitted")
	return &ProbeError{Why: why, ProcMasked: masked}
}

// ProbeError is why bwrap cannot start a sandbox here.
type ProbeError struct {
	// Why is bwrap's first line, or how it exited.
	Why string
	// ProcMasked: bwrap could not mount a new /proc, as in a container
	// whose runtime masks parts of /proc.
	ProcMasked bool
}

func (e *ProbeError) Error() string {
	if e.ProcMasked {
		return fmt.Sprintf("bwrap cannot start a sandbox here (%s; this is a container whose /proc is partly masked, so no new /proc can be mounted)", e.Why)
	}
	return fmt.Sprintf("bwrap cannot start a sandbox here (%s; user namespaces may be disabled)", e.Why)
}

// Fix is what the user does so that the sandbox starts, for an error of
// Find or Probe: an imperative clause, such as "install bubblewrap ...".
func Fix(err error) string {
	var pe *ProbeError
	if errors.As(err, &pe) && pe.ProcMasked {
		return "run the container with /proc unmasked (Kubernetes: securityContext.procMount: Unmasked, which needs the pod's hostUsers: false and a seccomp profile that allows unshare; podman: --security-opt unmask=/proc/*)"
	}
	return "install bubblewrap (Debian and Ubuntu: `apt-get install bubblewrap`) and make sure unprivileged user namespaces are enabled"
}
