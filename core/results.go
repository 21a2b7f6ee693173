package core

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/internal/atomicfile"
)

// Spilled results live in <state>/results/<session>/, one file per spilled
// call. They outlive the process that wrote them, since the model reads
// them in a later turn, often through another riot invocation; so they are
// pruned by age and total size, except those of sessions a riot process
// has open. A host holds a shared flock on its session's .lock file from
// the moment the session has results; the pruner takes each other
// session's lock exclusively, without waiting, and skips the session if it
// cannot.
const (
	defaultResultsMaxAge   = 7 * 24 * time.Hour
	defaultResultsMaxBytes = 256 << 20
	// pruneEvery is how often pruning runs at most, across processes: a
	// stamp file's modification time says when it last ran.
	pruneEvery = time.Hour
	lockName   = ".lock"
	stampName  = ".pruned"
)

// resultStore is one host's view of the results directory.
type resultStore struct {
	root, session, dir string
	maxAge             time.Duration
	maxBytes           int64
	now                func() time.Time
	log                hclog.Logger

	mu        sync.Mutex
	lock      *os.File // the shared flock on dir/.lock, once taken
	closed    bool
	lastPrune time.Time
	running   bool
	pruning   sync.WaitGroup
}

func openResultStore(root, session string, cfg config.Results, now func() time.Time, log hclog.Logger) *resultStore {
	s := &resultStore{root: root, session: session, dir: filepath.Join(root, session), maxAge: cfg.MaxAge, maxBytes: int64(cfg.MaxTotalMB) << 20, now: now, log: log}
	if s.maxAge <= 0 {
		s.maxAge = defaultResultsMaxAge
	}
	if s.maxBytes <= 0 {
		s.maxBytes = defaultResultsMaxBytes
	}
	// A resumed session's earlier results are the model's to read again.
	if _, err := os.Stat(s.dir); err == nil {
		if err := s.ensureLocked(); err != nil {
			log.Warn("cannot lock the session's results; another riot may prune them", "error", err)
		}
	}
	return s
}

// ensureLocked makes the session's directory and takes its shared lock,
// once.
func (s *resultStore) ensureLocked() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lock != nil {
		return nil
	}
	for range 10 {
		if err := os.MkdirAll(s.dir, 0o700); err != nil {
			return err
		}
		f, err := os.OpenFile(filepath.Join(s.dir, lockName), os.O_CREATE|os.O_RDONLY, 0o600)
		if err != nil {
			return err
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH); err != nil {
			f.Close()
			return err
		}
		// A pruner may have removed the file while this waited for the
		// lock: a lock on a file no longer at the path protects nothing.
		held, err1 := f.Stat()
		atPath, err2 := os.Stat(f.Name())
		if err1 == nil && err2 == nil && os.SameFile(held, atPath) {
			s.lock = f
			return nil
		}
		f.Close()
	}
	return errors.New("the results directory keeps being removed")
}

// create starts a spill file for path at tmp, in this session's
// directory.
func (s *resultStore) create(tmp, path string) (*atomicfile.Scratch, error) {
	if s == nil {
		return nil, errNoResultStore
	}
	if err := s.ensureLocked(); err != nil {
		return nil, err
	}
	f, err := atomicfile.OpenScratch(tmp, path)
	if err == nil {
		s.startPrune()
	}
	return f, err
}

// errNoResultStore is the spill error of a host built without a results
// directory.
var errNoResultStore = errors.New("this host keeps no spilled results")

// spillPath is a new file name for a spill of callID: the id, encoded so
// that no two ids share a name, and a random part, so that two processes
// spilling one id in one session never write one file.
func (s *resultStore) spillPath(callID string) string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return filepath.Join(s.dir, safeFileName(callID)+"."+hex.EncodeToString(b)+".txt")
}

