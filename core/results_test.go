package core

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/riot-tools/riot/config"
)

// writeAged writes size bytes at path, last modified age ago.
func writeAged(t *testing.T, path string, size int, age time.Duration) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, make([]byte, size), 0o600); err != nil {
		t.Fatal(err)
	}
	at := time.Now().Add(-age)
	if err := os.Chtimes(path, at, at); err != nil {
		t.Fatal(err)
	}
}

func exists(path string) bool { _, err := os.Stat(path); return err == nil }

// Pruning removes old results and, past the total size, the oldest first,
// but never those of a session a process has open; a session left empty
// goes whole.
func TestPruneKeepsLiveSessions(t *testing.T) {
	root := filepath.Join(t.TempDir(), "results")
	day := 24 * time.Hour
	oldDead := filepath.Join(root, "ephemeral-1", "toolu_1.aa.txt")
	oldLive := filepath.Join(root, "live", "toolu_1.aa.txt")
	oldOwn := filepath.Join(root, "own", "toolu_1.aa.txt")
	bigOld := filepath.Join(root, "dead", "toolu_2.aa.txt")
	bigNew := filepath.Join(root, "dead", "toolu_3.aa.txt")
	writeAged(t, oldDead, 10, 9*day)
	writeAged(t, oldLive, 10, 9*day)
	writeAged(t, oldOwn, 10, 9*day)
	writeAged(t, bigOld, 700<<10, 2*time.Hour)
	writeAged(t, bigNew, 700<<10, time.Hour)

	// Another process's live session: a store holding its lock.
	live := openResultStore(root, "live", config.Results{}, time.Now, hclog.NewNullLogger())
	defer live.close()
	if live.lock == nil {
		t.Fatal("a session with results was not locked at open")
	}
	s := openResultStore(root, "own", config.Results{MaxAge: 7 * day, MaxTotalMB: 1}, time.Now, hclog.NewNullLogger())
	s.startPrune()
	s.close()

	for path, want := range map[string]bool{oldDead: false, oldLive: true, oldOwn: true, bigOld: false, bigNew: true} {
		if exists(path) != want {
			t.Errorf("%s exists = %v, want %v", strings.TrimPrefix(path, root), !want, want)
		}
	}
	if exists(filepath.Dir(oldDead)) {
		t.Error("an emptied session's directory is left")
	}
	// The stamp keeps the next store from pruning again soon.
	writeAged(t, oldDead, 10, 9*day)
	s = openResultStore(root, "own", config.Results{MaxAge: 7 * day}, time.Now, hclog.NewNullLogger())
	s.startPrune()
	s.close()
	if !exists(oldDead) {
		t.Error("pruned again within the hour")
	}
}

// A session's lock is held on the file at the path, even when a pruner
// removed the lock file while the session waited for it.
func TestSessionLockSurvivesARemovedLockFile(t *testing.T) {
	root := filepath.Join(t.TempDir(), "results")
	lockPath := filepath.Join(root, "s", lockName)
	// A pruner holds the session's lock file, about to remove it.
	if err := os.MkdirAll(filepath.Dir(lockPath), 0o700); err != nil {
		t.Fatal(err)
	}
	pruner, err := os.OpenFile(lockPath, os.O_CREATE|os.O_RDONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(pruner.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	s := &resultStore{root: root, session: "s", dir: filepath.Dir(lockPath), now: time.Now, log: hclog.NewNullLogger()}
	defer s.close()
	done := make(chan error, 1)
	go func() { done <- s.ensureLocked() }()
	// Once the session waits on the old file, the pruner removes it.
	for !lockWaiter(t, lockPath) {
		select {
		case err := <-done:
			t.Fatalf("locked while a pruner held the lock: %v", err)
		default:
			runtime.Gosched()
		}
	}
	_ = os.Remove(lockPath)
	pruner.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(lockPath)
	if err != nil {
		t.Fatalf("no lock file at the path: %v", err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err == nil {
		t.Fatal("a pruner could lock a live session")
	}
}

// lockWaiter reports whether some process waits for a lock on path, from
// /proc/locks ("->" marks a waiter).
func lockWaiter(t *testing.T, path string) bool {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	ino := info.Sys().(*syscall.Stat_t).Ino
	data, _ := os.ReadFile("/proc/locks")
	for _, line := range strings.Split(string(data), "\n") {
		if strings.Contains(line, "->") && strings.Contains(line, ":"+strconv.FormatUint(ino, 10)+" ") {
			return true
		}
	}
	return false
}

// The log file is rotated at its size limit, into FILE.1.
func TestLogFileRotates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "logs", "riot.log")
	l, err := openLogFile(path, 1000)
	if err != nil {
		t.Fatal(err)
	}
	line := []byte(strings.Repeat("x", 99) + "\n")
	for range 25 {
		if _, err := l.Write(line); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	cur, _ := os.Stat(path)
	old, err := os.Stat(path + ".1")
	if err != nil || cur.Size() > 1000 || old.Size() > 1000 || cur.Size()+old.Size() < 500 {
		t.Fatalf("after 2500 bytes with a 1000-byte limit: %v, %v, %v", cur, old, err)
	}
	// A file over the limit when opened is rotated first.
	_ = os.WriteFile(path, make([]byte, 2000), 0o600)
	l, _ = openLogFile(path, 1000)
	_, _ = l.Write(line)
	l.Close()
	if cur, _ := os.Stat(path); cur.Size() != int64(len(line)) {
		t.Fatalf("an oversized log was not rotated at open: %d bytes", cur.Size())
	}
}

// The log level on stderr is the config's, which already holds
// RIOT_LOG_LEVEL; the environment is not read again behind it.
func TestLoggerTakesItsLevelFromConfigAlone(t *testing.T) {
	t.Setenv("RIOT_LOG_LEVEL", "debug")
	var stderr strings.Builder
	log, _, closer := newLogger("warn", "", 0, &stderr)
	defer closer()
	log.Debug("debug line")
	log.Warn("warn line")
	if strings.Contains(stderr.String(), "debug line") || !strings.Contains(stderr.String(), "warn line") {
		t.Fatalf("stderr at warn with RIOT_LOG_LEVEL=debug in the environment:\n%s", stderr.String())
	}
}
