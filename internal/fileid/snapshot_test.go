package fileid

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A look at a path says what a stat saw: absent, unreadable, or the file's
// identity, with a symlink's target's too, and the latest change of both.
func TestLookAt(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "f")
	id := file(t, f, "x")
	if l := LookAt(f); l.Err != "" || l.ID != id || l.Target != nil || l.Newest != id.Changed() {
		t.Errorf("a file: %+v, want its ID %+v", l, id)
	}
	if l := LookAt(filepath.Join(dir, "missing")); l.Err != "absent" || l.ID != (ID{}) {
		t.Errorf("a missing path: %+v", l)
	}
	if l := LookAt(filepath.Join(f, "under-a-file")); l.Err == "" || l.Err == "absent" {
		t.Errorf("a path under a file (ENOTDIR) is no absent file: %+v", l)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink("f", link); err != nil {
		t.Fatal(err)
	}
	l := LookAt(link)
	if l.Err != "" || l.ID.Mode&os.ModeSymlink == 0 || l.Target == nil || l.Target.ID.Ino != id.Ino {
		t.Fatalf("a symlink: %+v, want its own ID and its target's", l)
	}
	if l.Newest != max(l.ID.Changed(), id.Changed()) {
		t.Errorf("a symlink's newest change is %d, want the later of its own and its target's", l.Newest)
	}
	dangling := filepath.Join(dir, "dangling")
	if err := os.Symlink("nowhere", dangling); err != nil {
		t.Fatal(err)
	}
	if l := LookAt(dangling); l.Err != "" || l.Target == nil || l.Target.Err != "absent" {
		t.Errorf("a dangling symlink: %+v, want the link and an absent target", l)
	}
}

// Two looks are the same only with the same error, identity and target.
func TestLookSame(t *testing.T) {
	a := Look{ID: ID{Path: "/p", Ino: 1}, Newest: 5}
	target := &Look{ID: ID{Path: "/p", Ino: 2}}
	for _, tc := range []struct {
		name string
		b    Look
		same bool
	}{
		{"equal", Look{ID: ID{Path: "/p", Ino: 1}, Newest: 9}, true},
		{"another identity", Look{ID: ID{Path: "/p", Ino: 3}}, false},
		{"an error", Look{Err: "absent", ID: ID{Path: "/p", Ino: 1}}, false},
		{"a target", Look{ID: ID{Path: "/p", Ino: 1}, Target: target}, false},
	} {
		if got := a.Same(tc.b); got != tc.same {
			t.Errorf("%s: Same = %v", tc.name, got)
		}
		if got := tc.b.Same(a); got != tc.same {
			t.Errorf("%s, the other way: Same = %v", tc.name, got)
		}
	}
	withTarget := Look{ID: ID{Path: "/p", Ino: 1}, Target: target}
	if !withTarget.Same(Look{ID: ID{Path: "/p", Ino: 1}, Target: &Look{ID: ID{Path: "/p", Ino: 2}}}) {
		t.Error("equal targets should be the same")
	}
	if withTarget.Same(Look{ID: ID{Path: "/p", Ino: 1}, Target: &Look{Err: "absent"}}) {
		t.Error("a target that went should differ")
	}
}

// A snapshot is racy when a file in it changed within the window before
// it, edge included; absent paths are never racy.
func TestTakeRacy(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "f")
	file(t, f, "x")
	changed := LookAt(f).Newest // the ctime: now, as the file was just made
	paths := []string{f, filepath.Join(dir, "absent")}
	for _, tc := range []struct {
		now  time.Time
		racy bool
	}{
		{time.Unix(0, changed), true},
		{time.Unix(0, changed).Add(RacyWindow), true},
		{time.Unix(0, changed).Add(RacyWindow + 1), false},
	} {
		if s := Take(paths, tc.now); s.Racy != tc.racy {
			t.Errorf("at %v after the change: racy = %v, want %v", tc.now.Sub(time.Unix(0, changed)), s.Racy, tc.racy)
		}
	}
	if s := Take(paths[1:], time.Unix(0, changed)); s.Racy {
		t.Error("an absent path alone is not racy")
	}
}

// Unchanged trusts a snapshot that is not racy, of the same paths, each
// as it was; anything else is a change.
func TestSnapshotUnchanged(t *testing.T) {
	dir := t.TempDir()
	f, g := filepath.Join(dir, "f"), filepath.Join(dir, "g")
	file(t, f, "x")
	file(t, g, "y")
	later := time.Now().Add(RacyWindow + time.Second)
	s := Take([]string{f, g}, later)
	if !s.Unchanged(later) {
		t.Fatal("an untouched snapshot should be unchanged")
	}
	if (Snapshot{Paths: s.Paths, Looks: s.Looks, Racy: true}).Unchanged(later) {
		t.Error("a racy snapshot proves nothing")
	}
	if (Snapshot{Paths: s.Paths, Looks: s.Looks[:1]}).Unchanged(later) {
		t.Error("a snapshot with fewer looks than paths proves nothing")
	}
	if s.Same(Take([]string{g, f}, later)) {
		t.Error("the same files in another order are another snapshot")
	}
	if s.Same(Take([]string{f}, later)) {
		t.Error("fewer paths are another snapshot")
	}
	file(t, g, "changed")
	if s.Unchanged(later) {
		t.Error("a rewritten file should be a change")
	}
}
