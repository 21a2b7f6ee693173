package sessionhost

import (
	"errors"
	"io/fs"
	"slices"
	"time"

	"github.com/riot-tools/riot/internal/fileid"
)

// racyWindow is how close to a snapshot a file's change may be and still
// be trusted (fileid.RacyWindow): within it the host reads the config
// again rather than trust its identity.
const racyWindow = fileid.RacyWindow

// fileID is one path as stat saw it: absent, unreadable, or its identity
// (fileid.ID), with a symlink's target's.
type fileID struct {
	err    string // "" when stat succeeded
	id     fileid.ID
	target *fileID // a symlink's target
	newest int64   // the latest change, the target's included (fileid.ID.Changed)
}

func statID(path string) fileID {
	id, err := fileid.Lstat(path)
	if err != nil {
		return fileID{err: errKind(err)}
	}
	f := fileID{id: id, newest: id.Changed()}
	if id.Mode&fs.ModeSymlink != 0 {
		var t fileID
		if tid, err := fileid.Stat(path); err != nil {
			t.err = errKind(err)
		} else {
			t = fileID{id: tid, newest: tid.Changed()}
		}
		f.target = &t
		f.newest = max(f.newest, t.newest)
	}
	return f
}

func errKind(err error) string {
	if errors.Is(err, fs.ErrNotExist) {
		return "absent"
	}
	return err.Error()
}

func (a fileID) same(b fileID) bool {
	if a.err != b.err || a.id != b.id {
		return false
	}
	// Equal modes: both are symlinks, with targets, or neither is.
	return a.target == nil || a.target.same(*b.target)
}

// snapshot is the identity of a list of paths at one moment.
type snapshot struct {
	paths []string
	ids   []fileID
	// racy says a file changed too close to the snapshot to be told
	// apart by its identity from a later change.
	racy bool
}

func takeSnapshot(paths []string, now time.Time) snapshot {
	s := snapshot{paths: paths, ids: make([]fileID, len(paths))}
	for i, p := range paths {
		s.ids[i] = statID(p)
		if s.ids[i].err == "" && fileid.Racy(s.ids[i].newest, now) {
			s.racy = true
		}
	}
	return s
}

func (s snapshot) same(o snapshot) bool {
	return slices.Equal(s.paths, o.paths) && slices.EqualFunc(s.ids, o.ids, fileID.same)
}

// ConfigWatch saves a host from reading its config again before each turn
// when none of the files it was read from changed: parsing the layers
// (most of it the embedded defaults) and resolving the plugins cost a
// millisecond a turn, a stat of each file some microseconds. A file
// counts as changed when its device, inode, mode, size, modification or
// change time differs, or it appeared or went; one changed within a
// moment of being looked at is read again each turn until it settles.
// Not safe for concurrent use: the server runs one turn at a time.
type ConfigWatch struct {
	// Now is the clock of the racy check; nil means time.Now.
	Now func() time.Time

	paths   []string
	trusted *snapshot // the files as the cached fingerprint was read from
	fp      string
}

// Load is a full read of the config: the fingerprint Server.Current
// returns, and every path the read depended on, present or not (the
// config files, the directories searched for plugins, the binaries).
type Load func() (fp string, paths []string, err error)

// Current returns the fingerprint load would return now: the cached one
// when every path of the last load is as it was, else load's.
func (w *ConfigWatch) Current(load Load) (string, error) {
	now := time.Now
	if w.Now != nil {
		now = w.Now
	}
	if w.trusted != nil && takeSnapshot(w.paths, now()).same(*w.trusted) {
		return w.fp, nil
	}
	// The files are looked at before and after the read: only a read
	// between two equal looks is known to have read what they show.
	before := takeSnapshot(w.paths, now())
	fp, paths, err := load()
	if err != nil {
		w.trusted, w.paths = nil, nil
		return "", err
	}
	after := takeSnapshot(slices.Clone(paths), now())
	w.paths, w.fp, w.trusted = after.paths, fp, nil
	if before.same(after) && !after.racy {
		w.trusted = &after
	}
	return fp, nil
}
