package session

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Ask is one question the permission chain put to the user, and the
// answer: what `riot permissions suggest` proposes allow rules from.
type Ask struct {
	At   time.Time `json:"at"`
	Tool string    `json:"tool"`
	// ReadOnly is the call's own answer.
	ReadOnly bool `json:"read_only,omitempty"`
	// Step is the chain's step that asked, as permission.Step names it.
	Step string `json:"step"`
	// Subjects are what rules are matched against; none when Truncated.
	Subjects []AskSubject `json:"subjects,omitempty"`
	// Truncated: a subject was longer than maxAskSubject, and none is kept.
	Truncated bool `json:"truncated,omitempty"`
	// Allowed: the call ran; otherwise it was denied (by the user, or
	// because nobody could be asked).
	Allowed bool `json:"allowed"`
	// ByUser: a person answered.
	ByUser bool `json:"by_user,omitempty"`
}

// AskSubject is one subject of an Ask, as permission.Subject names it.
type AskSubject struct {
	Kind   string `json:"kind"`
	Value  string `json:"value"`
	Access string `json:"access,omitempty"`
}

const (
	// maxAsks bounds the asks a session keeps: the last ones.
	maxAsks = 200
	// maxAskSubject bounds one subject's value; a longer one (a heredoc)
	// is not kept.
	maxAskSubject = 2048
)

// RecordAsk adds an ask to the session, keeping the last maxAsks.
func (s *Session) RecordAsk(a Ask) error {
	for _, sub := range a.Subjects {
		if len(sub.Value) > maxAskSubject {
			a.Subjects, a.Truncated = nil, true
			break
		}
	}
	return s.change(func(d *data) {
		d.Asks = append(d.Asks, a)
		if n := len(d.Asks); n > maxAsks {
			d.Asks = slices.Delete(d.Asks, 0, n-maxAsks)
		}
	})
}

// Asks are the asks the session recorded, oldest first.
func (s *Session) Asks() []Ask {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refresh()
	return slices.Clone(s.data.Asks)
}

// ReadAsks reads the asks of the named session id under stateDir, without
// opening it for writing.
func ReadAsks(stateDir, id string) ([]Ask, error) {
	if !ValidID(id) {
		return nil, &loadError{id: id, path: id, err: fs.ErrInvalid}
	}
	s := &Session{id: id, path: filepath.Join(stateDir, "sessions", id+".json"), now: time.Now}
	if _, err := os.Stat(s.path); err != nil {
		return nil, err
	}
	d, _, err := s.load()
	var bad *corruptError
	if errors.As(err, &bad) {
		return nil, err
	}
	return d.Asks, err
}

// Recent are the ids of the n named sessions under stateDir written last,
// newest first.
func Recent(stateDir string, n int) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(stateDir, "sessions"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	type found struct {
		id string
		at time.Time
	}
	var all []found
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || !e.Type().IsRegular() || !ValidID(id) {
			continue
		}
		if fi, err := e.Info(); err == nil {
			all = append(all, found{id, fi.ModTime()})
		}
	}
	slices.SortStableFunc(all, func(a, b found) int { return b.at.Compare(a.at) })
	var ids []string
	for _, f := range all {
		if len(ids) == n {
			break
		}
		ids = append(ids, f.id)
	}
	return ids, nil
}
