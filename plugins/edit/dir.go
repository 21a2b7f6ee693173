package edit

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/riot-tools/riot/plugin"
)

// Edit and Write change a file only through its directory, opened once
// without following any symlink and checked against what the permission
// chain allowed: the path is never looked up again by name, so a symlink
// swapped on it after the check cannot move the write elsewhere. The
// directory is also the lock riot writers take, from the check of the
// file against the session's record to the rename, so that two Edits of
// one file cannot both succeed on the same content.

// dir is a directory held open for a change of one of its files.
type dir struct {
	f    *os.File // read-only: flock and fsync need a real descriptor
	path string   // the physical path it was opened by
}

// errSwapped reports that the path changed between the permission check
// and the write: a symlink appeared on it or it now leads elsewhere.
var errSwapped = errors.New("the path changed while it was being written")

// errNotDir reports a component of the directory's path that is a file.
var errNotDir = errors.New("a component of the path is not a directory")

// openTargetDir opens the directory of the file abs names (made physical
// now, as the chain makes a subject physical), for tool. The file must be
// a write the chain allowed (see writeAllowed); create makes missing
// directories (Write). It returns the directory, the file's name in it,
// and a refusal for the model.
func openTargetDir(env *plugin.Env, abs, tool string, create bool) (*dir, string, string) {
	shown := shownPath(env, abs)
	target, err := env.Physical(abs)
	if errors.Is(err, unix.EINVAL) {
		// A readlink of what was a symlink a moment before: the path is
		// changing under the resolution.
		return nil, "", swappedMessage(shown, tool)
	}
	if err != nil {
		return nil, "", statMessage(shown, tool, err)
	}
	if !writeAllowed(env, target) {
		if len(env.AllowedWrites) == 0 {
			return nil, "", outsideMessage(shown, env.Shown(target), tool)
		}
		return nil, "", swappedMessage(shown, tool)
	}
	d, err := openDir(filepath.Dir(target), create)
	switch {
	case err == nil:
		return d, filepath.Base(target), ""
	case errors.Is(err, errSwapped):
		return nil, "", swappedMessage(shown, tool)
	case tool == "Write" && (errors.Is(err, errNotDir) || errors.Is(err, fs.ErrNotExist)):
		if msg := parentMessage(env, abs); msg != "" {
			return nil, "", msg
		}
		// The ancestors look fine by name now: they changed meanwhile.
		return nil, "", swappedMessage(shown, tool)
	case errors.Is(err, errNotDir):
		err = unix.ENOTDIR
	}
	return nil, "", statMessage(shown, tool, err)
}

// writeAllowed reports whether the call may create or replace target, a
// physical path: it must be one of the writes the chain allowed. A host
// that sends none (one older than AllowedWrites, or a harness) leaves the
// fence: inside a workspace root, or anywhere in bypassPermissions.
func writeAllowed(env *plugin.Env, target string) bool {
	if len(env.AllowedWrites) > 0 {
		for _, w := range env.AllowedWrites {
			if w == target {
				return true
			}
		}
		return false
	}
	if env.Mode == "bypassPermissions" {
		return true
	}
	for _, root := range env.Roots {
		if !filepath.IsAbs(root) {
			continue
		}
		r, err := env.Physical(root)
		if err == nil && (target == r || strings.HasPrefix(target, strings.TrimSuffix(r, "/")+"/")) {
			return true
		}
	}
	return false
}

// openDir opens path, absolute and physical, as a directory, following
// no symlink on the way: one there now means the path changed since it
// was resolved (errSwapped). create makes the directories that are
// missing, each inside the one opened before it.
func openDir(path string, create bool) (*dir, error) {
	f, err := openDirDirect(path)
	walk := errors.Is(err, errWalk) || create && errors.Is(err, fs.ErrNotExist)
	if !walk {
		return checked(f, path, err)
	}
	f, err = walkDir(path, create)
	return checked(f, path, err)
}

// errWalk: the system cannot open a path without following symlinks in
// one call; walk it a component at a time.
var errWalk = errors.New("walk the path")

// checked makes the dir of f, opened by path, once the system confirms
// that f is the directory at path.
func checked(f *os.File, path string, err error) (*dir, error) {
	if err != nil {
		return nil, err
	}
	if !isAt(f, path) {
		_ = f.Close()
		return nil, errSwapped
	}
	return &dir{f: f, path: path}, nil
}

// walkDir opens path from / a component at a time with O_NOFOLLOW,
// making missing components when create.
func walkDir(path string, create bool) (*os.File, error) {
	fd, err := unix.Open("/", walkFlags, 0)
	if err != nil {
		return nil, err
	}
	for _, c := range strings.Split(strings.Trim(path, "/"), "/") {
		if c == "" {
			continue
		}
		next, err := openComponent(fd, c)
		if create && errors.Is(err, unix.ENOENT) {
			if err = unix.Mkdirat(fd, c, 0o755); err == nil || errors.Is(err, unix.EEXIST) {
				next, err = openComponent(fd, c)
			}
		}
		_ = unix.Close(fd)
		if err != nil {
			return nil, err
		}
		fd = next
	}
	// The walk holds the last directory possibly as a path-only
	// descriptor; "." opens it for reading, following nothing.
	dfd, err := unix.Openat(fd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	_ = unix.Close(fd)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(dfd), path), nil
}

