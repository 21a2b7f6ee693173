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
// A state file that does not parse is never loaded nor overwritten: it is
// moved aside, and the session starts afresh (at Open) or the state held
// in memory is written in its place (later), with a Notice for the caller
// to tell. A state that cannot be saved stays in memory, and SaveError
// says why.
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
	"syscall"
	"time"

	"github.com/riot-tools/riot/internal/atomicfile"
	"github.com/riot-tools/riot/internal/fileid"
	"github.com/riot-tools/riot/shared"
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

	// notices are what became of a corrupt state file, not yet taken by
	// TakeNotices; saveErr (guarded by mu) is why the last write failed,
	// until one succeeds.
	notices []Notice
	saveErr error
	// unsaved are the changes a synchronous write failed to save, kept
	// in memory and tried again with the next one (guarded by mu).
	unsaved []func(*data)
	// nmu guards notices, which a write behind, outside mu, adds to.
	nmu sync.Mutex
}

// Notice says that the session's state file was found corrupt and moved
// aside, so that it is never loaded, overwritten or lost.
type Notice struct {
	// MovedTo is where the corrupt file now is.
	MovedTo string
	// Lost: the state was started afresh, so what the file held (records
	// of files read, grants) is gone from the session. Otherwise the
	// state this process held in memory was written in its place.
	Lost bool
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
	// Asks are the session's last questions and their answers (asks.go).
	Asks []Ask `json:"asks,omitempty"`
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
		return &Session{id: shared.EphemeralSessionPrefix + hex.EncodeToString(b), data: data{State: map[string]map[string]string{}}, now: time.Now}, nil
	}
	if !ValidID(id) {
		return nil, fmt.Errorf("session id %q must be letters, digits, '.', '_' and '-', at most 128 characters", id)
	}
	s := &Session{id: id, path: filepath.Join(stateDir, "sessions", id+".json"), now: time.Now}
	d, v, err := s.load()
	var bad *corruptError
	if errors.As(err, &bad) {
		// Set aside under the lock, then start afresh: a file that will
		// not parse now never will, and refusing it would stop every call
		// of the session until someone removed it by hand.
		d, v, err = s.persist(nil, func() data { return data{State: map[string]map[string]string{}} }, true)
		if err == nil && len(s.notices) == 0 {
			// Another process set it aside first: what it held is lost to
			// this one all the same.
			moved, _ := filepath.Glob(s.path + ".corrupt-*")
			slices.Sort(moved)
			n := Notice{Lost: true}
			if len(moved) > 0 {
				n.MovedTo = moved[len(moved)-1]
			}
			s.notices = append(s.notices, n)
		}
	}
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
	batch := append(s.unsaved, f)
	d, v, err := s.persist(batch, s.data.clone, false)
	s.saved(err)
	if err != nil {
		// Kept in memory, and written with the next change that can be.
		s.unsaved = batch
		return err
	}
	s.unsaved = nil
	s.data, s.seen = d, v
	return nil
}

// saved records the outcome of a write; the caller holds mu.
func (s *Session) saved(err error) {
	s.saveErr = err
}

// memory is a copy of the state held in memory, for a write that does
// not hold mu.
func (s *Session) memory() data {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.data.clone()
}

// SaveError is why the session's state could not be written the last
// time it was, or nil once a write succeeds. A session that writes behind
// keeps the changes it could not write in memory, and tries again.
func (s *Session) SaveError() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.saveErr
}

// TakeNotices returns what became of corrupt state files since it was
// last called.
func (s *Session) TakeNotices() []Notice {
	s.nmu.Lock()
	defer s.nmu.Unlock()
	n := s.notices
	s.notices = nil
	return n
}

// clone is a deep copy of d.
func (d data) clone() data {
	c := data{State: make(map[string]map[string]string, len(d.State)), Grants: slices.Clone(d.Grants), Asks: slices.Clone(d.Asks)}
	for k, v := range d.State {
		c.State[k] = maps.Clone(v)
	}
	return c
}

