package session

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// TestMain doubles as a helper process: with RIOT_SESSION_HELPER set it
// opens the session named there and records one key and one grant, as one
// `riot call --session` would.
func TestMain(m *testing.M) {
	if spec := os.Getenv("RIOT_SESSION_HELPER"); spec != "" {
		parts := strings.SplitN(spec, "|", 3)
		dir, id, n := parts[0], parts[1], parts[2]
		s, err := Open(dir, id)
		if err == nil {
			err = s.Update("read", map[string]string{"file:" + n: n})
		}
		if err == nil {
			_, err = s.AddGrants([]string{"Bash(make " + n + ")"})
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestSessionIDs(t *testing.T) {
	dir := t.TempDir()
	for _, id := range []string{"a", "s1", "A.b_c-d", "9", strings.Repeat("x", 128)} {
		if _, err := Open(dir, id); err != nil {
			t.Errorf("Open(%q): %v", id, err)
		}
	}
	// Anything that could leave the sessions directory, hide a file or
	// surprise a shell is refused, with what is allowed.
	for _, id := range []string{"..", "../x", ".x", "-x", "_x", "a/b", "a b", "é", "a\x00", strings.Repeat("x", 129)} {
		_, err := Open(dir, id)
		if err == nil || !strings.Contains(err.Error(), "letters, digits") {
			t.Errorf("Open(%q) = %v, want a refusal saying what is allowed", id, err)
		}
	}
}

// Many processes on one session, started together, each add a key and a
// grant: every key and every grant is on disk afterwards. Without the lock
// and the merge each rewrote the file whole from what it loaded at start.
func TestConcurrentProcessesLoseNothing(t *testing.T) {
	dir := t.TempDir()
	const n = 16
	var wg sync.WaitGroup
	errs := make(chan string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "RIOT_SESSION_HELPER="+dir+"|s|"+strconv.Itoa(i))
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Sprintf("helper %d: %v: %s", i, err, out)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	s, err := Open(dir, "s")
	if err != nil {
		t.Fatal(err)
	}
	own, _ := s.Snapshot("read")
	grants := s.Grants()
	for i := range n {
		if own["file:"+strconv.Itoa(i)] != strconv.Itoa(i) {
			t.Errorf("key of process %d lost; state %v", i, own)
		}
		want := "Bash(make " + strconv.Itoa(i) + ")"
		found := false
		for _, g := range grants {
			found = found || g == want
		}
		if !found {
			t.Errorf("grant of process %d lost; grants %v", i, grants)
		}
	}
}

// Two handles on one session stand for two processes: each one's update,
// and a deletion, survive the other's, and each sees the other's on its
// next snapshot.
func TestUpdatesMergeAndAreSeen(t *testing.T) {
	dir := t.TempDir()
	a, _ := Open(dir, "s")
	b, _ := Open(dir, "s")
	if err := a.Update("read", map[string]string{"x": "1", "gone": "1"}); err != nil {
		t.Fatal(err)
	}
	if err := b.Update("bash", map[string]string{"cwd": "/w"}); err != nil {
		t.Fatal(err)
	}
	if err := a.Update("read", map[string]string{"gone": ""}); err != nil {
		t.Fatal(err)
	}
	own, others := b.Snapshot("bash")
	if own["cwd"] != "/w" || others["read"]["x"] != "1" || others["read"]["gone"] != "" || len(others["read"]) != 1 {
		t.Errorf("b sees own %v, others %v; want cwd=/w and read's x only", own, others)
	}
	own, others = a.Snapshot("read")
	if own["x"] != "1" || others["bash"]["cwd"] != "/w" {
		t.Errorf("a sees own %v, others %v; want its x and bash's cwd", own, others)
	}
	if _, ok := others["read"]; ok {
		t.Error("a plugin's own state is repeated among the others'")
	}
}

// A snapshot is a copy: changing it changes nothing in the session.
func TestSnapshotIsACopy(t *testing.T) {
	s, _ := Open("", "")
	_ = s.Update("read", map[string]string{"k": "v"})
	own, _ := s.Snapshot("read")
	own["k"] = "changed"
	_, others := s.Snapshot("edit")
	others["read"]["k"] = "changed"
	if own, _ := s.Snapshot("read"); own["k"] != "v" {
		t.Errorf("state changed through a snapshot: %v", own)
	}
}

// A corrupt state file is never loaded nor overwritten: it is moved aside,
// kept whole under a name that says so, and the session starts afresh,
// the loss noted for the caller to tell. Before, every Open failed with a
// raw parse error until someone removed the file.
func TestCorruptFileIsMovedAsideAtOpen(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sessions", "s.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Open(dir, "s")
	if err != nil {
		t.Fatalf("Open of a corrupt file: %v", err)
	}
	notices := s.TakeNotices()
	if len(notices) != 1 || !notices[0].Lost || !strings.HasPrefix(notices[0].MovedTo, path+".corrupt-") {
		t.Fatalf("notices %+v, want one saying the state was lost and where the file went", notices)
	}
	if got, err := os.ReadFile(notices[0].MovedTo); err != nil || string(got) != "{not json" {
		t.Fatalf("the corrupt file was not kept whole: %q, %v", got, err)
	}
	if err := s.Update("read", map[string]string{"k": "v"}); err != nil {
		t.Fatal(err)
	}
	if own, _ := onDisk(t, dir, "s"); own["k"] != "v" {
		t.Fatalf("the fresh session does not save: %v", own)
	}
	if n := s.TakeNotices(); len(n) != 0 {
		t.Fatalf("notices taken twice: %+v", n)
	}
}

// A state file corrupted under a session that is open is moved aside, and
// the state the process holds is written in its place: nothing it knew is
// lost, and the next process loads it. Before, every write failed, with
// nobody told, and after the process ended the session would not load.
func TestCorruptFileUnderAnOpenSessionIsReplacedFromMemory(t *testing.T) {
	for _, behind := range []bool{false, true} {
		t.Run(fmt.Sprintf("writeBehind=%v", behind), func(t *testing.T) {
			dir := t.TempDir()
			s, err := Open(dir, "s")
			if err != nil {
				t.Fatal(err)
			}
			if behind {
				s.WriteBehind()
				t.Cleanup(func() { _ = s.Close() })
			}
			if err := s.Update("read", map[string]string{"a": "1"}); err != nil {
				t.Fatal(err)
			}
			if err := s.Flush(); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(s.Path(), []byte("\x00garbage"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := s.Update("read", map[string]string{"b": "2"}); err != nil {
				t.Fatalf("Update over a corrupt file: %v", err)
			}
			if err := s.Flush(); err != nil {
				t.Fatalf("Flush over a corrupt file: %v", err)
			}
			notices := s.TakeNotices()
			if len(notices) != 1 || notices[0].Lost || !strings.HasPrefix(notices[0].MovedTo, s.Path()+".corrupt-") {
				t.Fatalf("notices %+v, want one saying the file was moved and nothing lost", notices)
			}
			if got, _ := os.ReadFile(notices[0].MovedTo); string(got) != "\x00garbage" {
				t.Fatalf("the corrupt file was not kept: %q", got)
			}
			if own, _ := onDisk(t, dir, "s"); own["a"] != "1" || own["b"] != "2" {
				t.Fatalf("on disk %v, want what the session held", own)
			}
			if s.SaveError() != nil {
				t.Fatalf("SaveError = %v after a good write", s.SaveError())
			}
		})
	}
}

// A state that cannot be saved is kept in memory, and SaveError says why
// in plain words, until a write succeeds.
func TestSaveErrorIsKeptUntilAWriteSucceeds(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, "s")
	if err != nil {
		t.Fatal(err)
	}
	lock := s.Path() + ".lock"
	if err := os.MkdirAll(lock, 0o700); err != nil { // no lock, so no write
		t.Fatal(err)
	}
	err = s.Update("read", map[string]string{"a": "1"})
	if err == nil || s.SaveError() == nil || !strings.Contains(err.Error(), "a directory stands where a file should be") {
		t.Fatalf("Update = %v, SaveError = %v; want both saying why", err, s.SaveError())
	}
	if own, _ := s.Snapshot("read"); own["a"] != "1" {
		t.Fatal("the change was lost in memory too")
	}
	if err := os.Remove(lock); err != nil {
		t.Fatal(err)
	}
	if err := s.Update("read", map[string]string{"b": "2"}); err != nil || s.SaveError() != nil {
		t.Fatalf("Update = %v, SaveError = %v after the way was cleared", err, s.SaveError())
	}
	if own, _ := onDisk(t, dir, "s"); own["a"] != "1" || own["b"] != "2" {
		t.Fatalf("on disk %v, want the change that failed saved with the next", own)
	}
}

// An ephemeral session writes nothing.
func TestEphemeralWritesNothing(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, "")
	if err != nil || s.Path() != "" || !strings.HasPrefix(s.ID(), "ephemeral-") {
		t.Fatalf("Open(\"\") = %v, %v", s, err)
	}
	if err := s.Update("read", map[string]string{"k": "v"}); err != nil {
		t.Error(err)
	}
	if _, err := s.AddGrants([]string{"Bash(ls)"}); err != nil {
		t.Error(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("an ephemeral session wrote %v", entries)
	}
}

// An update that changes nothing (Bash's report of the directory it stayed
// in) leaves the state file as it was, without a write; a real change is
// still written, and what another process wrote meanwhile is seen.
func TestUpdateThatChangesNothingDoesNotWrite(t *testing.T) {
	dir := t.TempDir()
	a, _ := Open(dir, "s")
	b, _ := Open(dir, "s")
	if err := a.Update("bash", map[string]string{"cwd": ""}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(a.Path()); !os.IsNotExist(err) {
		t.Fatalf("deleting a key nobody set should create no state file: %v", err)
	}
	if err := a.Update("bash", map[string]string{"cwd": "/w"}); err != nil {
		t.Fatal(err)
	}
	before, err := os.Stat(a.Path())
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Update("read", map[string]string{"x": "1"}); err != nil {
		t.Fatal(err)
	}
	written, _ := os.Stat(a.Path())
	if os.SameFile(before, written) {
		t.Fatal("a real change should replace the state file")
	}
	if err := a.Update("bash", map[string]string{"cwd": "/w", "gone": ""}); err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(a.Path())
	if !os.SameFile(written, after) || !after.ModTime().Equal(written.ModTime()) {
		t.Error("an update that changes nothing should not rewrite the state file")
	}
	if _, others := a.Snapshot("bash"); others["read"]["x"] != "1" {
		t.Errorf("a sees %v; want what b wrote", others)
	}
	if err := a.Update("bash", map[string]string{"cwd": "/v"}); err != nil {
		t.Fatal(err)
	}
	own, others := b.Snapshot("bash")
	if own["cwd"] != "/v" || others["read"]["x"] != "1" {
		t.Errorf("b sees own %v, others %v; want cwd=/v and its own x", own, others)
	}
}
