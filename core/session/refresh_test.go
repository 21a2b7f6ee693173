package session

import (
	"bytes"
	"os"
	"testing"
	"time"

	"github.com/riot-tools/riot/internal/fileid"
)

// collide makes the version s holds carry the identity of the file now on
// disk, as another process's same-size replacement in the same clock tick,
// onto the inode just freed, would leave it.
func collide(t *testing.T, s *Session) {
	t.Helper()
	id, err := fileid.Stat(s.path)
	if err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	s.seen.id = id
	s.mu.Unlock()
}

// An identity seen within the racy window of the file's change proves
// nothing about a later version that has it: the bytes decide, until a
// look outside the window; from then on the identity alone does, and the
// file is not read.
func TestRefreshReadsARacyVersionAgain(t *testing.T) {
	dir := t.TempDir()
	a, _ := Open(dir, "s")
	clock := time.Now()
	a.now = func() time.Time { return clock }
	b, _ := Open(dir, "s")
	if err := b.Update("read", map[string]string{"x": "1"}); err != nil {
		t.Fatal(err)
	}
	if _, others := a.Snapshot("bash"); others["read"]["x"] != "1" {
		t.Fatalf("a sees %v; want b's x=1", others)
	}
	if raw, _ := os.ReadFile(a.path); !bytes.Equal(a.seen.raw, raw) {
		t.Fatalf("a holds %q as the file's bytes; the file has %q", a.seen.raw, raw)
	}

	if err := b.Update("read", map[string]string{"x": "2"}); err != nil {
		t.Fatal(err)
	}
	collide(t, a)
	if _, others := a.Snapshot("bash"); others["read"]["x"] != "2" {
		t.Errorf("within the racy window a version of the same identity with other bytes must be read: a sees %v, want x=2", others)
	}

	// Past the window: one look reads the file and finds the version held;
	// after it the identity is trusted, so a collision goes unseen, which is
	// the rule's direction (nothing outside the window can collide).
	clock = time.Now().Add(fileid.RacyWindow + time.Second)
	if _, others := a.Snapshot("bash"); others["read"]["x"] != "2" {
		t.Fatalf("a sees %v; want x=2", others)
	}
	if !a.seen.at.Equal(clock) {
		t.Fatalf("the look that found the version held should date it: at %v, want %v", a.seen.at, clock)
	}
	if err := b.Update("read", map[string]string{"x": "3"}); err != nil {
		t.Fatal(err)
	}
	collide(t, a)
	if _, others := a.Snapshot("bash"); others["read"]["x"] != "2" {
		t.Errorf("outside the racy window the identity alone should decide, without a read: a sees %v, want the x=2 it held", others)
	}
}

// A process's own write is dated under the lock and held with the bytes it
// wrote, so a version another process writes after the lock is released
// is never taken for it.
func TestWriteHoldsTheVersionItWrote(t *testing.T) {
	dir := t.TempDir()
	for _, wb := range []bool{false, true} {
		a, _ := Open(dir, "s")
		if wb {
			a.WriteBehind()
		}
		if err := a.Update("read", map[string]string{"k": "v"}); err != nil {
			t.Fatal(err)
		}
		if err := a.Flush(); err != nil {
			t.Fatal(err)
		}
		raw, _ := os.ReadFile(a.path)
		id, _ := fileid.Stat(a.path)
		a.mu.Lock()
		seen := a.seen
		a.mu.Unlock()
		if !bytes.Equal(seen.raw, raw) || seen.id != id {
			t.Errorf("write-behind %v: a holds %q under %+v; the file has %q under %+v", wb, seen.raw, seen.id, raw, id)
		}
		_ = a.Close()
	}
}
