package core

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core/permission"
	"github.com/riot-tools/riot/internal/tmpview"
	"github.com/riot-tools/riot/shared"
)

// tmpView is where every sandboxed command of a session finds the
// session's temporary directory.
const tmpView = tmpview.Dir

// sessionTmp is the session's temporary directory, shown at /tmp to every
// sandboxed call of the session, so that what one command leaves in /tmp
// (a background server's log) the next one finds. It is a directory of
// its own in the system's temporary directory, riot-tmp-<uid>-<session>,
// 0700, out of riot's state dir (which the chain protects and every
// profile hides): it holds nothing riot reads (no socket, token, spill or
// config of riot's is ever put there) and no other session's directory is
// shown. An ephemeral session's name is random and must be new; a named
// session's is made once and then must still be this user's directory,
// 0700, never a symlink.
//
// Tools that start no processes see it at /tmp too (tempView), once it
// is made. It is made by the first call that starts a sandbox, or that
// names a path there with such a tool (wantsTmpView), and removed when
// the host closes, but for a one-shot host of a named session (`riot run
// --session ID` without a session host), whose next invocation is the
// same session: that one stays until a session host of it exits, or the
// system's temporary directory is cleaned.
type sessionTmp struct {
	mu   sync.Mutex
	made bool
	// failed: it could not be made; calls get a private /tmp each.
	failed bool
}

// sessionTempDir is where the session's temporary directory is, made or
// not, or "" when sandboxes show none (the sandbox is off).
func (h *Host) sessionTempDir() string {
	if h.state == nil || h.sandboxMode() == config.SandboxOff {
		return ""
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("riot-tmp-%d-%s", os.Getuid(), h.state.ID()))
}

// sessionTmpRoots are the directories the permission chain takes for the
// session's temporary directory, a writable root: the paths a sandboxed
// call names in /tmp are judged as its files (tmpRequest).
func (h *Host) sessionTmpRoots() []string {
	if dir := h.sessionTempDir(); dir != "" {
		return []string{dir}
	}
	return nil
}

// makeSessionTmp makes the session's temporary directory, once, and
// returns it, or "" when it cannot be made (logged once; calls then get a
// private /tmp each, as before there was one).
func (h *Host) makeSessionTmp() string {
	dir := h.sessionTempDir()
	if dir == "" {
		return ""
	}
	t := &h.sbox.tmp
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case t.failed:
		return ""
	case t.made:
		return dir
	}
	if err := makeTmpDir(dir, !shared.Ephemeral(h.state.ID())); err != nil {
		t.failed = true
		h.log.Warn("cannot make the session's temporary directory; each command gets a /tmp of its own", "dir", dir, "error", err)
		return ""
	}
	t.made = true
	return dir
}

// makeTmpDir makes dir, 0700. An existing one is taken only when reuse
// is set, and only when it is a directory of this user's that nobody else
// may enter: the system's temporary directory is everyone's.
func makeTmpDir(dir string, reuse bool) error {
	err := os.Mkdir(dir, 0o700)
	if err == nil || !reuse || !errors.Is(err, fs.ErrExist) {
		return err
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || !ok || int(st.Uid) != os.Getuid() || fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("%s exists and is not a private directory of this user's", dir)
	}
	return nil
}

// closeSessionTmp removes the session's temporary directory when the
// session ends with the host: every host but a one-shot one of a named
// session. No command of the host runs any more.
func (h *Host) closeSessionTmp() {
	t := &h.sbox.tmp
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.made || h.opts.OneShot && !shared.Ephemeral(h.state.ID()) {
		return
	}
	t.made = false
	if dir := h.sessionTempDir(); dir != "" {
		if err := removeTree(dir); err != nil {
			h.log.Warn("cannot remove the session's temporary directory", "dir", dir, "error", err)
		}
	}
}

// removeTree removes dir and all it holds, the directories a command made
// unreadable or unwritable included (it ran as this user). It never
// follows a symlink.
func removeTree(dir string) error {
	var err error
	// Each pass opens the directories one level further down.
	for range 64 {
		if err = os.RemoveAll(dir); err == nil {
			return nil
		}
		opened := false
		_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, werr error) error {
			if d != nil && d.IsDir() {
				if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode().Perm()&0o700 != 0o700 {
					if os.Chmod(path, fi.Mode().Perm()|0o700) == nil {
						opened = true
					}
				}
			}
			return nil
		})
		if !opened {
			return err
		}
	}
	return err
}

