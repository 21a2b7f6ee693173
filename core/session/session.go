// Package session keeps what outlives one call of a host session: each
// plugin's state, keyed by the plugin that owns it, and the permission
// grants made "for this session".
//
// Every call is handed the whole state, so one tool can read what another
// recorded (Edit reads what Read saw), but an outcome updates only its own
// plugin's keys. A named session is persisted under the state dir; every
// write takes a lock on a file beside the state and merges this call's
// changes into what is on disk, so concurrent processes on one session
// lose nothing. Reads pick up what other processes wrote, without a lock:
// the state file is only ever replaced whole.
//
// A session host, the only writer of its session, opens it write-behind
// (writebehind.go): changes are applied in memory at once and written by a
// background writer, off the call's path.
package session

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/riot-tools/riot/internal/atomicfile"
	"github.com/riot-tools/riot/internal/fileid"
)

// Session is one session's state and grants. It is safe for concurrent use.
type Session struct {
	id   string
	path string // "" for an ephemeral session

	mu   sync.Mutex
	data data
	seen version // the state file as last loaded or written

	wb  *writeBehind     // nil: every change is written before it returns
	now func() time.Time // the clock the racy window is judged by
}

// version is the state file as this process last knew it: its identity,
// the time just before that identity was taken, and its bytes. An identity
// taken within fileid.RacyWindow of the file's last change does not prove
// that a later version differs from it (another process can replace the
// file with one of the same size in the same clock tick, onto the inode
// just freed), so until a look outside the window the bytes decide.
type version struct {
	id  fileid.ID
	at  time.Time
	raw []byte
}

// data is the state file's content.
type data struct {
	State  map[string]map[string]string `json:"state"`
	Grants []string                     `json:"grants,omitempty"`
}

// ValidID reports whether id is a safe file name: a letter or digit, then
// letters, digits, '.', '_' or '-', at most 128 in all. (A regexp with
// {0,127} cost every riot start 2 ms to compile.)
func ValidID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for i, r := range id {
		alnum := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
		if !alnum && (i == 0 || r != '.' && r != '_' && r != '-') {
			return false
		}
	}
	return true
}

// Open loads the session id, persisted under stateDir/sessions, or starts
// an ephemeral one, kept in memory only, when id is empty.
func Open(stateDir, id string) (*Session, error) {
	if id == "" {
		b := make([]byte, 8)
		_, _ = rand.Read(b)
		return &Session{id: "ephemeral-" + hex.EncodeToString(b), data: data{State: map[string]map[string]string{}}, now: time.Now}, nil
	}
	if !ValidID(id) {
		return nil, fmt.Errorf("session id %q must be letters, digits, '.', '_' and '-', at most 128 characters", id)
	}
	s := &Session{id: id, path: filepath.Join(stateDir, "sessions", id+".json"), now: time.Now}
	d, v, err := s.load()
	if err != nil {
		return nil, err
	}
	s.data, s.seen = d, v
	return s, nil
}

// ID is the session id.
func (s *Session) ID() string { return s.id }

// Path is the state file, or "" for an ephemeral session.
func (s *Session) Path() string { return s.path }

// Snapshot is what a call of one of plugin's tools is handed: copies of
// plugin's own state and of every other plugin's, by plugin name.
func (s *Session) Snapshot(plugin string) (own map[string]string, others map[string]map[string]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refresh()
	own = maps.Clone(s.data.State[plugin])
	for name, st := range s.data.State {
		if name == plugin || len(st) == 0 {
			continue
		}
		if others == nil {
			others = map[string]map[string]string{}
		}
		others[name] = maps.Clone(st)
	}
	return own, others
}

// Grants are the session's grants, as last seen on disk or made here.
func (s *Session) Grants() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refresh()
	return slices.Clone(s.data.Grants)
}

// Update applies one outcome's state updates to plugin's keys; an empty
// value deletes a key. A persisted session merges them into the state on
// disk under the lock, so updates of other processes survive.
func (s *Session) Update(plugin string, updates map[string]string) error {
	if len(updates) == 0 {
		return nil
	}
	apply := func(d *data) {
		st := d.State[plugin]
		if st == nil {
			st = map[string]string{}
			d.State[plugin] = st
		}
		for k, v := range updates {
			if v == "" {
				delete(st, k)
			} else {
				st[k] = v
			}
		}
		if len(st) == 0 {
			delete(d.State, plugin)
		}
	}
	return s.change(apply)
}

