package memo

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/riot-tools/riot/internal/fileid"
)

// fixture is a memo directory and a tree of files an output was made
// from, with a clock past the racy window of the files' creation.
type fixture struct {
	dir, tree string
	key       Key
	paths     []string
	later     time.Time
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{dir: filepath.Join(t.TempDir(), "quick"), tree: t.TempDir()}
	for _, name := range []string{"config.toml", "plugin"} {
		if err := os.WriteFile(filepath.Join(f.tree, name), []byte(name), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("plugin", filepath.Join(f.tree, "link")); err != nil {
		t.Fatal(err)
	}
	f.paths = []string{filepath.Join(f.tree, "config.toml"), filepath.Join(f.tree, "plugin"),
		filepath.Join(f.tree, "link"), filepath.Join(f.tree, "absent.toml")}
	f.key = Key{Exe: "/bin/riot", Dir: f.tree, Env: []string{"HOME=/h", "RIOT_X=a\nb"}, Args: []string{"tools", "--json"}}
	f.later = time.Now().Add(fileid.RacyWindow + time.Second)
	return f
}

func (f *fixture) store(t *testing.T, out []byte) {
	t.Helper()
	if err := Store(f.dir, f.key, f.paths, f.later, out); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) load() ([]byte, bool) { return Load(f.dir, f.key, f.later.Add(time.Minute)) }

// What an invocation printed comes back byte for byte while nothing
// changed, whatever bytes it was.
func TestStoreLoad(t *testing.T) {
	for _, out := range [][]byte{[]byte("[\n  {\"name\": \"Bash\"}\n]\n"), {}, []byte("end\nriot memo 1\n\x00\xff")} {
		f := newFixture(t)
		f.store(t, out)
		got, ok := f.load()
		if !ok || !bytes.Equal(got, out) {
			t.Fatalf("load = %q, %v; want %q", got, ok, out)
		}
	}
}

// Each change a stat can see, to a file, a symlink's target or an absent
// path, makes the entry a miss.
func TestAnyChangeMisses(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, tree string)
	}{
		{"written", func(t *testing.T, tree string) { write(t, filepath.Join(tree, "config.toml"), "mode = 'plan'") }},
		{"written, same size, times set back", func(t *testing.T, tree string) {
			p := filepath.Join(tree, "config.toml")
			info, _ := os.Stat(p)
			write(t, p, "CONFIG.TOML"[:len("config.toml")])
			if err := os.Chtimes(p, info.ModTime(), info.ModTime()); err != nil {
				t.Fatal(err)
			}
		}},
		{"chmod", func(t *testing.T, tree string) {
			if err := os.Chmod(filepath.Join(tree, "plugin"), 0o700); err != nil {
				t.Fatal(err)
			}
		}},
		{"replaced by rename", func(t *testing.T, tree string) {
			write(t, filepath.Join(tree, "new"), "plugin")
			if err := os.Rename(filepath.Join(tree, "new"), filepath.Join(tree, "plugin")); err != nil {
				t.Fatal(err)
			}
		}},
		{"removed", func(t *testing.T, tree string) {
			if err := os.Remove(filepath.Join(tree, "config.toml")); err != nil {
				t.Fatal(err)
			}
		}},
		{"an absent file created", func(t *testing.T, tree string) { write(t, filepath.Join(tree, "absent.toml"), "") }},
		{"a symlink pointed elsewhere", func(t *testing.T, tree string) {
			link := filepath.Join(tree, "link")
			if err := os.Remove(link); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("config.toml", link); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.store(t, []byte("out"))
			if _, ok := f.load(); !ok {
				t.Fatal("an unchanged entry should load")
			}
			tc.change(t, f.tree)
			if got, ok := f.load(); ok {
				t.Fatalf("a changed file still loads %q", got)
			}
		})
	}
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

// An entry is another invocation's unless every part of the key is equal.
func TestKeyMustMatchWhole(t *testing.T) {
	f := newFixture(t)
	f.store(t, []byte("out"))
	for _, k := range []Key{
		{Exe: "/bin/other", Dir: f.key.Dir, Env: f.key.Env, Args: f.key.Args},
		{Exe: f.key.Exe, Dir: "/elsewhere", Env: f.key.Env, Args: f.key.Args},
		{Exe: f.key.Exe, Dir: f.key.Dir, Env: []string{"HOME=/h"}, Args: f.key.Args},
		{Exe: f.key.Exe, Dir: f.key.Dir, Env: f.key.Env, Args: []string{"tools"}},
		{Exe: f.key.Exe, Dir: f.key.Dir, Env: f.key.Env, Args: []string{"tools", "--json", "--format", "openai"}},
	} {
		if _, ok := Load(f.dir, k, f.later); ok {
			t.Errorf("%+v loads %+v's entry", k, f.key)
		}
		// Even under the key's own file name (two keys of one digest).
		data, err := os.ReadFile(filepath.Join(f.dir, f.key.name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(f.dir, k.name()), data, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, ok := Load(f.dir, k, f.later); ok {
			t.Errorf("%+v loads another key's entry from its own file", k)
		}
	}
}

// A file changed after the invocation began, or within the racy window
// before it, may not be what the output was made from: nothing is stored.
// So for a file removed then (only its directory shows it).
func TestStoreRefusesARecentChange(t *testing.T) {
	f := newFixture(t)
	now := time.Now()
	for _, start := range []time.Time{now.Add(-time.Minute), now, now.Add(fileid.RacyWindow - time.Millisecond)} {
		if err := Store(f.dir, f.key, f.paths, start, []byte("out")); !errors.Is(err, ErrRacy) {
			t.Errorf("start %v after the files changed: %v, want ErrRacy", now.Sub(start), err)
		}
	}
	if _, ok := Load(f.dir, f.key, f.later); ok {
		t.Fatal("a refused store left an entry")
	}
	// Every file settled, but an absent one's directory changed late: a
	// file made there and removed since the invocation read it. (A file's
	// change time cannot be set back: the settled ones are the system's,
	// in /usr/bin.)
	old := "/usr/bin/env"
	if _, err := os.Stat(old); err != nil {
		t.Skip("the test needs /usr/bin/env")
	}
	start := time.Now()
	for _, absent := range []string{"/usr/bin/riot-memo-test-absent", filepath.Join(f.tree, "gone.toml")} {
		err := Store(f.dir, f.key, []string{old, absent}, start, []byte("out"))
		if recent := filepath.Dir(absent) == f.tree; recent != errors.Is(err, ErrRacy) {
			t.Errorf("an absent path in %s (changed just now: %v): %v", filepath.Dir(absent), recent, err)
		}
	}
}

// A file that is not exactly an entry is a miss, never a panic.
func FuzzDecode(f *testing.F) {
	k := Key{Exe: "/bin/riot", Dir: "/ws", Env: []string{"HOME=/h"}, Args: []string{"tools"}}
	snap := fileid.Snapshot{Paths: []string{"/a", "/l"}, Looks: []fileid.Look{{Err: "absent"},
		{ID: fileid.ID{Path: "/l", Dev: 1, Ino: 2, Mode: os.ModeSymlink | 0o777, Size: 3, MtimeNs: -4, CtimeNs: 5},
			Target: &fileid.Look{ID: fileid.ID{Path: "/l", Dev: 1, Ino: 9, Mode: 0o644, Size: 7, MtimeNs: 8, CtimeNs: 9}}}}}
	f.Add(encode(k, snap, []byte("out")))
	f.Add([]byte("riot memo 1\nexe \"x\"\ndir \"y\"\nend\n"))
	f.Add([]byte("riot memo 1\nlook \"/a\" id 1 2 3 4 5 6 target err \"absent\"\nend\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		k, snap, out, ok := decode(data)
		if !ok {
			return
		}
		// What decodes encodes back to what the decoder reads the same.
		k2, snap2, out2, ok := decode(encode(k, snap, out))
		if !ok || !k.equal(k2) || !snap.Same(snap2) || !bytes.Equal(out, out2) {
			t.Fatalf("%q decodes to %+v %+v, which does not round-trip", data, k, snap)
		}
	})
}

// An entry that another user could have written is no entry: a directory
// or file others can write, or a directory that is not one.
func TestLoadTrustsOnlyPrivateEntries(t *testing.T) {
	f := newFixture(t)
	f.store(t, []byte("out"))
	name := filepath.Join(f.dir, f.key.name())
	for _, tc := range []struct {
		what string
		path string
		mode os.FileMode
	}{
		{"a group-writable directory", f.dir, 0o770},
		{"a world-writable directory", f.dir, 0o707},
		{"a group-writable entry", name, 0o660},
		{"a world-writable entry", name, 0o602},
	} {
		if err := os.Chmod(tc.path, tc.mode); err != nil {
			t.Fatal(err)
		}
		if _, ok := f.load(); ok {
			t.Errorf("%s: the entry loads", tc.what)
		}
		if err := os.Chmod(tc.path, map[bool]os.FileMode{true: 0o700, false: 0o600}[tc.path == f.dir]); err != nil {
			t.Fatal(err)
		}
		if _, ok := f.load(); !ok {
			t.Fatalf("after %s was made private again, the entry should load", tc.what)
		}
	}
	// A symlink to the directory is not the directory.
	link := filepath.Join(t.TempDir(), "quick")
	if err := os.Symlink(f.dir, link); err != nil {
		t.Fatal(err)
	}
	if _, ok := Load(link, f.key, f.later); ok {
		t.Error("an entry loads through a symlinked directory")
	}
	if os.Getuid() == 0 {
		if err := os.Chown(name, 4242, 4242); err != nil {
			t.Fatal(err)
		}
		if _, ok := f.load(); ok {
			t.Error("another user's entry loads")
		}
	}
}

// Entries older than the age go; newer ones stay, one exactly that old
// among them.
func TestPrune(t *testing.T) {
	f := newFixture(t)
	f.store(t, []byte("out"))
	name := filepath.Join(f.dir, f.key.name())
	written := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(name, written, written); err != nil {
		t.Fatal(err)
	}
	Prune(f.dir, written.Add(time.Hour), time.Hour)
	if _, err := os.Stat(name); err != nil {
		t.Fatalf("an entry exactly the age old was pruned: %v", err)
	}
	Prune(f.dir, written.Add(time.Hour+time.Second), time.Hour)
	if _, err := os.Stat(name); err == nil {
		t.Fatal("an old entry was kept")
	}
}

// A store that cannot put its entry in place leaves nothing behind.
func TestStoreFailsClean(t *testing.T) {
	f := newFixture(t)
	// A directory where the entry goes: the rename onto it fails.
	if err := os.MkdirAll(filepath.Join(f.dir, f.key.name(), "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := Store(f.dir, f.key, f.paths, f.later, []byte("out")); err == nil {
		t.Fatal("a store onto a directory should fail")
	}
	entries, err := os.ReadDir(f.dir)
	if err != nil || len(entries) != 1 {
		t.Fatalf("a failed store left %v (%v)", entries, err)
	}
}
