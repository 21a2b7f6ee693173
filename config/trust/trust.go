package trust

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/renameio/v2"
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
	// Files are the sums of the workspace's files as the user trusted
	// them (Entry.Files); nil when not trusted, or trusted before riot
	// kept sums.
	Files map[string]string
}

// LocalName is the workspace's untracked layer, relative to the
// workspace: the file riot writes for "always allow" answers.
const LocalName = ".riot/config.local.toml"

// Vouches reports whether the record vouches for the workspace file name
// (relative to the workspace) whose content has the SHA-256 sum: the user
// trusted the workspace when the file was so, or riot wrote it so on the
// user's answer. Nothing vouches for a file that cannot be read (sum "").
func (st Status) Vouches(name, sum string) bool {
	if sum == "" {
		return false
	}
	if name == LocalName && st.Local == sum {
		return true
	}
	return st.State == Trusted && st.Files[name] == sum
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
		st.State, st.Files = Trusted, e.Files
	} else if e.Declined {
		st.State = Declined
	}
	return st, nil
}

// Trust records dir as trusted, with files the sums of its files that can
// loosen checks or run code as the user saw them (Entry.Files), and
// returns its Key.
func (s Store) Trust(dir string, files map[string]string, now time.Time) (string, error) {
	files = maps.Clone(files)
	if files == nil {
		files = map[string]string{}
	}
	if !validFiles(files) {
		return "", errors.New("a file's name is not a path inside the workspace, or its sum is not a SHA-256 in hex")
	}
	return s.change(dir, func(e *Entry) { e.Trusted, e.Declined, e.Files, e.At = true, false, files, now.UTC() })
}

// Decline records that the user chose not to trust dir.
func (s Store) Decline(dir string, now time.Time) (string, error) {
	return s.change(dir, func(e *Entry) { e.Trusted, e.Declined, e.Files, e.At = false, true, nil, now.UTC() })
}

// ErrNotVouched is a workspace file whose present content the record does
// not vouch for, so that riot's own write must not vouch for it either.
var ErrNotVouched = errors.New("its content is not the one the user trusted")

// Amend is riot's own change to the workspace file name (relative to dir),
// made on the user's answer: under the record's lock, it reads the file,
// gives its content (nil when there is none) to edit, writes what edit
// returns in its place and records the new content's sum as vouched for,
// so that the user's own change applies and nobody else's does. In a
// trusted workspace any of its files may be amended; in another, only
// LocalName (Entry.Local). The content read must be one the record vouches
// for, or absent (then the file holds only what edit wrote); otherwise
// Amend writes nothing and returns ErrNotVouched. It returns the new sum,
// or "" when edit changed nothing.
func (s Store) Amend(dir, name string, edit func(old []byte) ([]byte, error), now time.Time) (string, error) {
	key, err := Key(dir)
	if err != nil {
		return "", err
	}
	if !validFiles(map[string]string{name: strings.Repeat("0", 64)}) {
		return "", fmt.Errorf("%q is not a path inside the workspace", name)
	}
	path := filepath.Join(key, name)
	var sum string
	err = s.updateErr(func(entries []Entry) ([]Entry, error) {
		i := slices.IndexFunc(entries, func(e Entry) bool { return e.Dir == key })
		if i < 0 {
			entries = append(entries, Entry{Dir: key})
			i = len(entries) - 1
		}
		e := &entries[i]
		if !e.Trusted && name != LocalName {
			return nil, ErrNotVouched
		}
		old, err := os.ReadFile(path)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		st := Status{Local: e.Local}
		if e.Trusted {
			st.State, st.Files = Trusted, e.Files
		}
		if err == nil && !st.Vouches(name, Sum(old)) {
			return nil, ErrNotVouched
		}
		text, err := edit(old)
		if err != nil {
			return nil, err
		}
		if old != nil && bytes.Equal(text, old) {
			return entries, nil
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, err
		}
		if err := renameio.WriteFile(path, text, 0o644); err != nil {
			return nil, err
		}
		sum = Sum(text)
		if e.Trusted {
			e.Files = maps.Clone(e.Files)
			if e.Files == nil {
				e.Files = map[string]string{}
			}
			e.Files[name] = sum
		} else {
			e.Local = sum
		}
		e.At = now.UTC()
		return entries, nil
	})
	return sum, err
}

// Revouch records after as the sum of the workspace file name (relative to
// dir) in place of before, for a change riot itself made on the user's
// command that Amend cannot make (a directory's, such as a plugin
// installed in .riot/plugins): only in a trusted workspace, and only when
// the record vouches for before, or before is "" (there was no such
// file). It returns ErrNotVouched otherwise, and records nothing. after ""
// forgets the file.
func (s Store) Revouch(dir, name, before, after string, now time.Time) error {
	key, err := Key(dir)
	if err != nil {
		return err
	}
	if !validFiles(map[string]string{name: strings.Repeat("0", 64)}) || !validSum(after) {
		return fmt.Errorf("%q is not a path inside the workspace, or the sum is not a SHA-256 in hex", name)
	}
	return s.updateErr(func(entries []Entry) ([]Entry, error) {
		i := slices.IndexFunc(entries, func(e Entry) bool { return e.Dir == key })
		if i < 0 || !entries[i].Trusted {
			return nil, ErrNotVouched
		}
		e := &entries[i]
		if before != "" && !(Status{State: Trusted, Files: e.Files}).Vouches(name, before) {
			return nil, ErrNotVouched
		}
		e.Files = maps.Clone(e.Files)
		if e.Files == nil {
			e.Files = map[string]string{}
		}
		if after == "" {
			delete(e.Files, name)
		} else {
			e.Files[name] = after
		}
		e.At = now.UTC()
		return entries, nil
	})
}

// Sum is the SHA-256 of data in hex, the form the record keeps.
func Sum(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
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
