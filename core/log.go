package core

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/hashicorp/go-hclog"
)

// defaultLogMaxBytes is the log file's size at rotation unless
// log.max_size_mb says otherwise.
const defaultLogMaxBytes = 10 << 20

// newLogger returns the host's log, which reaches stderr at level and the
// log file at debug, and fileLog, which reaches the log file alone: what
// plugins print (a panic's stack among it) belongs there, not on the
// user's terminal. The level comes from the config, RIOT_LOG_LEVEL
// included, and from nowhere else. A file that cannot be opened leaves
// stderr alone.
func newLogger(level, file string, maxBytes int64, stderr io.Writer) (log, fileLog hclog.Logger, closer func() error) {
	stderrLevel := hclog.LevelFromString(level)
	if stderrLevel == hclog.NoLevel {
		stderrLevel = hclog.Warn
	}
	out := io.Discard
	closer = func() error { return nil }
	if file != "" {
		if f, err := openLogFile(file, maxBytes); err == nil {
			out, closer = f, f.Close
		}
	}
	fileLevel := min(stderrLevel, hclog.Debug)
	il := hclog.NewInterceptLogger(&hclog.LoggerOptions{Name: "riot", Level: fileLevel, Output: out})
	il.RegisterSink(hclog.NewSinkAdapter(&hclog.LoggerOptions{Level: stderrLevel, Output: stderr}))
	fileLog = hclog.New(&hclog.LoggerOptions{Name: "riot", Level: fileLevel, Output: out})
	return il, fileLog, closer
}

// logFile is the log file, rotated by size: past max bytes it is renamed
// to PATH.1, replacing the one before, and a new one is started. Several
// riot processes may append to one log file; the one that rotates holds
// an flock on it and renames it only if it is still the file at the path,
// so two never rotate it twice.
type logFile struct {
	mu   sync.Mutex
	path string
	max  int64
	f    *os.File
	size int64
}

func openLogFile(path string, max int64) (*logFile, error) {
	if max <= 0 {
		max = defaultLogMaxBytes
	}
	l := &logFile{path: path, max: max}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	if err := l.open(); err != nil {
		return nil, err
	}
	if l.size >= l.max {
		l.rotate()
	}
	return l, nil
}

func (l *logFile) open() error {
	f, err := os.OpenFile(l.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	l.f, l.size = f, info.Size()
	return nil
}

func (l *logFile) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return 0, os.ErrClosed
	}
	if l.size+int64(len(p)) > l.max {
		l.rotate()
	}
	n, err := l.f.Write(p)
	l.size += int64(n)
	return n, err
}

// rotate renames the file if it is still this one and over the size, and
// reopens the path; l.mu is held. Other processes' writes count too, so
// it asks the file its size.
func (l *logFile) rotate() {
	fd := int(l.f.Fd())
	if err := syscall.Flock(fd, syscall.LOCK_EX); err != nil {
		return
	}
	mine, err1 := l.f.Stat()
	atPath, err2 := os.Stat(l.path)
	switch {
	case err1 != nil:
	case err2 == nil && os.SameFile(mine, atPath) && mine.Size() >= l.max:
		_ = os.Rename(l.path, l.path+".1")
	case err2 == nil && os.SameFile(mine, atPath):
		// Not over the size after all: keep counting from its real size.
		l.size = mine.Size()
		_ = syscall.Flock(fd, syscall.LOCK_UN)
		return
	}
	_ = syscall.Flock(fd, syscall.LOCK_UN)
	old := l.f
	if err := l.open(); err != nil {
		// Keep writing to the old file rather than lose the log.
		l.f = old
		return
	}
	old.Close()
}

// Close closes the file.
func (l *logFile) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	if errors.Is(err, os.ErrClosed) {
		return nil
	}
	return err
}