// openComponent opens the directory c in the directory fd without
// following a symlink: one there is errSwapped, a file errNotDir.
func openComponent(fd int, c string) (int, error) {
	for {
		next, err := unix.Openat(fd, c, walkFlags|unix.O_NOFOLLOW, 0)
		switch {
		case err == nil:
			return next, nil
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.ELOOP), errors.Is(err, unix.ENOTDIR):
			var st unix.Stat_t
			if unix.Fstatat(fd, c, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT != unix.S_IFLNK {
				return 0, errNotDir
			}
			return 0, errSwapped
		}
		return 0, err
	}
}

// lock takes the advisory lock riot writers take on the directory, and
// returns its release. A filesystem without locks leaves it unlocked:
// the check just before the rename still catches most other writers.
func (d *dir) lock() func() {
	for {
		err := unix.Flock(int(d.f.Fd()), unix.LOCK_EX)
		switch {
		case err == nil:
			return func() { _ = unix.Flock(int(d.f.Fd()), unix.LOCK_UN) }
		case errors.Is(err, unix.EINTR):
			continue
		}
		return func() {}
	}
}

func (d *dir) close() { _ = d.f.Close() }

// entry is the file name in d, for openSeen.
func (d *dir) entry(name string) source { return dirEntry{d: d, name: name} }

// dirEntry is a file found by name in a directory held open, no symlink
// followed.
type dirEntry struct {
	d    *dir
	name string
}

// stat describes the entry itself; a symlink there now is errSwapped,
// since the name was resolved to a file that is not one.
func (e dirEntry) stat() (fs.FileInfo, error) {
	fd, err := unix.Openat(int(e.d.f.Fd()), e.name, statFlags|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, unix.ELOOP) {
			return nil, errSwapped
		}
		return nil, err
	}
	f := os.NewFile(uintptr(fd), e.name)
	defer func() { _ = f.Close() }()
	info, err := f.Stat()
	if err == nil && info.Mode()&fs.ModeSymlink != 0 {
		return nil, errSwapped
	}
	return info, err
}

func (e dirEntry) open() (*os.File, error) {
	fd, err := unix.Openat(int(e.d.f.Fd()), e.name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC|unix.O_NOCTTY, 0)
	if err != nil {
		if errors.Is(err, unix.ELOOP) {
			return nil, errSwapped
		}
		return nil, err
	}
	return os.NewFile(uintptr(fd), e.name), nil
}

// pending is a temporary file in d that becomes name at commit.
type pending struct {
	d   *dir
	f   *os.File
	tmp string
}

// newPending starts a file in d with data and the permission bits perm,
// synced and described (its stat is the file that will be in place).
// exact sets perm as it is; otherwise the umask applies, as to any new
// file.
func (d *dir) newPending(name string, data []byte, perm fs.FileMode, exact bool) (*pending, fs.FileInfo, error) {
	create := uint32(perm.Perm())
	if exact {
		create = 0o600
	}
	var fd int
	var tmp string
	for {
		var rnd [6]byte
		_, _ = rand.Read(rnd[:])
		tmp = "." + name + ".riot-" + hex.EncodeToString(rnd[:])
		var err error
		fd, err = unix.Openat(int(d.f.Fd()), tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, create)
		if err == nil {
			break
		}
		if !errors.Is(err, unix.EEXIST) && !errors.Is(err, unix.EINTR) {
			return nil, nil, err
		}
	}
	p := &pending{d: d, f: os.NewFile(uintptr(fd), tmp), tmp: tmp}
	err := func() error {
		if exact {
			if err := p.f.Chmod(perm.Perm()); err != nil {
				return err
			}
		}
		if _, err := p.f.Write(data); err != nil {
			return err
		}
		return p.f.Sync()
	}()
	var info fs.FileInfo
	if err == nil {
		info, err = p.f.Stat()
	}
	if err != nil {
		p.cleanup()
		return nil, nil, err
	}
	return p, info, nil
}

// link puts the file in place as name only if nothing is there.
func (p *pending) link(name string) error {
	fd := int(p.d.f.Fd())
	if err := unix.Linkat(fd, p.tmp, fd, name, 0); err != nil {
		if errors.Is(err, unix.EEXIST) {
			return fs.ErrExist
		}
		return err
	}
	p.cleanup()
	return p.d.sync()
}

// replace renames the file over name.
func (p *pending) replace(name string) error {
	fd := int(p.d.f.Fd())
	return errors.Join(unix.Renameat(fd, p.tmp, fd, name), p.d.sync())
}

// cleanup closes the file and removes its temporary name, which after a
// rename or a link is gone or no longer the only one.
func (p *pending) cleanup() {
	_ = p.f.Close()
	_ = unix.Unlinkat(int(p.d.f.Fd()), p.tmp, 0)
}

// sync makes a rename or link in d survive a crash.
func (d *dir) sync() error { return d.f.Sync() }

// outsideMessage refuses a write outside the roots when the host sent
// no write it allowed (a host older than AllowedWrites).
func outsideMessage(shown, target, tool string) string {
	return fmt.Sprintf("%s is %s, outside the workspace roots, and this call carries no permission to write there, so %s wrote nothing.\n"+
		"Write inside the workspace, or ask the user to allow this path.", shown, target, tool)
}

// swappedMessage refuses a write whose path changed after the permission
// check.
func swappedMessage(shown, tool string) string {
	return fmt.Sprintf("%s changed while %s was writing it: a symlink on its path now leads elsewhere than when the permission check ran (or a directory on it was replaced), so nothing was written.\n"+
		"Do not retry in a loop. Stop whatever is changing that path (a command still running in the background?), or use the file's real path; if it is meant to move, ask the user.", shown, tool)
}
