package trust

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

var now = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

func newStore(t *testing.T) Store {
	t.Helper()
	return Store{File: filepath.Join(t.TempDir(), "cfg", "riot", FileName)}
}

func mkdir(t *testing.T, parts ...string) string {
	t.Helper()
	p := filepath.Join(parts...)
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func real(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func lookup(t *testing.T, st Store, dir string) State {
	t.Helper()
	s, err := st.Lookup(dir)
	if err != nil {
		t.Fatalf("Lookup(%s): %v", dir, err)
	}
	return s.State
}

// A workspace is named by its real path, with each symlink followed
// before the .. after it: lnk/.. is the link target's parent, not ".".
func TestKeyIsTheRealPath(t *testing.T) {
	root := real(t, t.TempDir())
	ws, outside := mkdir(t, root, "ws"), mkdir(t, root, "outside", "sub")
	if err := os.Symlink(outside, filepath.Join(ws, "lnk")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(ws, filepath.Join(root, "alias")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(ws)
	for in, want := range map[string]string{
		ws:                                ws,
		filepath.Join(root, "alias"):      ws,
		".":                               ws,
		"lnk/..":                          filepath.Join(root, "outside"),
		ws + "/lnk/..":                    filepath.Join(root, "outside"),
		"lnk":                             outside,
		filepath.Join(root, "alias", "."): ws,
	} {
		got, err := Key(in)
		if err != nil || got != want {
			t.Errorf("Key(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

func TestKeyRefusesWhatItCannotName(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(root, "missing"), file, file + "/.."} {
		if _, err := Key(p); !errors.Is(err, ErrNotDir) {
			t.Errorf("Key(%s) = %v, want ErrNotDir", p, err)
		}
	}
	bad := mkdir(t, root, "a\xff")
	if _, err := Key(bad); !errors.Is(err, ErrPath) {
		t.Errorf("Key(non-UTF-8) = %v, want ErrPath", err)
	}
	st := newStore(t)
	if _, err := st.Trust(bad, nil, now); !errors.Is(err, ErrPath) {
		t.Errorf("Trust(non-UTF-8) = %v, want ErrPath", err)
	}
	if _, _, err := st.Revoke(bad); !errors.Is(err, ErrPath) {
		t.Errorf("Revoke(non-UTF-8) = %v, want ErrPath", err)
	}
	if s := lookup(t, st, bad); s != Unknown {
		t.Errorf("Lookup(non-UTF-8) = %v", s)
	}
	if _, err := os.Stat(st.File); !os.IsNotExist(err) {
		t.Errorf("a refused path wrote the record: %v", err)
	}
}

// Trust is exact: not a subdirectory, not a sibling, not a moved copy;
// the same directory through a symlink is the same workspace.
func TestTrustIsExact(t *testing.T) {
	root := real(t, t.TempDir())
	ws := mkdir(t, root, "ws")
	sub := mkdir(t, ws, "sub")
	sib := mkdir(t, root, "ws2")
	st := newStore(t)
	if s := lookup(t, st, ws); s != Unknown {
		t.Fatalf("before: %v", s)
	}
	key, err := st.Trust(ws, nil, now)
	if err != nil || key != ws {
		t.Fatalf("Trust = %q, %v", key, err)
	}
	if err := os.Symlink(ws, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string]State{ws: Trusted, filepath.Join(root, "link"): Trusted, sub: Unknown, sib: Unknown, root: Unknown} {
		if s := lookup(t, st, dir); s != want {
			t.Errorf("Lookup(%s) = %v, want %v", dir, s, want)
		}
	}
	moved := filepath.Join(root, "moved")
	if err := os.Rename(ws, moved); err != nil {
		t.Fatal(err)
	}
	if s := lookup(t, st, moved); s != Unknown {
		t.Errorf("a moved workspace is %v", s)
	}
	// Its old entry stays until revoked, by the path it had.
	entries, err := st.List()
	if err != nil || len(entries) != 1 || entries[0].Dir != ws || !entries[0].Trusted || !entries[0].At.Equal(now) {
		t.Fatalf("List = %+v, %v", entries, err)
	}
	key, removed, err := st.Revoke(ws)
	if err != nil || !removed || key != ws {
		t.Fatalf("Revoke(missing) = %q %v %v", key, removed, err)
	}
	if entries, _ := st.List(); len(entries) != 0 {
		t.Fatalf("after revoke: %+v", entries)
	}
	key, removed, err = st.Revoke(moved)
	if err != nil || removed || key != moved {
		t.Fatalf("Revoke(never trusted) = %q %v %v", key, removed, err)
	}
}

func TestDeclineThenTrust(t *testing.T) {
	ws := real(t, t.TempDir())
	other := real(t, t.TempDir())
	st := newStore(t)
	if _, err := st.Trust(other, nil, now); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Decline(ws, now); err != nil {
		t.Fatal(err)
	}
	if s := lookup(t, st, ws); s != Declined {
		t.Fatalf("declined: %v", s)
	}
	if _, err := st.Trust(ws, nil, now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if s := lookup(t, st, ws); s != Trusted {
		t.Fatalf("trusted after declining: %v", s)
	}
	entries, err := st.List()
	if err != nil || len(entries) != 2 {
		t.Fatalf("one entry per workspace: %+v %v", entries, err)
	}
	if _, removed, err := st.Revoke(ws); err != nil || !removed {
		t.Fatal(removed, err)
	}
	if s := lookup(t, st, other); s != Trusted {
		t.Fatalf("revoking one workspace changed another: %v", s)
	}
	if s := lookup(t, st, ws); s != Unknown {
		t.Fatalf("revoked: %v", s)
	}
}

func TestListIsSorted(t *testing.T) {
	root := real(t, t.TempDir())
	st := newStore(t)
	for _, n := range []string{"c", "a", "b"} {
		if _, err := st.Trust(mkdir(t, root, n), nil, now); err != nil {
			t.Fatal(err)
		}
	}
	entries, err := st.List()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, filepath.Base(e.Dir))
	}
	if strings.Join(got, ",") != "a,b,c" {
		t.Fatalf("List order %v", got)
	}
}

func TestRecordFile(t *testing.T) {
	ws := real(t, t.TempDir())
	st := newStore(t)
	if entries, err := st.List(); err != nil || len(entries) != 0 {
		t.Fatalf("no record: %v %v", entries, err)
	}
	if _, err := st.Trust(ws, nil, now); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(st.File)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("record mode %v, %v", info, err)
	}
	data, _ := os.ReadFile(st.File)
	want := "{\n  \"version\": 1,\n  \"workspaces\": [\n    {\n      \"dir\": \"" + ws + "\",\n      \"trusted\": true,\n      \"files\": {},\n      \"at\": \"2026-12-01T10:00:00Z\"\n    }\n  ]\n}\n"
	if string(data) != want {
		t.Fatalf("record:\n%s\nwant:\n%s", data, want)
	}
	if _, _, err := st.Revoke(ws); err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(st.File)
	if string(data) != "{\n  \"version\": 1,\n  \"workspaces\": []\n}\n" {
		t.Fatalf("empty record: %s", data)
	}
	if got := ForConfigDir("/home/u/.config/riot").File; got != "/home/u/.config/riot/trusted.json" {
		t.Fatalf("ForConfigDir = %s", got)
	}
}

// A record riot cannot read is an error naming it and saying what to do,
// and riot does not write over it.
func TestBadRecord(t *testing.T) {
	ws := real(t, t.TempDir())
	for _, tc := range []struct{ name, body, msg string }{
		{"not json", "{", "it is not valid JSON"},
		{"other version", `{"version":2,"workspaces":[]}`, "its version is 2, and this riot reads version 1"},
		{"no version", `{"workspaces":[{"dir":"` + ws + `","trusted":true}]}`, "its version is 0, and this riot reads version 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := newStore(t)
			mkdir(t, filepath.Dir(st.File))
			if err := os.WriteFile(st.File, []byte(tc.body), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := st.Lookup(ws)
			var re *RecordError
			if !errors.As(err, &re) || re.File != st.File || re.Msg != tc.msg {
				t.Fatalf("Lookup = %v", err)
			}
			if !strings.HasSuffix(err.Error(), "; fix or delete it (riot trust DIR writes a new one)") || !strings.HasPrefix(err.Error(), "the trust record "+st.File+": ") {
				t.Fatalf("message = %q", err)
			}
			if _, err := st.List(); !errors.As(err, &re) {
				t.Fatalf("List = %v", err)
			}
			if _, err := st.Trust(ws, nil, now); !errors.As(err, &re) {
				t.Fatalf("Trust over a bad record = %v", err)
			}
			if _, _, err := st.Revoke(ws); !errors.As(err, &re) {
				t.Fatalf("Revoke over a bad record = %v", err)
			}
			if data, _ := os.ReadFile(st.File); string(data) != tc.body {
				t.Fatalf("the bad record was overwritten: %s", data)
			}
		})
	}
	t.Run("unreadable", func(t *testing.T) {
		st := newStore(t)
		mkdir(t, st.File) // a directory where the file should be
		_, err := st.Lookup(ws)
		var re *RecordError
		if !errors.As(err, &re) || re.Msg != "it cannot be read: is a directory" {
			t.Fatalf("Lookup = %v", err)
		}
	})
	t.Run("directory cannot be made", func(t *testing.T) {
		parent := filepath.Join(t.TempDir(), "file")
		if err := os.WriteFile(parent, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		st := Store{File: filepath.Join(parent, "riot", FileName)}
		_, err := st.Trust(ws, nil, now)
		var re *RecordError
		if !errors.As(err, &re) || re.Msg != "its directory cannot be made: not a directory" {
			t.Fatalf("Trust = %v", err)
		}
	})
	t.Run("lock cannot be opened", func(t *testing.T) {
		st := newStore(t)
		mkdir(t, st.File+".lock")
		_, err := st.Trust(ws, nil, now)
		var re *RecordError
		if !errors.As(err, &re) || re.Msg != "its lock cannot be opened: is a directory" {
			t.Fatalf("Trust = %v", err)
		}
	})
}

// A hand-written entry that no Key can equal is dropped, not matched.
func TestDecodeDropsEntriesThatAreNotRealPaths(t *testing.T) {
	ws := real(t, t.TempDir())
	st := newStore(t)
	mkdir(t, filepath.Dir(st.File))
	body := `{"version":1,"workspaces":[
		{"dir":"relative/ws","trusted":true},
		{"dir":"` + ws + `/../` + filepath.Base(ws) + `","trusted":true},
		{"dir":"` + ws + `/","trusted":true},
		{"dir":"` + ws + `\ufffd","trusted":true},
		{"dir":"","trusted":true}
	]}`
	if err := os.WriteFile(st.File, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	if s := lookup(t, st, ws); s != Unknown {
		t.Fatalf("an unclean entry matched: %v", s)
	}
	entries, err := st.List()
	if err != nil || len(entries) != 1 || entries[0].Dir != ws+"\ufffd" {
		t.Fatalf("List = %+v, %v", entries, err)
	}
	// JSON reads bytes that are not UTF-8 as U+FFFD: a path that is not
	// the one written, so no Key can match it.
	entries, err = decode([]byte("{\"version\":1,\"workspaces\":[{\"dir\":\"/a\xffb\",\"trusted\":true}]}"))
	if err != nil || len(entries) != 1 || entries[0].Dir != "/a\ufffdb" {
		t.Fatalf("decode(invalid UTF-8) = %+v, %v", entries, err)
	}
	for _, d := range []string{"/a", "/", "/a b/c"} {
		if !validDir(d) {
			t.Errorf("validDir(%q) = false", d)
		}
	}
	for _, d := range []string{"", "a", "/a/", "/a/../b", "/a/./b", "/a\xff"} {
		if validDir(d) {
			t.Errorf("validDir(%q) = true", d)
		}
	}
}

// Two processes trusting at once both keep their entry.
func TestConcurrentTrust(t *testing.T) {
	root := real(t, t.TempDir())
	st := newStore(t)
	const n = 16
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		dir := mkdir(t, root, string(rune('a'+i)))
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := st.Trust(dir, nil, now)
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if entries, err := st.List(); err != nil || len(entries) != n {
		t.Fatalf("%d entries, %v", len(entries), err)
	}
}

func TestErrText(t *testing.T) {
	_, err := os.ReadFile("/nonexistent/x")
	if got := errText(err); got != "no such file or directory" {
		t.Fatalf("errText(PathError) = %q", got)
	}
	err = os.Rename("/nonexistent/a", "/nonexistent/b")
	if got := errText(err); got != "no such file or directory" {
		t.Fatalf("errText(LinkError) = %q", got)
	}
	if got := errText(errors.New("plain")); got != "plain" {
		t.Fatalf("errText = %q", got)
	}
}

// A pin is kept apart from trust: it names the local file riot wrote, and
// neither trusts the workspace nor is lost by declining it.
func TestPinLocal(t *testing.T) {
	ws := real(t, t.TempDir())
	st := newStore(t)
	sum := strings.Repeat("ab", 32)
	for _, bad := range []string{"", "abc", strings.Repeat("AB", 32), strings.Repeat("ab", 32) + "\n"} {
		if _, err := st.PinLocal(ws, bad, now); err == nil {
			t.Errorf("PinLocal(%q) took it", bad)
		}
	}
	if _, err := os.Stat(st.File); !os.IsNotExist(err) {
		t.Fatalf("a refused pin wrote the record: %v", err)
	}
	if _, err := st.PinLocal(filepath.Join(ws, "missing"), sum, now); !errors.Is(err, ErrNotDir) {
		t.Fatalf("PinLocal(missing) = %v", err)
	}
	if key, err := st.PinLocal(ws, sum, now); err != nil || key != ws {
		t.Fatalf("PinLocal = %q, %v", key, err)
	}
	got, err := st.Lookup(ws)
	if err != nil || !reflect.DeepEqual(got, Status{State: Unknown, Local: sum}) {
		t.Fatalf("pinned: %+v, %v", got, err)
	}
	if _, err := st.Decline(ws, now); err != nil {
		t.Fatal(err)
	}
	if got, _ := st.Lookup(ws); !reflect.DeepEqual(got, Status{State: Declined, Local: sum}) {
		t.Fatalf("declined: %+v", got)
	}
	other := strings.Repeat("cd", 32)
	if _, err := st.PinLocal(ws, other, now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	entries, _ := st.List()
	if len(entries) != 1 || !reflect.DeepEqual(entries[0], Entry{Dir: ws, Declined: true, Local: other, At: now.Add(time.Minute)}) {
		t.Fatalf("entries %+v", entries)
	}
	if _, err := st.Trust(ws, nil, now); err != nil {
		t.Fatal(err)
	}
	if got, _ := st.Lookup(ws); !reflect.DeepEqual(got, Status{State: Trusted, Local: other, Files: map[string]string{}}) {
		t.Fatalf("trusted: %+v", got)
	}
	data, _ := os.ReadFile(st.File)
	if !strings.Contains(string(data), `"local_sha256": "`+other+`"`) || strings.Contains(string(data), "declined") {
		t.Fatalf("record:\n%s", data)
	}
	if _, err := st.Decline(ws, now); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(st.File); !strings.Contains(string(data), `"declined": true`) || !strings.Contains(string(data), `"trusted": false`) {
		t.Fatalf("record:\n%s", data)
	}
	if _, _, err := st.Revoke(ws); err != nil {
		t.Fatal(err)
	}
	if got, _ := st.Lookup(ws); !reflect.DeepEqual(got, Status{}) {
		t.Fatalf("revoked: %+v", got)
	}
	// A hand-written pin that is not a SHA-256 drops its entry.
	body := `{"version":1,"workspaces":[{"dir":"` + ws + `","trusted":true,"local_sha256":"xyz"}]}`
	if err := os.WriteFile(st.File, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, _ := st.Lookup(ws); !reflect.DeepEqual(got, Status{}) {
		t.Fatalf("bad pin kept: %+v", got)
	}
	for _, s := range []string{"", sum} {
		if !validSum(s) {
			t.Errorf("validSum(%q) = false", s)
		}
	}
}

// Trust vouches for the files' content as given; a record from before
// sums were kept trusts the directory but vouches for no file.
func TestVouches(t *testing.T) {
	ws := real(t, t.TempDir())
	st := newStore(t)
	a, b := Sum([]byte("a")), Sum([]byte("b"))
	if _, err := st.Trust(ws, map[string]string{"../x": a}, now); err == nil {
		t.Fatal("a file outside the workspace was recorded")
	}
	if _, err := st.Trust(ws, map[string]string{".mcp.json": "nope"}, now); err == nil {
		t.Fatal("a bad sum was recorded")
	}
	if _, err := st.Trust(ws, map[string]string{".mcp.json": a}, now); err != nil {
		t.Fatal(err)
	}
	s, err := st.Lookup(ws)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, sum string
		want      bool
	}{{".mcp.json", a, true}, {".mcp.json", b, false}, {".riot/config.toml", a, false}, {".mcp.json", "", false}} {
		if got := s.Vouches(c.name, c.sum); got != c.want {
			t.Errorf("Vouches(%s, %.8s) = %v, want %v", c.name, c.sum, got, c.want)
		}
	}
	// The old form: trusted, no files.
	body := `{"version":1,"workspaces":[{"dir":"` + ws + `","trusted":true,"at":"2026-12-01T10:00:00Z"}]}`
	if err := os.WriteFile(st.File, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	if s, err = st.Lookup(ws); err != nil || s.State != Trusted || s.Files != nil || s.Vouches(".mcp.json", a) {
		t.Fatalf("old record: %+v, %v", s, err)
	}
	// A record with a file outside the workspace drops the entry.
	body = `{"version":1,"workspaces":[{"dir":"` + ws + `","trusted":true,"files":{"../../etc/x":"` + a + `"}}]}`
	if err := os.WriteFile(st.File, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	if s, _ = st.Lookup(ws); s.State != Unknown {
		t.Fatalf("bad files kept: %+v", s)
	}
}

// Amend is riot's own write on the user's answer: it writes and vouches
// only when the content it replaces was vouched for (or absent), and
// only the local file in a workspace that is not trusted.
func TestAmend(t *testing.T) {
	ws := real(t, t.TempDir())
	st := newStore(t)
	add := func(s string) func([]byte) ([]byte, error) {
		return func(old []byte) ([]byte, error) { return append(old, s...), nil }
	}
	local := filepath.Join(ws, LocalName)
	// Untrusted: the local file, absent, is written and pinned.
	sum, err := st.Amend(ws, LocalName, add("a\n"), now)
	if err != nil || sum != Sum([]byte("a\n")) {
		t.Fatalf("Amend = %q, %v", sum, err)
	}
	if s, _ := st.Lookup(ws); s.State != Unknown || !s.Vouches(LocalName, sum) {
		t.Fatalf("after Amend: %+v", s)
	}
	// Another file of an untrusted workspace is not riot's to vouch for.
	if _, err := st.Amend(ws, ".riot/config.toml", add("x"), now); !errors.Is(err, ErrNotVouched) {
		t.Fatalf("untrusted config.toml: %v", err)
	}
	if _, err := os.Stat(filepath.Join(ws, ".riot/config.toml")); !os.IsNotExist(err) {
		t.Fatal("a refused Amend wrote")
	}
	// Changed by someone else: refused, and left as it is.
	if err := os.WriteFile(local, []byte("theirs\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Amend(ws, LocalName, add("b\n"), now); !errors.Is(err, ErrNotVouched) {
		t.Fatalf("changed local: %v", err)
	}
	if data, _ := os.ReadFile(local); string(data) != "theirs\n" {
		t.Fatalf("a refused Amend wrote %q", data)
	}
	// Trusted with the file as it is: any file may be amended, and the
	// new content is vouched for, the old one no longer.
	if _, err := st.Trust(ws, map[string]string{LocalName: Sum([]byte("theirs\n"))}, now); err != nil {
		t.Fatal(err)
	}
	if sum, err = st.Amend(ws, LocalName, add("b\n"), now); err != nil {
		t.Fatal(err)
	}
	cfgSum, err := st.Amend(ws, ".riot/config.toml", add("c\n"), now)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := st.Lookup(ws)
	if !s.Vouches(LocalName, sum) || s.Vouches(LocalName, Sum([]byte("theirs\n"))) || !s.Vouches(".riot/config.toml", cfgSum) {
		t.Fatalf("trusted Amend: %+v", s)
	}
	// An edit that changes nothing records nothing; an edit's error
	// leaves file and record.
	if sum, err := st.Amend(ws, LocalName, add(""), now); err != nil || sum != "" {
		t.Fatalf("no change: %q, %v", sum, err)
	}
	boom := errors.New("boom")
	if _, err := st.Amend(ws, LocalName, func([]byte) ([]byte, error) { return nil, boom }, now); !errors.Is(err, boom) {
		t.Fatalf("edit error: %v", err)
	}
	if _, err := st.Amend(ws, "../out", add("x"), now); err == nil {
		t.Fatal("amended a file outside the workspace")
	}
	if _, err := st.Amend(filepath.Join(ws, "missing"), LocalName, add("x"), now); !errors.Is(err, ErrNotDir) {
		t.Fatalf("missing dir: %v", err)
	}
}

// Revouch records riot's own change of a trusted workspace's file: only
// over what the record vouched for, or nothing, and only when trusted.
func TestRevouch(t *testing.T) {
	ws := real(t, t.TempDir())
	st := newStore(t)
	a, b, c := Sum([]byte("a")), Sum([]byte("b")), Sum([]byte("c"))
	if err := st.Revouch(ws, ".riot/plugins", "", a, now); !errors.Is(err, ErrNotVouched) {
		t.Fatalf("no entry: %v", err)
	}
	if _, err := os.Stat(st.File); !os.IsNotExist(err) {
		t.Fatal("a refused Revouch wrote the record")
	}
	if _, err := st.PinLocal(ws, a, now); err != nil {
		t.Fatal(err)
	}
	if err := st.Revouch(ws, ".riot/plugins", "", a, now); !errors.Is(err, ErrNotVouched) {
		t.Fatalf("untrusted: %v", err)
	}
	if _, err := st.Trust(ws, map[string]string{".riot/plugins": a}, now); err != nil {
		t.Fatal(err)
	}
	if err := st.Revouch(ws, ".riot/plugins", b, c, now); !errors.Is(err, ErrNotVouched) {
		t.Fatalf("over unvouched content: %v", err)
	}
	if err := st.Revouch(ws, ".riot/plugins", a, b, now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	s, _ := st.Lookup(ws)
	if !s.Vouches(".riot/plugins", b) || s.Vouches(".riot/plugins", a) {
		t.Fatalf("after Revouch: %+v", s)
	}
	if entries, _ := st.List(); !entries[0].At.Equal(now.Add(time.Minute)) {
		t.Fatalf("at %v", entries[0].At)
	}
	// Nothing there before: riot's change is all there is.
	if err := st.Revouch(ws, ".mcp.json", "", c, now); err != nil {
		t.Fatal(err)
	}
	// Gone after: forgotten.
	if err := st.Revouch(ws, ".riot/plugins", b, "", now); err != nil {
		t.Fatal(err)
	}
	if s, _ = st.Lookup(ws); s.Files[".riot/plugins"] != "" || !s.Vouches(".mcp.json", c) {
		t.Fatalf("after removal: %+v", s)
	}
	for _, bad := range []struct{ name, sum string }{{"../x", a}, {"/abs", a}, {".mcp.json", "nope"}} {
		if err := st.Revouch(ws, bad.name, "", bad.sum, now); err == nil || errors.Is(err, ErrNotVouched) {
			t.Errorf("Revouch(%q, %q) = %v", bad.name, bad.sum, err)
		}
	}
	if err := st.Revouch(filepath.Join(ws, "missing"), ".mcp.json", "", a, now); !errors.Is(err, ErrNotDir) {
		t.Fatalf("missing dir: %v", err)
	}
	// An unsummed trust (an older riot's) gains the file riot wrote, and
	// vouches for nothing else.
	body := `{"version":1,"workspaces":[{"dir":"` + ws + `","trusted":true}]}`
	if err := os.WriteFile(st.File, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := st.Revouch(ws, ".riot/plugins", "", a, now); err != nil {
		t.Fatal(err)
	}
	if s, _ = st.Lookup(ws); len(s.Files) != 1 || !s.Vouches(".riot/plugins", a) {
		t.Fatalf("unsummed: %+v", s)
	}
}
