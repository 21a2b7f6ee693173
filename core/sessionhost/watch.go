package sessionhost

import (
	"slices"
	"time"

	"github.com/riot-tools/riot/internal/fileid"
)

// racyWindow is how close to a snapshot a file's change may be and still
// be trusted (fileid.RacyWindow): within it the host reads the config
// again rather than trust its identity.
const racyWindow = fileid.RacyWindow

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
	trusted *fileid.Snapshot // the files as the cached fingerprint was read from
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
	if w.trusted != nil && fileid.Take(w.paths, now()).Same(*w.trusted) {
		return w.fp, nil
	}
	// The files are looked at before and after the read: only a read
	// between two equal looks is known to have read what they show.
	before := fileid.Take(w.paths, now())
	fp, paths, err := load()
	if err != nil {
		w.trusted, w.paths = nil, nil
		return "", err
	}
	after := fileid.Take(slices.Clone(paths), now())
	w.paths, w.fp, w.trusted = after.Paths, fp, nil
	if before.Same(after) && !after.Racy {
		w.trusted = &after
	}
	return fp, nil
}