// AddGrants adds grants to the session's, keeping those any process added
// before, and returns them all: the caller grants the ones it lacks. A
// session written behind writes them before it returns all the same: a
// grant follows a person's answer, which took far longer than the write,
// and is what they would least like asked again.
func (s *Session) AddGrants(grants []string) ([]string, error) {
	err := s.change(func(d *data) {
		for _, g := range grants {
			if !slices.Contains(d.Grants, g) {
				d.Grants = append(d.Grants, g)
			}
		}
	})
	if err == nil {
		err = s.Flush()
	}
	return s.Grants(), err
}

// change applies f to the state in memory and, for a persisted session, to
// the state on disk under the lock, then writes the merged state and
// keeps it as this process's view.
func (s *Session) change(f func(*data)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(&s.data)
	if s.path == "" {
		return nil
	}
	if s.wb != nil {
		s.wb.queue(f)
		return nil
	}
	d, v, err := s.persist([]func(*data){f})
	if err != nil {
		return err
	}
	s.data, s.seen = d, v
	return nil
}

// persist applies fs, in order, to the state on disk under the lock and
// writes the result when it differs. It returns the merged state and the
// version of the file it leaves, taken under the lock: after it, another
// process may write, and that version must not pass for this one.
func (s *Session) persist(fs []func(*data)) (data, version, error) {
	unlock, err := lockFile(s.path + ".lock")
	if err != nil {
		return data{}, version{}, fmt.Errorf("lock session %s: %w", s.id, err)
	}
	defer unlock()
	d, v, err := s.load()
	if err != nil {
		return d, v, err
	}
	before, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return d, v, fmt.Errorf("encode session %s: %w", s.id, err)
	}
	for _, f := range fs {
		f(&d)
	}
	out, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return d, v, fmt.Errorf("encode session %s: %w", s.id, err)
	}
	if bytes.Equal(before, out) {
		// Nothing changed (Bash reports the directory it stayed in after
		// every command): a write would cost two fsyncs on the call's path
		// and tell no reader anything new.
		return d, v, nil
	}
	// Replaced whole, so that the reads of other processes, which take no
	// lock, see one version or the other.
	if err := atomicfile.Write(s.path, out, 0o600); err != nil {
		return d, v, fmt.Errorf("write session %s: %w", s.id, err)
	}
	at := s.now()
	id, err := fileid.Stat(s.path)
	if err != nil {
		// Unknown: the next read loads the file whatever it holds.
		id = fileid.ID{}
	}
	return d, version{id: id, at: at, raw: out}, nil
}

// refresh reloads the state file if another process replaced it since it
// was last seen: when its identity differs, or when the identity seen was
// taken too soon after a change to prove anything and its bytes differ. A
// file that cannot be read now keeps the view in memory: Update reports
// the problem when it next writes.
func (s *Session) refresh() {
	if s.path == "" {
		return
	}
	id, err := fileid.Stat(s.path)
	if err != nil || id == s.seen.id && !fileid.Racy(id.Changed(), s.seen.at) {
		return
	}
	d, v, err := s.load()
	switch {
	case err != nil:
		return
	case v.id == s.seen.id && bytes.Equal(v.raw, s.seen.raw):
		// The version already held, looked at again: once this look is
		// outside its window, its identity alone will do.
		s.seen.at = v.at
		return
	}
	// Changes not yet written are this process's newest word.
	s.wb.reapply(&d)
	s.data, s.seen = d, v
}

// load reads the state file; a missing one is an empty state.
func (s *Session) load() (data, version, error) {
	d := data{}
	at := s.now()
	f, err := os.Open(s.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		d.State = map[string]map[string]string{}
		return d, version{at: at}, nil
	case err != nil:
		return d, version{}, fmt.Errorf("read session %s: %w", s.id, err)
	}
	defer func() { _ = f.Close() }()
	info, err := f.Stat()
	if err != nil {
		return d, version{}, fmt.Errorf("read session %s: %w", s.id, err)
	}
	raw, err := io.ReadAll(f)
	if err != nil {
		return d, version{}, fmt.Errorf("read session %s: %w", s.id, err)
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		return d, version{}, fmt.Errorf("session file %s is corrupt: %w", s.path, err)
	}
	if d.State == nil {
		d.State = map[string]map[string]string{}
	}
	return d, version{id: fileid.Of(s.path, info), at: at, raw: raw}, nil
}
