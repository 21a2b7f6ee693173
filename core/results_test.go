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

// Spill names are one to one with call ids, and every spill of one id
// gets a file of its own.
func TestSafeFileNameIsOneToOne(t *testing.T) {
	ids := []string{"", "%", "_", "a/b", "a_b", "a%2Fb", "a.b", ".a", "%2Ea", "..", "toolu_01ABC", "a b", "é", strings.Repeat("x", 300), strings.Repeat("x", 299) + "y", strings.Repeat("x", 100) + "%Z"}
	seen := map[string]string{}
	for _, id := range ids {
		name := safeFileName(id)
		if prev, dup := seen[name]; dup {
			t.Fatalf("ids %q and %q share the file name %q", prev, id, name)
		}
		seen[name] = id
		if name == "" || strings.ContainsAny(name, "/\x00") || strings.HasPrefix(name, ".") || len(name) > 200 {
			t.Fatalf("id %q gives the unsafe name %q", id, name)
		}
	}
	if got := safeFileName("toolu_01ABC"); got != "toolu_01ABC" {
		t.Fatalf("a plain id is encoded as %q", got)
	}
}

func FuzzSafeFileName(f *testing.F) {
	f.Add("a/b", "a_b")
	f.Add("", "%")
	f.Fuzz(func(t *testing.T, a, b string) {
		na, nb := safeFileName(a), safeFileName(b)
		if a != b && na == nb {
			t.Fatalf("%q and %q share the name %q", a, b, na)
		}
		if strings.ContainsAny(na, "/\x00") || strings.HasPrefix(na, ".") || na == "" {
			t.Fatalf("%q gives the unsafe name %q", a, na)
		}
	})
}

func TestSafeFileNameEncodings(t *testing.T) {
	for id, want := range map[string]string{
		"azAZ09-_.x": "azAZ09-_.x",
		".a":         "%2Ea",
		"a/b":        "a%2Fb",
		"é":          "%C3%A9",
		"/:@[`{":     "%2F%3A%40%5B%60%7B", // the neighbours of 0-9, A-Z and a-z
		"":           "%",
	} {
		if got := safeFileName(id); got != want {
			t.Errorf("safeFileName(%q) = %q, want %q", id, got, want)
		}
	}
	long := strings.Repeat("x", 160)
	if got := safeFileName(long); got != long {
		t.Errorf("a 160-byte name was cut: %q", got)
	}
	if got := safeFileName(long + "x"); len(got) != 134 || !strings.HasPrefix(got, strings.Repeat("x", 100)+"%Z") {
		t.Errorf("a 161-byte name became %q", got)
	}
}

func TestResultStoreDefaults(t *testing.T) {
	s := openResultStore(t.TempDir(), "s", config.Results{}, time.Now, hclog.NewNullLogger())
	defer s.close()
	if s.maxAge != defaultResultsMaxAge || s.maxBytes != defaultResultsMaxBytes {
		t.Fatalf("defaults: %s, %d", s.maxAge, s.maxBytes)
	}
	s = openResultStore(t.TempDir(), "s", config.Results{MaxAge: time.Hour, MaxTotalMB: 3}, time.Now, hclog.NewNullLogger())
	defer s.close()
	if s.maxAge != time.Hour || s.maxBytes != 3<<20 {
		t.Fatalf("configured: %s, %d", s.maxAge, s.maxBytes)
	}
}

