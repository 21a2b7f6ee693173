// Package sandbox owns the kernel sandbox a tool's subprocesses run in: the
// profile the host sends with each call (as wide as the call's permission
// decision; shared.SandboxProfile), the bubblewrap command line that
// enforces it, starting from the namespaces internal/bwrap probes, and the
// notes that tell the model when the sandbox, not the command, refused
// something.
//
// A profile shows a command the system directories read-only, the
// session's /tmp (Profile.TempDir) or a private one, its own /dev and /proc, and only the paths the profile lists: the
// rest of the home directory and of the filesystem is not there. New user,
// mount and PID namespaces end every process the command started when it
// ends, however it detached itself; a new session leaves it no controlling
// terminal. Protected paths stay read-only whether they exist yet or not,
// and the directories above them cannot be moved aside. bwrap itself is
// found only in the system directories (internal/bwrap.Find), never on $PATH.
// The host daemons' sockets a profile would show (docker's, podman's, the
// user's runtime directory, ssh-agent's) are hidden unless it lists them.
//
// Every command goes without the environment variables the profile hides
// (HideEnv, PassEnv). In proxy mode (Profile.EgressOn) a command has a
// network namespace of its own with loopback alone; riot's proxy socket is
// bound in, and a forwarder, this binary again, relays ProxyAddr in the
// sandbox to it, which the command's proxy variables name (egress.go,
// forward_linux.go). The forwarder runs in the sandbox's PID namespace and
// ends with it: beside a long-lived sandbox's init, or as the parent of a
// command in a bwrap of its own.
//
// A Pool keeps such sandboxes running (bwrap with this binary as its init,
// pool_linux.go and init_linux.go), so that a command in a profile already
// built costs a fork and an exec in nested user, PID and IPC namespaces
// instead of a bwrap start. The init serves on one thread, in one ppoll over
// its socket and each running command's pidfd; a start request carries the
// command inline up to 32 KiB, and in a memfd beyond (wire_linux.go).
package sandbox
