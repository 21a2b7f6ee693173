package trust

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// State is what the record says of a workspace.
type State int

const (
	// Unknown is a workspace the user has not decided on.
	Unknown State = iota
	// Trusted is a workspace whose config applies in full.
	Trusted
	// Declined is a workspace the user chose not to trust when asked.
	Declined
)

// Status is what the record holds for a workspace.
type Status struct {
	State State
	// Local is the SHA-256 of the .riot/config.local.toml riot wrote for
	// the user in this workspace, or "" (Entry.Local).
	Local string
}

// Store is the record in one file.
type Store struct {
	File string
}

// ForConfigDir is the record in riot's user config directory.
func ForConfigDir(dir string) Store { return Store{File: filepath.Join(dir, FileName)} }

// ErrNotDir is a path that is not an existing directory.
var ErrNotDir = errors.New("not an existing directory")

// ErrPath is a path that cannot be recorded: its real path is not valid
// UTF-8, which JSON would not keep byte for byte, so two such paths could
// become one entry.
var ErrPath = errors.New("its real path is not valid UTF-8")

// Key is the name of dir in the record: its real path, absolute, with
// every symlink resolved before the .. that follows it (a relative dir is
// taken from the working directory, never cleaned as text first).
func Key(dir string) (string, error) {
	if !filepath.IsAbs(dir) {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		dir = wd + string(filepath.Separator) + dir
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", ErrNotDir
	}
	if info, err := os.Stat(real); err != nil || !info.IsDir() {
		return "", ErrNotDir
	}
	if !utf8.ValidString(real) {
		return "", ErrPath
	}
	return real, nil
}

// Lookup says what the record holds for dir. A dir that has no Key is
// Unknown.
func (s Store) Lookup(dir string) (Status, error) {
	key, err := Key(dir)
	if err != nil {
		return Status{}, nil //nolint:nilerr // a path that cannot be named was never trusted
	}
	entries, err := s.read()
	if err != nil {
		return Status{}, err
	}
	i := slices.IndexFunc(entries, func(e Entry) bool { return e.Dir == key })
	if i < 0 {
		return Status{}, nil
	}
	e := entries[i]
	st := Status{State: Unknown, Local: e.Local}
	if e.Trusted {
		st.State = Trusted
	} else if e.Declined {
		st.State = Declined
	}
	return st, nil
}

// Trust records dir as trusted and returns its Key.
func (s Store) Trust(dir string, now time.Time) (string, error) {
	return s.change(dir, func(e *Entry) { e.Trusted, e.Declined, e.At = true, false, now.UTC() })
}

// Decline records that the user chose not to trust dir.
func (s Store) Decline(dir string, now time.Time) (string, error) {
	return s.change(dir, func(e *Entry) { e.Trusted, e.Declined, e.At = false, true, now.UTC() })
}

// PinLocal records sum, the SHA-256 of the .riot/config.local.toml riot
// has just written in dir for the user, leaving dir's trust as it is.
func (s Store) PinLocal(dir, sum string, now time.Time) (string, error) {
	if sum == "" || !validSum(sum) {
		return "", errors.New("the sum is not a SHA-256 in hex")
	}
	return s.change(dir, func(e *Entry) { e.Local, e.At = sum, now.UTC() })
}

// change edits dir's entry, making it if there is none.
func (s Store) change(dir string, edit func(*Entry)) (string, error) {
	key, err := Key(dir)
	if err != nil {
		return "", err
	}
	return key, s.update(func(entries []Entry) []Entry {
		i := slices.IndexFunc(entries, func(e Entry) bool { return e.Dir == key })
		if i < 0 {
			entries = append(entries, Entry{Dir: key})
			i = len(entries) - 1
		}
		edit(&entries[i])
		return entries
	})
}

// Revoke removes dir from the record and returns the name it looked for
// and whether an entry was removed. A dir that no longer exists is looked
// for by its absolute path, so that a moved workspace's entry can go.
func (s Store) Revoke(dir string) (string, bool, error) {
	key, err := Key(dir)
	if errors.Is(err, ErrPath) {
		return "", false, err
	}
	if err != nil {
		if key, err = filepath.Abs(dir); err != nil {
			return "", false, err
		}
	}
	removed := false
	err = s.update(func(entries []Entry) []Entry {
		return slices.DeleteFunc(entries, func(e Entry) bool {
			match := e.Dir == key
			removed = removed || match
			return match
		})
	})
	return key, removed, err
}

// List returns the record's entries, sorted by directory.
func (s Store) List() ([]Entry, error) {
	entries, err := s.read()
	slices.SortFunc(entries, func(a, b Entry) int { return strings.Compare(a.Dir, b.Dir) })
	return entries, err
}
