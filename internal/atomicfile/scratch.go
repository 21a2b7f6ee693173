package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Scratch is a spilled result being written at a temporary name that its
// writers know in advance: the host and, through CallContext.spill_file, a
// plugin write disjoint stretches of it at their offsets. Commit renames it
// to its target, so a reader never sees it half written; like
// CommitScratch, it does not fsync.
type Scratch struct {
	f         *os.File
	tmp, path string
	done      bool
}

// OpenScratch opens the scratch file tmp for target, creating it (0600) if
// it does not exist: a plugin may have opened it first. A symbolic link at
// tmp is refused; tmp's directory is created 0700 if needed.
func OpenScratch(tmp, target string) (*Scratch, error) {
	if err := os.MkdirAll(filepath.Dir(tmp), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, err
	}
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		f.Close()
		return nil, errors.Join(err, &fs.PathError{Op: "open", Path: tmp, Err: errors.New("not a regular file")})
	}
	return &Scratch{f: f, tmp: tmp, path: target}, nil
}

// WriteAt writes p at off.
func (s *Scratch) WriteAt(p []byte, off int64) (int, error) { return s.f.WriteAt(p, off) }

// ReadAt reads what a writer put at off.
func (s *Scratch) ReadAt(p []byte, off int64) (int, error) { return s.f.ReadAt(p, off) }

// Commit cuts the file to size, dropping anything written past what its
// reader accounted for, and renames it over its target.
func (s *Scratch) Commit(size int64) error {
	if s.done {
		return errors.New("the scratch file is already committed or discarded")
	}
	s.done = true
	err := errors.Join(s.f.Truncate(size), s.f.Close())
	if err == nil {
		err = os.Rename(s.tmp, s.path)
	}
	if err != nil {
		_ = os.Remove(s.tmp)
	}
	return err
}

// Cleanup removes the file unless it was committed.
func (s *Scratch) Cleanup() {
	if s.done {
		return
	}
	s.done = true
	_ = s.f.Close()
	_ = os.Remove(s.tmp)
}
