package fileid

import (
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// differ names the fields in which two identities differ: the reason a
// comparison says a file changed.
func differ(a, b ID) []string {
	var d []string
	for _, f := range []struct {
		name string
		same bool
	}{
		{"Path", a.Path == b.Path},
		{"Dev", a.Dev == b.Dev},
		{"Ino", a.Ino == b.Ino},
		{"Mode", a.Mode == b.Mode},
		{"Size", a.Size == b.Size},
		{"MtimeNs", a.MtimeNs == b.MtimeNs},
		{"CtimeNs", a.CtimeNs == b.CtimeNs},
	} {
		if !f.same {
			d = append(d, f.name)
		}
	}
	return d
}

// file makes a file with content whose modification time is an hour
// back, so that a change now moves it, and returns its identity.
func file(t *testing.T, path, content string) ID {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	past := time.Now().Add(-time.Hour)
	if err := os.Chtimes(path, past, past); err != nil {
		t.Fatal(err)
	}
	return stat(t, path)
}

func stat(t *testing.T, path string) ID {
	t.Helper()
	id, err := Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func TestSameFileIsTheSameVersion(t *testing.T) {
	p := filepath.Join(t.TempDir(), "config.toml")
	id := file(t, p, "a = 1\n")
	if again := stat(t, p); again != id {
		t.Fatalf("two stats of an unchanged file differ in %v", differ(id, again))
	}
	if !id.Current() {
		t.Fatal("an unchanged file is not its own current version")
	}
	// What an open file's Stat says is what a stat of its name says: the
	// session file is loaded through the one and checked by the other.
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	info, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if of := Of(p, info); of != id {
		t.Fatalf("the open file's identity differs from its name's in %v", differ(id, of))
	}
	if id.Path != p || id.Size != int64(len("a = 1\n")) || !id.Mode.IsRegular() || id.Mode.Perm() != 0o600 {
		t.Fatalf("identity %+v does not describe the file", id)
	}
	if complete && (id.Ino == 0 || id.CtimeNs == 0) {
		t.Fatalf("identity %+v lacks the inode or change time this platform gives", id)
	}
}

// A file replaced by rename with one of its size and modification time is
// another file: its inode says so, where size and times cannot.
func TestReplacedByRenameIsAnotherVersion(t *testing.T) {
	if !complete {
		t.Skip("no inode on this platform: a rename over a file of its size and times is caught by Racy alone")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "riot-tool-x")
	id := file(t, p, "echo 1\n")
	repl := filepath.Join(dir, "new")
	_ = file(t, repl, "echo 2\n")
	mtime := time.Unix(0, id.MtimeNs)
	if err := os.Chtimes(repl, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(repl, p); err != nil {
		t.Fatal(err)
	}
	now := stat(t, p)
	d := differ(id, now)
	if !slices.Contains(d, "Ino") || slices.Contains(d, "Size") || slices.Contains(d, "MtimeNs") {
		t.Fatalf("a rename over a file of its size and mtime differs in %v; want the inode and neither size nor mtime", d)
	}
	if id.Current() {
		t.Fatal("a replaced file is still the old version")
	}
}

// A rewrite in place of the same size with the modification time set back
// keeps inode, size and mtime: only the change time can tell, and where it
// did not move (the same tick of the file system's clock) the identity is
// racy, so no user trusts it.
func TestRewrittenInPlaceSameSize(t *testing.T) {
	p := filepath.Join(t.TempDir(), "config.toml")
	id := file(t, p, "a = 1\n")
	if err := os.WriteFile(p, []byte("a = 2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	mtime := time.Unix(0, id.MtimeNs)
	if err := os.Chtimes(p, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	now := stat(t, p)
	d := differ(id, now)
	if slices.Contains(d, "Ino") || slices.Contains(d, "Size") || slices.Contains(d, "MtimeNs") {
		t.Fatalf("a rewrite in place with its mtime set back differs in %v; want neither inode, size nor mtime", d)
	}
	switch {
	case slices.Equal(d, []string{"CtimeNs"}):
		if id.Current() {
			t.Fatal("a file rewritten in place is still the old version")
		}
	case len(d) == 0:
		// The rewrite fell in the tick of the look: the look was racy.
		if !id.Racy(time.Now()) || !now.Racy(time.Now()) {
			t.Fatal("a rewrite the identity cannot see was not within the racy window")
		}
	default:
		t.Fatalf("a rewrite in place differs in %v; want the change time alone", d)
	}
}

// A chmod is a change: the mode says so even where the change time is
// unknown.
func TestChmodIsAnotherVersion(t *testing.T) {
	p := filepath.Join(t.TempDir(), "riot-tool-x")
	id := file(t, p, "x")
	if err := os.Chmod(p, 0o755); err != nil {
		t.Fatal(err)
	}
	now := stat(t, p)
	if d := differ(id, now); !slices.Contains(d, "Mode") || slices.Contains(d, "Ino") || slices.Contains(d, "Size") || slices.Contains(d, "MtimeNs") {
		t.Fatalf("a chmod differs in %v; want the mode and not inode, size or mtime", d)
	}
	if id.Current() {
		t.Fatal("a chmodded file is still the old version")
	}
}

// Racy is decided on an injected clock from the later of the two times,
// its edge included.
func TestRacyWindow(t *testing.T) {
	if !complete {
		id := ID{MtimeNs: 1, CtimeNs: 1}
		if id.Changed() != math.MaxInt64 || !id.Racy(time.Unix(0, 0).Add(100*365*24*time.Hour)) {
			t.Fatal("an identity without inode and change time was trusted by its times")
		}
		return
	}
	base := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name string
		id   ID
	}{
		{"modified last", ID{MtimeNs: base.UnixNano(), CtimeNs: base.Add(-time.Hour).UnixNano()}},
		{"changed last", ID{MtimeNs: base.Add(-time.Hour).UnixNano(), CtimeNs: base.UnixNano()}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.id.Changed(); got != base.UnixNano() {
				t.Fatalf("Changed = %d, want the later time %d", got, base.UnixNano())
			}
			for _, r := range []struct {
				after time.Duration
				racy  bool
			}{
				{-time.Second, true}, // a time ahead of the clock
				{0, true},
				{RacyWindow / 2, true},
				{RacyWindow, true}, // the edge is in the window
				{RacyWindow + time.Nanosecond, false},
				{time.Hour, false},
			} {
				if got := c.id.Racy(base.Add(r.after)); got != r.racy {
					t.Errorf("a change %s before the look: Racy = %v, want %v", r.after, got, r.racy)
				}
			}
		})
	}
}

// A file touched just now, its mtime moved to the clock's now, is racy
// until the window passes, whatever its change time.
func TestTouchedWithinTheWindow(t *testing.T) {
	p := filepath.Join(t.TempDir(), "config.toml")
	_ = file(t, p, "a = 1\n")
	clock := time.Now().Add(time.Hour) // ahead of the file's change time
	if err := os.Chtimes(p, clock, clock); err != nil {
		t.Fatal(err)
	}
	id := stat(t, p)
	if !id.Racy(clock.Add(RacyWindow / 2)) {
		t.Fatal("a file touched within the window was trusted")
	}
	// Past the window it is trusted, where the platform gives the times
	// that make it trustworthy.
	if got := id.Racy(clock.Add(RacyWindow + time.Nanosecond)); got != !complete {
		t.Fatalf("after the window: Racy = %v, want %v", got, !complete)
	}
}

// A missing file has no identity, is no version, and is never current.
func TestMissingFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "later.toml")
	for name, f := range map[string]func(string) (ID, error){"Stat": Stat, "Lstat": Lstat} {
		id, err := f(p)
		if !errors.Is(err, fs.ErrNotExist) || id != (ID{}) {
			t.Errorf("%s of a missing file = %+v, %v; want no identity and fs.ErrNotExist", name, id, err)
		}
	}
	if (ID{}).Current() || (ID{Path: p}).Current() {
		t.Error("a missing file's identity is current")
	}
	id := file(t, p, "x")
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if id.Current() {
		t.Error("a removed file is still current")
	}
}

// A file that appears where none was is a change: its identity is not
// the missing one's.
func TestFileThatAppears(t *testing.T) {
	p := filepath.Join(t.TempDir(), "later.toml")
	before, err := Stat(p)
	if err == nil {
		t.Fatal("the file exists before it was made")
	}
	after := file(t, p, "")
	if before == after {
		t.Fatal("a file that appeared has the missing file's identity")
	}
	// Empty, so not its size: its path and mode say it is there.
	if d := differ(before, after); !slices.Contains(d, "Path") || !slices.Contains(d, "Mode") {
		t.Fatalf("an empty file that appeared differs in %v; want at least its path and mode", d)
	}
}

// Lstat is a symlink's own identity, Stat its target's: repointing the
// link changes both, and a change of the target only Stat's.
func TestSymlinkStatAndLstat(t *testing.T) {
	dir := t.TempDir()
	a, b, link := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "link")
	_ = file(t, a, "aa")
	_ = file(t, b, "bbbb")
	if err := os.Symlink(a, link); err != nil {
		t.Fatal(err)
	}
	own, err := Lstat(link)
	if err != nil {
		t.Fatal(err)
	}
	target := stat(t, link)
	if own.Mode&fs.ModeSymlink == 0 || target.Mode&fs.ModeSymlink != 0 || target.Size != 2 {
		t.Fatalf("Lstat %+v, Stat %+v: want the link's own and its target's", own, target)
	}
	if err := os.WriteFile(a, []byte("aaa"), 0o600); err != nil {
		t.Fatal(err)
	}
	if now, _ := Lstat(link); now != own {
		t.Errorf("the link's own identity moved with its target's content: %v", differ(own, now))
	}
	if target.Current() {
		t.Error("a target that grew is still current through the link")
	}
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(b, link); err != nil {
		t.Fatal(err)
	}
	if now, _ := Lstat(link); now == own {
		t.Error("a repointed link has its old identity")
	}
	if d := differ(stat(t, a), stat(t, link)); complete && !slices.Contains(d, "Ino") {
		t.Errorf("a repointed link's target differs from the old in %v; want the inode", d)
	}
}
