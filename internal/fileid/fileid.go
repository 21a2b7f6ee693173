// Package fileid is riot's one way of telling whether a file changed
// without reading it, and the one rule for when that answer cannot be
// trusted yet. Its users decide by it whether to read something again:
//   - the manifest cache (core), keyed by a plugin binary's identity, and
//     SameBuild's cached verdicts on two binaries;
//   - the sandbox's profile base (core), reused while the directories a
//     missing secret would be made in keep theirs;
//   - the session host's config watch (core/sessionhost, with Snapshot),
//     which skips reparsing the config while none of its files changed;
//   - a session's state file (core/session), reloaded when another
//     process replaced it;
//   - the CLI's build id (cmd/riot/internal/ident), by which a session
//     host and its clients tell that they are the same build.
//
// An ID is one version of one file as one stat saw it; two stats of an
// unchanged file give equal IDs (==), and a change that a tool can make
// without reading the content gives another (see ID's fields for which
// change each field catches). What an ID cannot see is a second change
// within the granularity of the file system's clock that keeps size and
// times: git's "racy clean" problem. Racy says when a change is that
// recent, and a user then reads again rather than trust the ID.
package fileid

import (
	"io/fs"
	"math"
	"os"
	"time"
)

// RacyWindow is how close to a look a change may be and still be trusted
// by identity: within it a second write may leave the same size and times
// (coarse file system clocks, or FAT's two seconds).
const RacyWindow = 2 * time.Second

// ID is one version of the file at Path. The fields are the union of what
// riot's users rely on; each catches a change the others can miss:
//   - Path: the name it was looked up by, so one name's version is never
//     taken for another's (the manifest cache keys by it);
//   - Dev, Ino: which file the name leads to. A file replaced by rename,
//     even by one of its size and times, is another inode;
//   - Mode: type and permission bits. A file that became a symlink or a
//     directory, or a binary chmodded, is another version even where the
//     change time is unknown (off Linux);
//   - Size: a write that grows or shrinks the file;
//   - MtimeNs: a write in place of the same size (unless its times are set
//     back, which CtimeNs catches);
//   - CtimeNs: any change to the inode, a write, a chmod, a rename onto
//     it, a link made; no tool can set it back, as utimes does mtime.
//
// Off Linux the platform gives no change time, and off unix no inode:
// those fields stay zero, and Racy never trusts such an ID.
type ID struct {
	Path             string
	Dev, Ino         uint64
	Mode             fs.FileMode
	Size             int64
	MtimeNs, CtimeNs int64
}

// Stat is the identity of the file path leads to, symlinks followed.
func Stat(path string) (ID, error) {
	info, err := os.Stat(path)
	if err != nil {
		return ID{}, err
	}
	return Of(path, info), nil
}

// Lstat is the identity of path itself: a symlink's, not its target's.
func Lstat(path string) (ID, error) {
	info, err := os.Lstat(path)
	if err != nil {
		return ID{}, err
	}
	return Of(path, info), nil
}

// Of is the identity of the file at path that info describes (from an
// open file's Stat, say, to know the version that was read).
func Of(path string, info fs.FileInfo) ID {
	id := ID{Path: path, Mode: info.Mode(), Size: info.Size(), MtimeNs: info.ModTime().UnixNano()}
	fromSys(info, &id)
	return id
}

// Current reports whether the file at id.Path is still that version. A
// file that cannot be looked at is not.
func (id ID) Current() bool {
	now, err := Stat(id.Path)
	return err == nil && now == id
}

// Changed is the latest time, in Unix nanoseconds, at which the file is
// known to have changed: the later of its modification and change times.
// Where the platform gives no change time (or no inode, so a file renamed
// over another of its size and times passes for it), nothing bounds it:
// it is math.MaxInt64, too recent ever to be trusted.
func (id ID) Changed() int64 {
	if !complete {
		return math.MaxInt64
	}
	return max(id.MtimeNs, id.CtimeNs)
}

// Racy reports whether the file changed so shortly before now that a
// further change could have kept its identity.
func (id ID) Racy(now time.Time) bool { return Racy(id.Changed(), now) }

// Racy reports whether a change at changed (Unix nanoseconds, as from
// Changed) is within RacyWindow of now, its edge included: such a change
// does not prove that nothing changed after it.
func Racy(changed int64, now time.Time) bool {
	return changed >= now.Add(-RacyWindow).UnixNano()
}
