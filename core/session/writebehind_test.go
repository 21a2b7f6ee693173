package session

import (
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"
)

// openWriteBehind opens session id write-behind, closed with the test.
func openWriteBehind(t *testing.T, dir, id string) *Session {
	t.Helper()
	s, err := Open(dir, id)
	if err != nil {
		t.Fatal(err)
	}
	s.WriteBehind()
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// onDisk is the session as another process opening it now sees it.
func onDisk(t *testing.T, dir, id string) (map[string]string, []string) {
	t.Helper()
	s, err := Open(dir, id)
	if err != nil {
		t.Fatal(err)
	}
	own, _ := s.Snapshot("read")
	return own, s.Grants()
}

// helper runs the package's helper process, a synchronous writer of the
// session recording key file:n and grant Bash(make n).
func helper(t *testing.T, dir, id, n string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "RIOT_SESSION_HELPER="+dir+"|"+id+"|"+n)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("helper: %v: %s", err, out)
	}
}

// A change is seen by the next call at once, is not on disk while the
// writer is held, and is after Flush.
func TestWriteBehindSeenAtOnceWrittenOnFlush(t *testing.T) {
	dir := t.TempDir()
	s := openWriteBehind(t, dir, "s")
	s.wb.wmu.Lock() // the writer cannot write until released
	if err := s.Update("read", map[string]string{"a": "1"}); err != nil {
		t.Fatal(err)
	}
	if own, _ := s.Snapshot("read"); own["a"] != "1" {
		t.Fatalf("the change is not seen at once: %v", own)
	}
	if own, _ := onDisk(t, dir, "s"); own["a"] != "" {
		t.Fatalf("the change was written on the call's path: %v", own)
	}
	s.wb.wmu.Unlock()
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	if own, _ := onDisk(t, dir, "s"); own["a"] != "1" {
		t.Fatalf("after Flush the change is not on disk: %v", own)
	}
}