// safeFileName encodes a call id as a file name, one to one: letters,
// digits, '-', '_' and a '.' not first stay; every other byte becomes %XX.
// An id whose encoding is long is cut and given a hash, marked by "%Z",
// which no encoding otherwise holds.
func safeFileName(id string) string {
	var b strings.Builder
	for i := 0; i < len(id); i++ {
		c := id[i]
		if c == '-' || c == '_' || c == '.' && i > 0 || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	s := b.String()
	switch {
	case s == "":
		return "%"
	case len(s) > 160:
		sum := sha256.Sum256([]byte(id))
		return s[:100] + "%Z" + hex.EncodeToString(sum[:16])
	}
	return s
}

// startPrune prunes in the background unless a process did recently.
func (s *resultStore) startPrune() {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	if s.closed || s.running || now.Sub(s.lastPrune) < pruneEvery {
		return
	}
	s.lastPrune = now
	if info, err := os.Stat(filepath.Join(s.root, stampName)); err == nil && now.Sub(info.ModTime()) < pruneEvery {
		return
	}
	s.running = true
	s.pruning.Add(1)
	go func() {
		defer s.pruning.Done()
		if err := s.prune(); err != nil {
			s.log.Debug("pruning spilled results stopped", "error", err)
		}
		s.mu.Lock()
		s.running = false
		s.mu.Unlock()
	}()
}

// spilled is one result file of a session no process has open.
type spilled struct {
	path  string
	size  int64
	mtime time.Time
}

// prune removes results of sessions no process has open: those older than
// maxAge, then the oldest while all results together exceed maxBytes.
func (s *resultStore) prune() error {
	if err := os.MkdirAll(s.root, 0o700); err != nil {
		return err
	}
	now := s.now()
	if err := os.Chtimes(filepath.Join(s.root, stampName), now, now); errors.Is(err, fs.ErrNotExist) {
		if err := atomicfile.Write(filepath.Join(s.root, stampName), nil, 0o600); err != nil {
			return err
		}
	}
	sessions, err := os.ReadDir(s.root)
	if err != nil {
		return err
	}
	var total int64
	var candidates []spilled
	var locks []*os.File
	defer func() {
		for _, l := range locks {
			l.Close()
		}
	}()
	for _, e := range sessions {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(s.root, e.Name())
		files := sessionFiles(dir)
		for _, f := range files {
			total += f.size
		}
		if e.Name() == s.session {
			continue
		}
		l, err := os.OpenFile(filepath.Join(dir, lockName), os.O_CREATE|os.O_RDONLY, 0o600)
		if err != nil {
			continue
		}
		if syscall.Flock(int(l.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
			// A live session: its results stay.
			l.Close()
			continue
		}
		locks = append(locks, l)
		candidates = append(candidates, files...)
	}
	slices.SortFunc(candidates, func(a, b spilled) int { return a.mtime.Compare(b.mtime) })
	for _, f := range candidates {
		if now.Sub(f.mtime) < s.maxAge && total <= s.maxBytes {
			break
		}
		if err := os.Remove(f.path); err == nil {
			total -= f.size
		}
	}
	// A session left with no results goes whole, its lock held meanwhile.
	for _, l := range locks {
		dir := filepath.Dir(l.Name())
		if len(sessionFiles(dir)) == 0 {
			_ = os.Remove(l.Name())
			_ = os.Remove(dir)
		}
	}
	return nil
}

// sessionFiles lists a session directory's files but its lock.
func sessionFiles(dir string) []spilled {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []spilled
	for _, e := range entries {
		if e.Name() == lockName || !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		out = append(out, spilled{path: filepath.Join(dir, e.Name()), size: info.Size(), mtime: info.ModTime()})
	}
	return out
}

// close waits for a pruning under way, which a one-shot invocation would
// otherwise never let finish (it takes milliseconds, once an hour), and
// releases the session's lock.
func (s *resultStore) close() {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.pruning.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lock != nil {
		s.lock.Close()
		s.lock = nil
	}
}
