package sessionhost

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/riot-tools/riot/internal/fileid"
)

// watchFixture is a config file, a file that does not exist yet and a
// directory, watched by a ConfigWatch whose clock is far from their times
// unless a test says otherwise.
type watchFixture struct {
	t            *testing.T
	w            ConfigWatch
	file, absent string
	dir          string
	loads        int
	during       func() // runs inside the next load
	fail         error
}

func newWatchFixture(t *testing.T) *watchFixture {
	root := t.TempDir()
	f := &watchFixture{t: t, file: filepath.Join(root, "config.toml"), absent: filepath.Join(root, "later.toml"), dir: filepath.Join(root, "plugins")}
	if err := os.WriteFile(f.file, []byte("a = 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(f.dir, 0o700); err != nil {
		t.Fatal(err)
	}
	// Times in the past, so that a change made in the same tick of the
	// file system's clock as the fixture still moves them.
	past := time.Now().Add(-time.Hour)
	for _, p := range []string{f.file, f.dir} {
		if err := os.Chtimes(p, past, past); err != nil {
			t.Fatal(err)
		}
	}
	far := time.Now().Add(time.Hour)
	f.w.Now = func() time.Time { return far }
	return f
}

func (f *watchFixture) load() (string, []string, error) {
	f.loads++
	if f.during != nil {
		f.during()
		f.during = nil
	}
	if f.fail != nil {
		return "", nil, f.fail
	}
	return "fp", []string{f.file, f.absent, f.dir}, nil
}

// current calls Current and says whether it read the config again.
func (f *watchFixture) current() bool {
	f.t.Helper()
	before := f.loads
	fp, err := f.w.Current(f.load)
	if err != nil || fp != "fp" {
		f.t.Fatalf("Current = %q, %v; want the load's fingerprint", fp, err)
	}
	return f.loads > before
}

// settle reads until the watch trusts what it read: the first read cannot
// know the paths it will depend on, the second confirms them.
func (f *watchFixture) settle() {
	f.t.Helper()
	for i := 0; i < 3 && f.current(); i++ {
	}
	if f.current() {
		f.t.Fatal("a config whose files do not change should not be read again every turn")
	}
}

func TestConfigWatchReadsAgainOnlyWhenAFileChanged(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(f *watchFixture) error
	}{
		{"a file grows", func(f *watchFixture) error { return os.WriteFile(f.file, []byte("a = 12\n"), 0o600) }},
		{"a file is replaced by one of its size and times", func(f *watchFixture) error {
			info, _ := os.Stat(f.file)
			tmp := f.file + ".new"
			if err := os.WriteFile(tmp, []byte("a = 2\n"), 0o600); err != nil {
				return err
			}
			if err := os.Chtimes(tmp, info.ModTime(), info.ModTime()); err != nil {
				return err
			}
			return os.Rename(tmp, f.file)
		}},
		{"a file's mode changes", func(f *watchFixture) error { return os.Chmod(f.file, 0o644) }},
		{"a missing file appears", func(f *watchFixture) error { return os.WriteFile(f.absent, nil, 0o600) }},
		{"a file goes", func(f *watchFixture) error { return os.Remove(f.file) }},
		{"a directory gains an entry", func(f *watchFixture) error {
			return os.WriteFile(filepath.Join(f.dir, "riot-tool-x"), nil, 0o700)
		}},
		{"a file becomes a symlink", func(f *watchFixture) error {
			if err := os.Remove(f.file); err != nil {
				return err
			}
			return os.Symlink(f.absent, f.file)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newWatchFixture(t)
			f.settle()
			if err := c.change(f); err != nil {
				t.Fatal(err)
			}
			if !f.current() {
				t.Fatal("the config should be read again after its file changed")
			}
		})
	}
}

// A symlinked config is followed: its target's change is a change.
func TestConfigWatchFollowsSymlinks(t *testing.T) {
	f := newWatchFixture(t)
	target := filepath.Join(filepath.Dir(f.file), "real.toml")
	if err := os.Rename(f.file, target); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, f.file); err != nil {
		t.Fatal(err)
	}
	f.settle()
	if err := os.WriteFile(target, []byte("a = 12345\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if !f.current() {
		t.Fatal("the config should be read again after a symlink's target changed")
	}
}

// A file changed within moments of being looked at may change again
// without a trace in its identity (a write of the same size in the same
// tick of the file system's clock, its times then set back): it is read
// again every turn until it settles.
func TestConfigWatchDoesNotTrustARecentChange(t *testing.T) {
	f := newWatchFixture(t)
	changed := time.Now() // the fixture's files changed (their ctime) about now
	f.w.Now = func() time.Time { return changed.Add(racyWindow / 2) }
	for i := range 3 {
		if !f.current() {
			t.Fatalf("turn %d: a file changed %s ago should be read again", i, racyWindow/2)
		}
	}
	// The window includes its edge: a change exactly racyWindow ago.
	newest := fileid.LookAt(f.file).Newest
	if d := fileid.LookAt(f.dir).Newest; d > newest {
		newest = d
	}
	f.w.Now = func() time.Time { return time.Unix(0, newest).Add(racyWindow) }
	for i := range 3 {
		if !f.current() {
			t.Fatalf("turn %d: a file changed exactly %s ago should be read again", i, racyWindow)
		}
	}
	f.w.Now = func() time.Time { return changed.Add(racyWindow + time.Second) }
	f.settle()
}

// A file that changes while the config is read may have been read before
// or after the change: the next turn reads it again.
func TestConfigWatchReadsAgainAfterAChangeDuringTheRead(t *testing.T) {
	f := newWatchFixture(t)
	f.settle()
	if err := os.WriteFile(f.file, []byte("a = 12\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f.during = func() {
		if err := os.WriteFile(f.file, []byte("a = 123\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if !f.current() {
		t.Fatal("the changed config should be read")
	}
	if !f.current() {
		t.Fatal("a config that changed during its read should be read again")
	}
	f.settle()
}

// A read that fails is not remembered: the next turn reads again.
func TestConfigWatchForgetsAFailedRead(t *testing.T) {
	f := newWatchFixture(t)
	f.settle()
	if err := os.WriteFile(f.file, []byte("a = [\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	bad := errors.New("the config does not parse")
	f.fail = bad
	if _, err := f.w.Current(f.load); !errors.Is(err, bad) {
		t.Fatalf("Current = %v; want the read's error", err)
	}
	n := f.loads
	if _, err := f.w.Current(f.load); !errors.Is(err, bad) || f.loads != n+1 {
		t.Fatalf("Current = %v after %d reads; want the config read again and its error", err, f.loads-n)
	}
	f.fail = nil
	if !f.current() {
		t.Fatal("a fixed config should be read")
	}
}
