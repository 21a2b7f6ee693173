package fileid

import (
	"errors"
	"io/fs"
	"slices"
	"time"
)

// Look is one path as one look saw it: absent, unreadable, or its ID, and
// for a symlink its target's too. Two looks are Same when nothing a stat
// shows changed between them, a file appearing or going included.
type Look struct {
	Err    string // "" when the stat succeeded
	ID     ID
	Target *Look // a symlink's target
	// Newest is the latest change, the target's included (ID.Changed).
	Newest int64
}

// LookAt looks at path: its own ID and, for a symlink, its target's.
func LookAt(path string) Look {
	id, err := Lstat(path)
	if err != nil {
		return Look{Err: errKind(err)}
	}
	l := Look{ID: id, Newest: id.Changed()}
	if id.Mode&fs.ModeSymlink != 0 {
		var t Look
		if tid, err := Stat(path); err != nil {
			t.Err = errKind(err)
		} else {
			t = Look{ID: tid, Newest: tid.Changed()}
		}
		l.Target = &t
		l.Newest = max(l.Newest, t.Newest)
	}
	return l
}

// errKind is an error as a look keeps it: absent, or its text.
func errKind(err error) string {
	if errors.Is(err, fs.ErrNotExist) {
		return "absent"
	}
	return err.Error()
}

// Same reports whether two looks saw the same thing.
func (a Look) Same(b Look) bool {
	if a.Err != b.Err || a.ID != b.ID {
		return false
	}
	// Equal modes: both are symlinks, with targets, or neither is.
	if a.Target == nil || b.Target == nil {
		return a.Target == b.Target
	}
	return a.Target.Same(*b.Target)
}

// Snapshot is what a list of paths was at one moment: what a reader of
// them depended on, whose Same later says it may skip reading them again.
type Snapshot struct {
	Paths []string
	Looks []Look
	// Racy says a path changed too close to the snapshot to be told apart
	// by its identity from a later change: no later snapshot proves it
	// unchanged.
	Racy bool
}

// Take looks at each of paths at now.
func Take(paths []string, now time.Time) Snapshot {
	s := Snapshot{Paths: paths, Looks: make([]Look, len(paths))}
	for i, p := range paths {
		s.Looks[i] = LookAt(p)
		if s.Looks[i].Err == "" && Racy(s.Looks[i].Newest, now) {
			s.Racy = true
		}
	}
	return s
}

// Same reports whether o saw the same paths, each as s did.
func (s Snapshot) Same(o Snapshot) bool {
	return slices.Equal(s.Paths, o.Paths) && slices.EqualFunc(s.Looks, o.Looks, Look.Same)
}

// Unchanged reports whether every path of s is as s saw it, and s can be
// trusted to say so (it is not racy).
func (s Snapshot) Unchanged(now time.Time) bool {
	return !s.Racy && len(s.Paths) == len(s.Looks) && Take(s.Paths, now).Same(s)
}
