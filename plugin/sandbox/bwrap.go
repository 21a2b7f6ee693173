package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"

	"github.com/riot-tools/riot/internal/bwrap"
)

// systemDirs are what programs need, shown read-only in every profile:
// binaries, libraries, /etc and the usual toolchain install directories.
var systemDirs = []string{
	"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt",
	"/nix/store", "/snap",
}

// kernelDirs are the sandbox's own filesystems. A path below one is never
// bound from the host: /proc/self/status names riot's process there,
// /proc/<pid>/... a process the sandbox's /proc does not have, and bwrap
// cannot make a mount point in its procfs or /dev, so the whole sandbox
// would fail to start. (/sys is not shown; a path below it that the user
// allows is bound like any other.)
var kernelDirs = []string{"/proc", "/dev"}

// kernelPath: path is below one of kernelDirs, or one of them.
func kernelPath(path string) bool { return covers(kernelDirs, path) }

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
	// bindPin is a writable directory bound onto itself, only to make it
	// a mount point: a command may rename a directory that holds a mount
	// but not a mount point, so it cannot move a protected or hidden path
	// aside with its parent and make a new one in its place. A pin is
	// added only where no other mount is, so its rank does not matter.
	bindPin
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
func Args(p *Profile, dir string) []string {
	args := mountArgs(p, dir)
	if dir != "" {
		args = append(args, "--chdir", dir)
	}
	return append(args, "--")
}

// mountArgs is the command line without the directory to start in: the
// namespaces and the filesystem. Two calls whose mountArgs are equal see
// the same sandbox.
func mountArgs(p *Profile, dir string) []string {
	p = withDaemonMasks(p)
	// The namespaces the host's probe checked (internal/bwrap): without
	// the host's network, one of the sandbox's own with loopback up.
	args := bwrap.Namespaces(p.NetworkOn())
	for _, d := range systemDirs {
		args = append(args, systemArg(d)...)
	}
	// /etc/resolv.conf is often a link into /run, which is not shown.
	if target, err := filepath.EvalSymlinks("/etc/resolv.conf"); err == nil && !covers(systemDirs, target) && p.NetworkOn() {
		args = append(args, "--ro-bind-try", target, target)
	}
	args = append(args, "--proc", "/proc", "--dev", "/dev")
	args = append(args, tmpArgs(p)...)
	// riot's proxy, read-only: connecting needs no write, and a command
	// must not change the host's socket. Before the binds, so that bwrap
	// makes its directories in its own root; a profile that shows /run
	// hides it, which leaves the command no way out, not a wider one.
	if forwarded(p) {
		args = append(args, "--ro-bind-try", p.Egress.Socket, egressSocket)
	}
	// A hidden directory is made read-only once what it shows again
	// below it (a root inside riot's state dir, the session's own spilled
	// results) is mounted, since bwrap makes their mount points in it.
	var remounts []string
	for _, b := range binds(p) {
		switch b.kind {
		case bindRead:
			args = append(args, "--ro-bind-try", b.path, b.path)
		case bindWrite, bindPin:
			if p.Writable {
				args = append(args, "--bind-try", b.path, b.path)
			} else {
				args = append(args, "--ro-bind-try", b.path, b.path)
			}
		case bindProtect:
			args = append(args, "--ro-bind-try", b.path, b.path)
		case bindMask:
			mount, remount := maskArg(b.path)
			args = append(args, mount...)
			if remount {
				remounts = append(remounts, "--remount-ro", b.path)
			}
		}
	}
	// The directory the command starts in is shown read-only when nothing
	// else shows it (a session that cd'ed outside the roots with the
	// user's approval), or bwrap could not start there. Never under a mask.
	if dir != "" && !shows(p, dir) && !covers(p.MaskedPaths, dir) && !kernelPath(dir) {
		args = append(args, "--ro-bind-try", dir, dir)
	}
	args = append(args, remounts...)
	if p.TempDir != "" && !p.Writable {
		// Bound writable so that bwrap could make the mount points of
		// what it shows below /tmp; read-only for the command.
		args = append(args, "--remount-ro", "/tmp")
	}
	// What no bind covers is the sandbox's own root: read-only, so a write
	// there fails (EROFS) instead of vanishing with the sandbox.
	return append(args, "--remount-ro", "/")
}