// persist applies fs, in order, to the state on disk under the lock and
// writes the result when it differs. It returns the merged state and the
// version of the file it leaves, taken under the lock: after it, another
// process may write, and that version must not pass for this one.
//
// A state file that is corrupt is moved aside, never overwritten, and
// memory (the state this process holds, with fs applied already or not:
// every change is idempotent) stands in for it: written in its place, or,
// with fresh, left as the empty state it is, the loss noted.
func (s *Session) persist(fs []func(*data), memory func() data, fresh bool) (data, version, error) {
	unlock, err := lockFile(s.path + ".lock")
	if err != nil {
		return data{}, version{}, &saveError{id: s.id, path: s.path, op: "lock", err: err}
	}
	defer unlock()
	d, v, err := s.load()
	rewrite := false
	var bad *corruptError
	if errors.As(err, &bad) {
		aside := fmt.Sprintf("%s.corrupt-%s", s.path, s.now().UTC().Format("20060102T150405.000000000Z"))
		if rerr := os.Rename(s.path, aside); rerr != nil {
			return d, v, &saveError{id: s.id, path: s.path, op: "move aside the corrupt", err: rerr}
		}
		s.nmu.Lock()
		s.notices = append(s.notices, Notice{MovedTo: aside, Lost: fresh})
		s.nmu.Unlock()
		d, v, err = memory(), version{at: s.now()}, nil
		rewrite = !fresh
	}
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
	if bytes.Equal(before, out) && !rewrite {
		// Nothing changed (Bash reports the directory it stayed in after
		// every command): a write would cost two fsyncs on the call's path
		// and tell no reader anything new.
		return d, v, nil
	}
	// Replaced whole, so that the reads of other processes, which take no
	// lock, see one version or the other.
	if err := atomicfile.Write(s.path, out, 0o600); err != nil {
		return d, v, &saveError{id: s.id, path: s.path, op: "write", err: err}
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
	var bad *corruptError
	switch {
	case errors.As(err, &bad):
		// Another hand broke the file: this process's view is the best
		// there is, and goes in its place, the broken file kept aside. A
		// session written behind has its writer do it, which must not
		// wait for the file's lock under mu.
		if s.wb != nil {
			s.wb.queue(func(*data) {})
			return
		}
		d, v, err := s.persist(s.unsaved, s.data.clone, false)
		s.saved(err)
		if err == nil {
			s.unsaved = nil
			s.data, s.seen = d, v
		}
		return
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
	for _, f := range s.unsaved {
		f(&d)
	}
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
		return d, version{}, &loadError{id: s.id, path: s.path, err: err}
	}
	defer func() { _ = f.Close() }()
	info, err := f.Stat()
	if err != nil {
		return d, version{}, &loadError{id: s.id, path: s.path, err: err}
	}
	raw, err := io.ReadAll(f)
	if err != nil {
		return d, version{}, &loadError{id: s.id, path: s.path, err: err}
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		return d, version{}, &corruptError{path: s.path, err: err}
	}
	if d.State == nil {
		d.State = map[string]map[string]string{}
	}
	return d, version{id: fileid.Of(s.path, info), at: at, raw: raw}, nil
}

// corruptError is a state file that does not parse.
type corruptError struct {
	path string
	err  error
}

func (e *corruptError) Error() string {
	return fmt.Sprintf("the session state file %s is corrupt (%v)", e.path, e.err)
}

// loadError is a state file that cannot be read.
type loadError struct {
	id, path string
	err      error
}

func (e *loadError) Error() string {
	return fmt.Sprintf("cannot read the state of session %s at %s (%s): make it readable or move it away, or use another --session", e.id, e.path, Why(e.err))
}

func (e *loadError) Unwrap() error { return e.err }

// saveError is a state that could not be written.
type saveError struct {
	id, path, op string
	err          error
}

func (e *saveError) Error() string {
	return fmt.Sprintf("cannot %s the state file of session %s at %s (%s)", e.op, e.id, e.path, Why(e.err))
}

func (e *saveError) Unwrap() error { return e.err }

// Why says in plain words why a file operation failed.
func Why(err error) string {
	switch {
	case errors.Is(err, syscall.ENOSPC):
		return "the disk is full"
	case errors.Is(err, syscall.EDQUOT):
		return "the disk quota is used up"
	case errors.Is(err, syscall.EROFS):
		return "the file system is read-only"
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	case errors.Is(err, syscall.EISDIR):
		return "a directory stands where a file should be"
	case errors.Is(err, syscall.ENOTDIR):
		return "a file stands where a directory should be"
	case errors.Is(err, syscall.EIO):
		return "an input/output error of the disk"
	default:
		return "the file system refused it"
	}
}
