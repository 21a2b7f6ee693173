package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
)

// systemDirs are what programs need, shown read-only in every profile:
// binaries, libraries, /etc and the usual toolchain install directories.
var systemDirs = []string{
	"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt",
	"/nix/store", "/snap",
}

// bind is one mount of the sandbox's filesystem.
type bind struct {
	path string
	kind bindKind
}

type bindKind int

// Kinds in the order they apply to one path: the later, narrower kind
// wins, so a path both writable and read-only is read-only.
const (
	bindWrite bindKind = iota
	bindRead
	bindProtect
	bindMask
)

// UnavailableError is a sandbox that cannot start where the profile
// requires it. Its text is for the model.
type UnavailableError struct {
	// Why is what failed, such as "bwrap was not found on PATH".
	Why string
}

func (e *UnavailableError) Error() string {
	return fmt.Sprintf("The command was not run: the kernel sandbox is required ([sandbox] mode = \"required\") but cannot start here (%s). Tell the user to install bubblewrap (Debian and Ubuntu: `apt-get install bubblewrap`; Fedora: `dnf install bubblewrap`) and make sure unprivileged user namespaces are enabled, or to set [sandbox] mode = \"auto\"; do not retry until then.", e.Why)
}

// Args is the bubblewrap command line, up to and including "--", that runs
// a command in dir under the profile.
func (p *Profile) Args(dir string) []string {
	args := p.mountArgs(dir)
	if dir != "" {
		args = append(args, "--chdir", dir)
	}
	return append(args, "--")
}

// mountArgs is the command line without the directory to start in: the
// namespaces and the filesystem. Two calls whose mountArgs are equal see
// the same sandbox.
func (p *Profile) mountArgs(dir string) []string {
	args := []string{
		"--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
		"--die-with-parent", "--cap-drop", "ALL",
	}
	if !p.NetworkOn() {
		args = append(args, "--unshare-net")
	}
	for _, d := range systemDirs {
		args = append(args, systemArg(d)...)
	}
	// /etc/resolv.conf is often a link into /run, which is not shown.
	if target, err := filepath.EvalSymlinks("/etc/resolv.conf"); err == nil && !covers(systemDirs, target) && p.NetworkOn() {
		args = append(args, "--ro-bind-try", target, target)
	}
	// The private /tmp is the temporary directory, whatever TMPDIR named
	// outside, which the sandbox does not show.
	args = append(args, "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--setenv", "TMPDIR", "/tmp")
	for _, b := range p.binds() {
		switch b.kind {
		case bindRead:
			args = append(args, "--ro-bind-try", b.path, b.path)
		case bindWrite:
			if p.Mode == Write {
				args = append(args, "--bind-try", b.path, b.path)
			} else {
				args = append(args, "--ro-bind-try", b.path, b.path)
			}
		case bindProtect:
			args = append(args, "--ro-bind-try", b.path, b.path)
		case bindMask:
			args = append(args, maskArg(b.path)...)
		}
	}
	// The directory the command starts in is shown read-only when nothing
	// else shows it (a session that cd'ed outside the roots with the
	// user's approval), or bwrap could not start there. Never under a mask.
	if dir != "" && !p.shows(dir) && !covers(p.MaskedPaths, dir) {
		args = append(args, "--ro-bind-try", dir, dir)
	}
	// What no bind covers is the sandbox's own root: read-only, so a write
	// there fails (EROFS) instead of vanishing with the sandbox.
	return append(args, "--remount-ro", "/")
}

// systemArg shows a system directory read-only, or recreates it as the
// symlink it is (/bin -> usr/bin), or nothing where it does not exist.
func systemArg(d string) []string {
	fi, err := os.Lstat(d)
	switch {
	case err != nil:
		return nil
	case fi.Mode()&os.ModeSymlink != 0:
		target, err := os.Readlink(d)
		if err != nil {
			return nil
		}
		return []string{"--symlink", target, d}
	default:
		return []string{"--ro-bind", d, d}
	}
}

// maskArg hides a path that exists: a directory behind an empty read-only
// tmpfs, anything else behind /dev/null. A path that does not exist needs
// nothing: it is not there.
func maskArg(path string) []string {
	fi, err := os.Lstat(path)
	switch {
	case err != nil:
		return nil
	case fi.IsDir():
		return []string{"--tmpfs", path, "--remount-ro", path}
	default:
		return []string{"--ro-bind", "/dev/null", path}
	}
}

// binds orders the profile's mounts so that a deeper path is mounted after
// the directory holding it, and, for one path, a narrower kind after a
// wider one. A masked path outside everything shown needs no mount.
func (p *Profile) binds() []bind {
	var out []bind
	add := func(paths []string, kind bindKind) {
		for _, path := range paths {
			out = append(out, bind{path, kind})
		}
	}
	add(p.ReadPaths, bindRead)
	add(p.WritePaths, bindWrite)
	visible := append(append(append([]string{}, p.ReadPaths...), p.WritePaths...), systemDirs...)
	for _, path := range p.ProtectedPaths {
		if covers(p.WritePaths, path) {
			out = append(out, bind{path, bindProtect})
		}
	}
	for _, path := range p.MaskedPaths {
		if covers(visible, path) {
			out = append(out, bind{path, bindMask})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		di, dj := depth(out[i].path), depth(out[j].path)
		if di != dj {
			return di < dj
		}
		if out[i].path != out[j].path {
			return out[i].path < out[j].path
		}
		return out[i].kind < out[j].kind
	})
	// One mount per path: the narrowest kind, sorted last.
	var once []bind
	for i, b := range out {
		if i+1 < len(out) && out[i+1].path == b.path {
			continue
		}
		once = append(once, b)
	}
	return p.prune(once)
}

// prune drops a mount that changes nothing: one below a mount that already
// shows the same path the same way (~/go/pkg/mod after ~/go, both
// read-only). Every mount costs a millisecond or more of the sandbox's
// start, so the fewer the better.
func (p *Profile) prune(sorted []bind) []bind {
	writable := func(k bindKind) bool { return k == bindWrite && p.Mode == Write }
	var kept []bind
	for _, b := range sorted {
		if b.kind != bindMask {
			// The nearest kept mount above b decides how b's path is
			// shown now; masks hide only their own path.
			for i := len(kept) - 1; i >= 0; i-- {
				a := kept[i]
				if !within(b.path, a.path) {
					continue
				}
				if a.kind == bindMask {
					// Never show again what a mask hides.
					b.kind = -1
					break
				}
				if writable(a.kind) == writable(b.kind) {
					b.kind = -1
				}
				break
			}
			if b.kind < 0 {
				continue
			}
		}
		kept = append(kept, b)
	}
	return kept
}

func depth(p string) int {
	n := 0
	for _, c := range p {
		if c == '/' {
			n++
		}
	}
	return n
}

// Wrap rewrites cmd to run under bwrap in the profile. cmd.Dir stays the
// directory bwrap starts in, and the command's own.
func (p *Profile) Wrap(bwrap string, cmd *exec.Cmd) {
	args := append([]string{bwrap}, p.Args(cmd.Dir)...)
	path := cmd.Path
	if len(cmd.Args) > 0 {
		args = append(args, path)
		args = append(args, cmd.Args[1:]...)
	} else {
		args = append(args, path)
	}
	cmd.Path = bwrap
	cmd.Args = args
	cmd.Err = nil
}

// errNoBwrap is bwrap missing from PATH.
var errNoBwrap = errors.New("bwrap was not found on PATH; the package is bubblewrap")