// tmpArgs are /tmp and the temporary directory TMPDIR names, whatever it
// named outside (the sandbox does not show that): the session's temporary
// directory at /tmp where the profile has one, or a private tmpfs. A call
// that may not write reads the session's /tmp and gets /dev/shm, private
// to it, as its TMPDIR.
func tmpArgs(p *Profile) []string {
	if p.TempDir == "" {
		return []string{"--tmpfs", "/tmp", "--setenv", "TMPDIR", "/tmp"}
	}
	return []string{"--bind", p.TempDir, "/tmp", "--setenv", "TMPDIR", TempEnv(p)}
}

// TempEnv is the directory TMPDIR names in p's sandbox.
func TempEnv(p *Profile) string {
	if p.TempDir != "" && !p.Writable {
		return "/dev/shm"
	}
	return "/tmp"
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

// maskArg hides a path that exists: a directory behind an empty tmpfs,
// to be made read-only once what is shown below it is mounted (remount),
// anything else behind /dev/null. A path that does not exist needs
// nothing: it is not there.
func maskArg(path string) (mount []string, remount bool) {
	fi, err := os.Lstat(path)
	switch {
	case err != nil:
		return nil, false
	case fi.IsDir():
		return []string{"--tmpfs", path}, true
	default:
		return []string{"--ro-bind", "/dev/null", path}, false
	}
}

// binds orders the profile's mounts so that a deeper path is mounted after
// the directory holding it, and, for one path, a narrower kind after a
// wider one. A masked path outside everything shown needs no mount.
func binds(p *Profile) []bind {
	var out []bind
	add := func(paths []string, kind bindKind) {
		for _, path := range paths {
			if !kernelPath(path) {
				out = append(out, bind{path, kind})
			}
		}
	}
	add(p.ReadPaths, bindRead)
	add(p.WritePaths, bindWrite)
	visible := append(append(append([]string{}, p.ReadPaths...), p.WritePaths...), systemDirs...)
	for _, path := range p.ProtectedPaths {
		if !covers(p.WritePaths, path) || kernelPath(path) {
			continue
		}
		if _, err := os.Lstat(path); err != nil && p.Writable {
			if frozen := freeze(p, path); frozen != nil {
				out = append(out, frozen...)
				continue
			}
		}
		// bwrap skips it if it is missing: then so is every directory it
		// could be made in.
		out = append(out, bind{path, bindProtect})
	}
	for _, path := range p.MaskedPaths {
		if covers(visible, path) && !kernelPath(path) {
			out = append(out, bind{path, bindMask})
		}
	}
	sortBinds(out)
	// One mount per path: the narrowest kind, sorted last.
	var once []bind
	for i, b := range out {
		if i+1 < len(out) && out[i+1].path == b.path {
			continue
		}
		once = append(once, b)
	}
	kept := prune(p, once)
	if p.Writable {
		kept = pin(kept)
	}
	return kept
}

func sortBinds(out []bind) {
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
}

// freeze keeps a protected path that does not exist yet from being made
// in a writable path: its nearest existing directory is bound read-only,
// and each of that directory's entries (directories and regular files)
// writable again, so that only a new name there is refused. A read-only
// placeholder at the path itself would need a mount point, which bwrap
// would make in the user's tree (and which another sandbox's command could
// remove under it). An entry made after this is read-only in the sandbox,
// which fails closed. The host sends a missing protected path only where
// this is meant (the home directory's files that run code later); the ones
// it can make instead (.riot/, .git/hooks) exist by the time it sends them.
func freeze(p *Profile, path string) []bind {
	dir := filepath.Dir(path)
	for {
		if _, err := os.Lstat(dir); err == nil || dir == "/" {
			break
		}
		dir = filepath.Dir(dir)
	}
	if phys, err := filepath.EvalSymlinks(dir); err == nil {
		dir = phys
	}
	if !covers(p.WritePaths, dir) || covers(p.MaskedPaths, dir) {
		return nil
	}
	out := []bind{{dir, bindProtect}}
	entries, err := os.ReadDir(dir)
	if err != nil {
		// Unlisted, the whole directory stays read-only.
		return out
	}
	for _, e := range entries {
		if t := e.Type(); t.IsDir() || t.IsRegular() {
			// Never a symlink: bwrap would follow it and bind its target.
			out = append(out, bind{filepath.Join(dir, e.Name()), bindWrite})
		}
	}
	return out
}

// pin makes a mount point of each existing directory between a protected
// or hidden path and the writable mount above it (see bindPin), so that
// the path cannot be swapped by renaming a directory above it.
func pin(kept []bind) []bind {
	var pins []bind
	for i, b := range kept {
		if b.kind != bindProtect && b.kind != bindMask {
			continue
		}
		// kept is sorted by depth: the first ancestor found going back is
		// the nearest mount above b.
		above := -1
		for j := i - 1; j >= 0; j-- {
			if kept[j].path != b.path && within(b.path, kept[j].path) {
				above = j
				break
			}
		}
		if above < 0 || kept[above].kind != bindWrite && kept[above].kind != bindPin {
			continue
		}
		top := kept[above].path
		for d := filepath.Dir(b.path); d != top && within(d, top); d = filepath.Dir(d) {
			if fi, err := os.Lstat(d); err == nil && fi.IsDir() && !slices.ContainsFunc(pins, func(x bind) bool { return x.path == d }) {
				pins = append(pins, bind{d, bindPin})
			}
		}
	}
	if len(pins) == 0 {
		return kept
	}
	out := append(slices.Clone(kept), pins...)
	sortBinds(out)
	return out
}

// prune drops a mount that changes nothing: one below a mount that already
// shows the same path the same way (~/go/pkg/mod after ~/go, both
// read-only). Every mount costs a millisecond or more of the sandbox's
// start, so the fewer the better.
func prune(p *Profile, sorted []bind) []bind {
	writable := func(k bindKind) bool { return k == bindWrite && p.Writable }
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
					// Never show again what a mask hides, but for a path
					// the profile lists to show: the host sends one below a
					// mask only where it means it (a root inside riot's
					// state dir, the session's own spilled results).
					if !listed(p, b) {
						b.kind = -1
					}
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

// listed: b shows a path the profile itself lists as readable or
// writable.
func listed(p *Profile, b bind) bool {
	switch b.kind {
	case bindRead:
		return slices.Contains(p.ReadPaths, b.path)
	case bindWrite:
		return slices.Contains(p.WritePaths, b.path)
	default:
		return false
	}
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

// Wrap rewrites cmd to run in profile p under the bwrap at bin, with the
// environment CommandEnv gives it. cmd.Dir stays the directory bwrap
// starts in, and the command's own. In proxy mode the command runs under
// the forwarder, this binary, which bwrap runs from a descriptor passed in
// cmd.ExtraFiles: call started once cmd.Start has returned, to close it.
func Wrap(p *Profile, bin string, cmd *exec.Cmd) (started func()) {
	started = func() {}
	cmd.Env = CommandEnv(p, cmd.Env)
	args := append([]string{bin}, mountArgs(p, cmd.Dir)...)
	if cmd.Dir != "" {
		args = append(args, "--chdir", cmd.Dir)
	}
	var err error
	if forwarded(p) {
		// Found again inside by the descriptor, as a long-lived
		// sandbox's init is: the sandbox need not show where it lives.
		var exe *os.File
		if exe, err = os.Open("/proc/self/exe"); err == nil {
			fd := strconv.Itoa(3 + len(cmd.ExtraFiles))
			cmd.ExtraFiles = append(cmd.ExtraFiles, exe)
			args = append(args, "--setenv", initEnv, "1", "--", "/proc/self/fd/"+fd, egressArg, fd)
			started = func() { _ = exe.Close() }
		}
	} else {
		args = append(args, "--")
	}
	args = append(args, cmd.Path)
	if len(cmd.Args) > 0 {
		args = append(args, cmd.Args[1:]...)
	}
	cmd.Path = bin
	cmd.Args = args
	cmd.Err = err
	return started
}