// Another process writing the session while the host's changes wait: its
// key and grant are seen by the host alongside the host's own, and both
// are on disk after the host's write. Nothing is lost on either side.
func TestWriteBehindMergesAnotherWriter(t *testing.T) {
	dir := t.TempDir()
	s := openWriteBehind(t, dir, "s")
	if err := s.Update("read", map[string]string{"old": "x", "gone": "y"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddGrants([]string{"Read(/a)"}); err != nil {
		t.Fatal(err)
	}
	s.wb.wmu.Lock()
	if err := s.Update("read", map[string]string{"host": "1", "gone": ""}); err != nil {
		t.Fatal(err)
	}
	helper(t, dir, "s", "7")
	own, _ := s.Snapshot("read")
	if own["host"] != "1" || own["file:7"] != "7" || own["old"] != "x" || own["gone"] != "" {
		t.Fatalf("the host's view after the other's write = %v, want its own pending change over the other's", own)
	}
	if g := s.Grants(); !slices.Contains(g, "Read(/a)") || !slices.Contains(g, "Bash(make 7)") {
		t.Fatalf("grants = %v, want the host's and the other's", g)
	}
	s.wb.wmu.Unlock()
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	own, grants := onDisk(t, dir, "s")
	if own["host"] != "1" || own["file:7"] != "7" || own["old"] != "x" || own["gone"] != "" {
		t.Fatalf("on disk = %v, want the host's changes merged with the other's", own)
	}
	if !slices.Contains(grants, "Read(/a)") || !slices.Contains(grants, "Bash(make 7)") {
		t.Fatalf("grants on disk = %v, want both", grants)
	}
}

// Changes queued while a write is under way are written by the next: the
// writer coalesces, and Flush waits for the write under way.
func TestWriteBehindCoalescesAndFlushWaits(t *testing.T) {
	dir := t.TempDir()
	s := openWriteBehind(t, dir, "s")
	s.wb.wmu.Lock()
	for _, k := range []string{"a", "b", "c"} {
		if err := s.Update("read", map[string]string{k: k}); err != nil {
			t.Fatal(err)
		}
	}
	s.mu.Lock()
	queued := len(s.wb.pending)
	s.mu.Unlock()
	if queued != 3 {
		t.Fatalf("%d changes queued, want 3", queued)
	}
	s.wb.wmu.Unlock()
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	if own, _ := onDisk(t, dir, "s"); own["a"] != "a" || own["b"] != "b" || own["c"] != "c" {
		t.Fatalf("on disk = %v, want all three", own)
	}
}

// A write that fails keeps its changes queued, for Flush to report and a
// later write to make.
func TestWriteBehindFailureKeepsChanges(t *testing.T) {
	dir := t.TempDir()
	s := openWriteBehind(t, dir, "s")
	if err := os.MkdirAll(s.Path(), 0o700); err != nil { // the state file cannot be read or replaced
		t.Fatal(err)
	}
	if err := s.Update("read", map[string]string{"a": "1"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(); err == nil {
		t.Fatal("Flush reported no error for a state file that cannot be written")
	}
	if err := os.Remove(s.Path()); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	if own, _ := onDisk(t, dir, "s"); own["a"] != "1" {
		t.Fatalf("on disk = %v, want the change kept through the failure", own)
	}
}

// Close writes what is queued, ends the writer and returns the session to
// synchronous writes.
func TestWriteBehindClose(t *testing.T) {
	dir := t.TempDir()
	s := openWriteBehind(t, dir, "s")
	w := s.wb
	w.wmu.Lock()
	if err := s.Update("read", map[string]string{"a": "1"}); err != nil {
		t.Fatal(err)
	}
	w.wmu.Unlock()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-w.done:
	default:
		t.Fatal("the writer goroutine still runs after Close")
	}
	if own, _ := onDisk(t, dir, "s"); own["a"] != "1" {
		t.Fatalf("Close did not write the queued change: %v", own)
	}
	if err := s.Update("read", map[string]string{"b": "2"}); err != nil {
		t.Fatal(err)
	}
	if own, _ := onDisk(t, dir, "s"); own["b"] != "2" {
		t.Fatalf("after Close a change is not written before it returns: %v", own)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("a second Close: %v", err)
	}
}

// A grant is on disk when AddGrants returns, written behind or not, with
// what was queued before it.
func TestWriteBehindWritesGrantsAtOnce(t *testing.T) {
	dir := t.TempDir()
	s := openWriteBehind(t, dir, "s")
	if err := s.Update("read", map[string]string{"a": "1"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddGrants([]string{"Bash(make:*)"}); err != nil {
		t.Fatal(err)
	}
	own, grants := onDisk(t, dir, "s")
	if !slices.Contains(grants, "Bash(make:*)") || own["a"] != "1" {
		t.Fatalf("on disk after AddGrants: %v %v, want the grant and the change before it", own, grants)
	}
}

// settleClock holds the writer's settling window open until the test
// ends it, and tells the test each time the writer opens one.
type settleClock struct {
	opened chan time.Duration
	end    chan time.Time
}

func holdSettle(t *testing.T, s *Session) *settleClock {
	t.Helper()
	c := &settleClock{opened: make(chan time.Duration, 1), end: make(chan time.Time)}
	// Set before the first change wakes the writer, which reads it after.
	s.wb.after = func(d time.Duration) <-chan time.Time {
		c.opened <- d
		return c.end
	}
	return c
}

// waitOpened is the window the writer opened; a writer that writes
// without one never opens it.
func (c *settleClock) waitOpened(t *testing.T) time.Duration {
	t.Helper()
	select {
	case d := <-c.opened:
		return d
	case <-time.After(10 * time.Second):
		t.Fatal("the writer did not wait before writing")
		return 0
	}
}

// A turn's changes are not written beside its calls: the writer, free to
// write, waits out its window, and the host's Flush after the results
// writes them.
func TestWriteBehindWaitsOutTheTurn(t *testing.T) {
	dir := t.TempDir()
	s := openWriteBehind(t, dir, "s")
	c := holdSettle(t, s)
	if err := s.Update("read", map[string]string{"a": "1"}); err != nil {
		t.Fatal(err)
	}
	if d := c.waitOpened(t); d != writeSettle {
		t.Fatalf("window %v, want %v", d, writeSettle)
	}
	if own, _ := onDisk(t, dir, "s"); own["a"] != "" {
		t.Fatalf("the change was written during the turn: %v", own)
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	if own, _ := onDisk(t, dir, "s"); own["a"] != "1" {
		t.Fatalf("after Flush the change is not on disk: %v", own)
	}
}

// A turn longer than the window has its changes written when the window
// ends, without a Flush; what comes later waits for the next window, and
// Close writes it.
func TestWriteBehindWritesALongTurnAfterTheWindow(t *testing.T) {
	dir := t.TempDir()
	s := openWriteBehind(t, dir, "s")
	c := holdSettle(t, s)
	if err := s.Update("read", map[string]string{"a": "1"}); err != nil {
		t.Fatal(err)
	}
	c.waitOpened(t)
	if err := s.Update("read", map[string]string{"b": "2"}); err != nil {
		t.Fatal(err)
	}
	c.end <- time.Now()
	if err := s.Update("read", map[string]string{"c": "3"}); err != nil {
		t.Fatal(err)
	}
	// The writer opens its next window only after its write is done.
	c.waitOpened(t)
	if own, _ := onDisk(t, dir, "s"); own["a"] != "1" || own["b"] != "2" {
		t.Fatalf("on disk after the window = %v, want a and b", own)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if own, _ := onDisk(t, dir, "s"); own["c"] != "3" {
		t.Fatalf("after Close = %v, want c too", own)
	}
}