// Pruning at its limits: a result exactly max_age old goes, one a second
// younger stays; results exactly at max_total_mb stay, and one byte over
// removes the oldest.
func TestPruneBoundaries(t *testing.T) {
	root := filepath.Join(t.TempDir(), "results")
	now := time.Now().Truncate(time.Second)
	clock := func() time.Time { return now }
	at := func(path string, size int, age time.Duration) string {
		writeAged(t, path, size, 0)
		if err := os.Chtimes(path, now.Add(-age), now.Add(-age)); err != nil {
			t.Fatal(err)
		}
		return path
	}
	const day = 24 * time.Hour
	atAge := at(filepath.Join(root, "d", "age.txt"), 0, 7*day)
	younger := at(filepath.Join(root, "d", "younger.txt"), 0, 7*day-time.Second)
	half1 := at(filepath.Join(root, "d", "half1.txt"), 512<<10, time.Hour)
	half2 := at(filepath.Join(root, "d", "half2.txt"), 512<<10, 2*time.Hour)
	s := openResultStore(root, "own", config.Results{MaxAge: 7 * day, MaxTotalMB: 1}, clock, hclog.NewNullLogger())
	if err := s.prune(); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]bool{atAge: false, younger: true, half1: true, half2: true} {
		if exists(path) != want {
			t.Errorf("%s exists = %v, want %v", filepath.Base(path), !want, want)
		}
	}
	oldest := at(filepath.Join(root, "d", "oldest.txt"), 1, 3*time.Hour)
	if err := s.prune(); err != nil {
		t.Fatal(err)
	}
	if exists(oldest) || !exists(half1) || !exists(half2) {
		t.Errorf("one byte over the total: oldest %v, half1 %v, half2 %v; want only the oldest gone", exists(oldest), exists(half1), exists(half2))
	}
	s.close()
}

// Pruning runs at most once per pruneEvery, across processes (the stamp)
// and within one (the store's own memory).
func TestPruneInterval(t *testing.T) {
	root := filepath.Join(t.TempDir(), "results")
	now := time.Now().Truncate(time.Second)
	clock := func() time.Time { return now }
	stamp := filepath.Join(root, stampName)
	victim := filepath.Join(root, "d", "old.txt")
	ran := func(s *resultStore) bool {
		writeAged(t, victim, 1, 30*24*time.Hour)
		s.startPrune()
		s.pruning.Wait()
		return !exists(victim)
	}
	writeAged(t, stamp, 0, 0)
	_ = os.Chtimes(stamp, now.Add(-pruneEvery+time.Second), now.Add(-pruneEvery+time.Second))
	s := openResultStore(root, "own", config.Results{}, clock, hclog.NewNullLogger())
	if ran(s) {
		t.Fatal("pruned within the hour of another process's pruning")
	}
	_ = os.Chtimes(stamp, now.Add(-pruneEvery), now.Add(-pruneEvery))
	s = openResultStore(root, "own", config.Results{}, clock, hclog.NewNullLogger())
	if !ran(s) {
		t.Fatal("did not prune an hour after the last pruning")
	}
	_ = os.Chtimes(stamp, now.Add(-2*pruneEvery), now.Add(-2*pruneEvery))
	if ran(s) {
		t.Fatal("one store pruned twice within the hour")
	}
	now = now.Add(pruneEvery)
	if !ran(s) {
		t.Fatal("one store did not prune again an hour later")
	}
	s.close()
	if ran(s) {
		t.Fatal("a closed store pruned")
	}
}

// The log rotates when a write would take it past the limit, not at it.
func TestLogRotationBoundary(t *testing.T) {
	path := filepath.Join(t.TempDir(), "riot.log")
	l, err := openLogFile(path, 100)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = l.Write(make([]byte, 60))
	_, _ = l.Write(make([]byte, 40))
	if exists(path + ".1") {
		t.Fatal("rotated at exactly the limit")
	}
	_, _ = l.Write(make([]byte, 1))
	l.Close()
	if !exists(path+".1") || fileSize(path) != 1 || fileSize(path+".1") != 100 {
		t.Fatalf("after one byte over: %d and %d bytes", fileSize(path), fileSize(path+".1"))
	}
	// Opened below the limit, it is kept; at the limit, rotated.
	_ = os.Remove(path + ".1")
	_ = os.WriteFile(path, make([]byte, 99), 0o600)
	l, _ = openLogFile(path, 100)
	l.Close()
	if exists(path + ".1") {
		t.Fatal("a log under the limit was rotated at open")
	}
	_ = os.WriteFile(path, make([]byte, 100), 0o600)
	l, _ = openLogFile(path, 100)
	l.Close()
	if !exists(path + ".1") {
		t.Fatal("a log at the limit was not rotated at open")
	}
	if l, _ := openLogFile(path, 0); l.max != defaultLogMaxBytes {
		t.Fatalf("default limit %d", l.max)
	}
}

func fileSize(path string) int64 {
	info, err := os.Stat(path)
	if err != nil {
		return -1
	}
	return info.Size()
}
