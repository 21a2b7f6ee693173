package core

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"sync"

	"github.com/riot-tools/riot/internal/atomicfile"
)

// session holds what outlives one call: each plugin's state (such as
// Bash's working directory) and the permission grants made "for this
// session". With a named session it is persisted under the state dir, so
// it lasts across invocations.
type session struct {
	id   string
	path string // "" for an ephemeral session

	mu     sync.Mutex
	saveMu sync.Mutex                   // orders writes, so an older snapshot never lands last
	State  map[string]map[string]string `json:"state"`
	Grants []string                     `json:"grants,omitempty"`
}

// validSessionID reports whether id is a safe file name: a letter or digit,
// then letters, digits, '.', '_' or '-', at most 128 in all. (A regexp with
// {0,127} cost every riot start 2 ms to compile.)
func validSessionID(id string) bool {
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

// openSession loads the named session, or starts an ephemeral one when id
// is empty.
func openSession(stateDir, id string) (*session, error) {
	if id == "" {
		b := make([]byte, 8)
		_, _ = rand.Read(b)
		return &session{id: "ephemeral-" + hex.EncodeToString(b), State: map[string]map[string]string{}}, nil
	}
	if !validSessionID(id) {
		return nil, fmt.Errorf("session id %q must be letters, digits, '.', '_' and '-', at most 128 characters", id)
	}
	s := &session{id: id, path: filepath.Join(stateDir, "sessions", id+".json")}
	data, err := os.ReadFile(s.path)
	switch {
	case os.IsNotExist(err):
	case err != nil:
		return nil, fmt.Errorf("read session %s: %w", id, err)
	default:
		if err := json.Unmarshal(data, s); err != nil {
			return nil, fmt.Errorf("session file %s is corrupt: %w", s.path, err)
		}
	}
	if s.State == nil {
		s.State = map[string]map[string]string{}
	}
	return s, nil
}

// state is a copy of one plugin's state.
func (s *session) state(plugin string) map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.State[plugin])
}

// update applies a call's state updates; an empty value deletes a key.
func (s *session) update(plugin string, updates map[string]string) error {
	if len(updates) == 0 {
		return nil
	}
	s.mu.Lock()
	st := s.State[plugin]
	if st == nil {
		st = map[string]string{}
		s.State[plugin] = st
	}
	for k, v := range updates {
		if v == "" {
			delete(st, k)
		} else {
			st[k] = v
		}
	}
	s.mu.Unlock()
	return s.save()
}

func (s *session) setGrants(grants []string) error {
	s.mu.Lock()
	s.Grants = append([]string(nil), grants...)
	s.mu.Unlock()
	return s.save()
}

func (s *session) save() error {
	if s.path == "" {
		return nil
	}
	s.saveMu.Lock()
	defer s.saveMu.Unlock()
	s.mu.Lock()
	data, err := json.MarshalIndent(s, "", "  ")
	s.mu.Unlock()
	if err != nil {
		return err
	}
	return atomicfile.Write(s.path, data, 0o600)
}