// tmpRequest is req as the permission chain must judge it: for a call
// whose commands will see the session's temporary directory at /tmp, each
// path in /tmp that nothing else shows there (a root, allow_read or
// allow_write, the results) is the session directory's file, which
// sessionTmpRoots makes a root: read-only calls read it without asking,
// and calls allowed to write write it. A tool that starts no processes
// names those files itself, through the view its call context carries
// (tempView); one that does not know the view (an older SDK), a command
// left outside the sandbox, or no sandbox here, uses the host's /tmp,
// shared with every process, and is judged on that, as ever.
func (h *Host) tmpRequest(ctx context.Context, c *call, req permission.Request) permission.Request {
	dir := h.sessionTempDir()
	if dir == "" || !slices.ContainsFunc(req.Subjects, func(s permission.Subject) bool { return h.inTmpView(s) }) {
		return req
	}
	if c.tool == nil || c.tool.plugin == nil || c.tool.plugin.startsNoProcesses() || h.excluded(req) || h.probeSandbox(ctx) != nil {
		return req
	}
	subjects := slices.Clone(req.Subjects)
	for i, s := range subjects {
		if h.inTmpView(s) {
			rel, _ := filepath.Rel(tmpView, filepath.Clean(s.Value))
			subjects[i].Value = filepath.Join(dir, rel)
		}
	}
	req.Subjects = subjects
	return req
}

// inTmpView reports whether s names a path in /tmp that the sandbox shows
// from the session's temporary directory (tmpview.View.Shows): an
// absolute path there that no root, allow_read, allow_write or the
// results dir shows at its own name, and whose first name below /tmp the
// host's /tmp does not have. A path the host has (a directory another
// program made) is judged as the host's, as before there was a session's
// /tmp: asked about, and once allowed shown at its name over the
// session's.
func (h *Host) inTmpView(s permission.Subject) bool {
	if s.Kind != permission.PathSubject || !filepath.IsAbs(s.Value) {
		return false
	}
	v := tmpview.View{Host: h.sessionTempDir(), Own: h.tmpOwnPaths()}
	return v.Shows(filepath.Clean(s.Value))
}

// tmpOwnPaths are the paths in /tmp that the sandbox shows at their own
// names over the session's directory: the roots, allow_read and
// allow_write, this session's results.
func (h *Host) tmpOwnPaths() []string {
	sb := h.cfg.Sandbox
	var own []string
	add := func(p string) {
		if p = filepath.Clean(p); filepath.IsAbs(p) && within(p, tmpView) {
			own = append(own, p)
		}
	}
	for _, r := range h.roots() {
		add(r)
	}
	add(h.resultDir)
	for _, list := range [][]config.SandboxPath{sb.AllowRead, sb.AllowWrite} {
		for _, a := range list {
			add(config.ExpandHome(a.Path))
		}
	}
	return own
}

// tempView is the session's /tmp as the call context of p's tools
// carries it: for a plugin that starts no processes, once the session's
// directory is made (so the sandbox works here, and shows it), else nil
// and the tools use the host's /tmp. Their paths in /tmp then name the
// files Bash's commands see there, judged by the chain as the session's
// (a root), and shown to the model at their /tmp names.
func (h *Host) tempView(p *pluginProc) *shared.TempView {
	dir := h.sessionTempDir()
	if dir == "" || !p.startsNoProcesses() || !h.sessionTmpMade() {
		return nil
	}
	return &shared.TempView{Dir: dir, OwnPaths: h.tmpOwnPaths()}
}

// sessionTmpMade reports whether the session's temporary directory is
// made and in use.
func (h *Host) sessionTmpMade() bool {
	t := &h.sbox.tmp
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.made && !t.failed
}

// wantsTmpView reports whether a call of p, prepared without the session's
// /tmp view into prep, is to be prepared again with it: p starts no
// processes and the call names a path the sandbox shows from the session's
// directory, the sandbox works here, and the directory is made now, once
// for the host (a command has not made it yet). Only calls naming such a
// path pay for the check that bwrap works.
func (h *Host) wantsTmpView(ctx context.Context, p *pluginProc, prep *shared.PrepareAnswer) bool {
	if h.sessionTempDir() == "" || !p.startsNoProcesses() {
		return false
	}
	named := slices.ContainsFunc(prep.Subjects, func(s shared.Subject) bool {
		return s.Kind == shared.SubjectPath && h.inTmpView(permission.Subject{Kind: permission.PathSubject, Value: s.Value})
	})
	// The view must then be sent: Prepare is asked again only once.
	return named && h.probeSandbox(ctx) == nil && h.makeSessionTmp() != "" && h.tempView(p) != nil
}

// tmpShown is path as the model knows it: a file of the session's
// temporary directory by its /tmp name (tmpview.View.Shown).
func (h *Host) tmpShown(path string) string {
	v := tmpview.View{Host: h.sessionTempDir()}
	return v.Shown(path)
}
