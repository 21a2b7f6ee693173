package procguard

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// Tree starts commands under a tree guard: Exe, a binary whose main calls
// Main, runs each command as its child and ends the command's whole
// process tree when the command exits, when the command's context ends,
// or when this process dies. A nil *Tree starts commands as they are.
type Tree struct {
	// Exe is the guard's binary, usually os.Executable() of a binary that
	// calls Main.
	Exe string
}

// Self is a Tree whose guard is this very binary, which must call Main.
// On Linux it names /proc/self/exe, which still reaches this binary after
// its file was replaced or removed, as by an upgrade.
func Self() *Tree {
	if !treeSupported {
		return nil
	}
	return &Tree{Exe: "/proc/self/exe"}
}

// Enabled reports whether Wrap puts commands under a guard here.
func (t *Tree) Enabled() bool { return t != nil && treeSupported }

// Wrap rewrites cmd, before its Start, to run under the guard, which runs
// what cmd named with cmd's environment, directory and standard streams.
// Cancelling cmd asks the guard to end the tree. release must be called
// once cmd has been waited for: until then this process holds the guard's
// lifeline, whose closing, at this process's death, makes the guard end
// the tree. Where no tree guard runs (nil t, not Linux), cmd is left as it
// is and release does nothing.
func (t *Tree) Wrap(cmd *exec.Cmd) (release func(), err error) {
	if !t.Enabled() {
		return func() {}, nil
	}
	if cmd.Err != nil {
		return nil, cmd.Err
	}
	if cmd.Process != nil {
		return nil, errors.New("procguard: Wrap after Start")
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = append(withoutEnv(env), Env+"=tree")
	cmd.Args = append([]string{t.Exe, cmd.Path}, cmd.Args...)
	cmd.Path = t.Exe
	// The guard is fd 3's only reader; this process is the writer's only
	// holder (os.Pipe's ends close on exec).
	cmd.ExtraFiles = append([]*os.File{r}, cmd.ExtraFiles...)
	// Its own group, so a signal to this process's group does not reach
	// it, and no death signal: it must outlive this process to clean up.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if cmd.Cancel != nil { // made by exec.CommandContext
		cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	}
	return func() {
		_ = r.Close()
		_ = w.Close()
	}, nil
}
