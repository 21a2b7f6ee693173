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

// A corrupt state file is neither loaded nor overwritten: it may be the
// only record of something, and a rewrite would drop it.
func TestCorruptFileIsKept(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sessions", "s.json")
	if _, err := Open(dir, "s"); err != nil {
		t.Fatal(err)
	}
	s, _ := Open(dir, "s")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir, "s"); err == nil || !strings.Contains(err.Error(), "corrupt") {
		t.Errorf("Open of a corrupt file = %v, want it called corrupt", err)
	}
	if err := s.Update("read", map[string]string{"k": "v"}); err == nil || !strings.Contains(err.Error(), "corrupt") {
		t.Errorf("Update over a corrupt file = %v, want it called corrupt", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "{not json" {
		t.Errorf("the corrupt file was overwritten: %q", got)
	}
	if own, _ := s.Snapshot("read"); own["k"] != "v" {
		t.Error("the update was lost in memory too")
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
