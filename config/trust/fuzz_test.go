package trust

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzTrustPath: for any path, given relative to a tree with symlinks in
// and out of the workspace, Key either refuses it or names the directory
// the kernel opens for it, and trusting it trusts exactly that directory.
func FuzzTrustPath(f *testing.F) {
	for _, s := range []string{"ws", "ws/lnk/..", "ws/lnk", "alias", "alias/../ws", "ws/./sub", "ws/sub/../..", "ws//sub/", "ws/lnk/../../ws", "missing", "ws/file", "ws/loop", "..", "ws/\xff", "ws/sub/\x00"} {
		f.Add(s)
	}
	root, err := filepath.EvalSymlinks(f.TempDir())
	if err != nil {
		f.Fatal(err)
	}
	ws := filepath.Join(root, "ws")
	for _, d := range []string{filepath.Join(ws, "sub"), filepath.Join(root, "outside", "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			f.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		filepath.Join(ws, "lnk"):     filepath.Join(root, "outside", "sub"),
		filepath.Join(root, "alias"): ws,
		filepath.Join(ws, "loop"):    filepath.Join(ws, "loop"),
	} {
		if err := os.Symlink(target, link); err != nil {
			f.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "file"), nil, 0o644); err != nil {
		f.Fatal(err)
	}
	fixed := []string{root, ws, filepath.Join(ws, "sub"), filepath.Join(root, "outside"), filepath.Join(root, "outside", "sub")}
	f.Fuzz(func(t *testing.T, rel string) {
		p := root + "/" + rel
		key, err := Key(p)
		if err != nil {
			return
		}
		if !validDir(key) {
			t.Fatalf("Key(%q) = %q: not an absolute clean UTF-8 path", p, key)
		}
		if r, err := filepath.EvalSymlinks(key); err != nil || r != key {
			t.Fatalf("Key(%q) = %q, which resolves to %q", p, key, r)
		}
		opened, err1 := os.Stat(p)
		named, err2 := os.Stat(key)
		if err1 != nil || err2 != nil || !os.SameFile(opened, named) {
			t.Fatalf("Key(%q) = %q, not the directory the path opens", p, key)
		}
		st := Store{File: filepath.Join(t.TempDir(), FileName)}
		if _, err := st.Trust(p, nil, now); err != nil {
			t.Fatal(err)
		}
		for _, d := range append(fixed, p, key) {
			info, err := os.Stat(d)
			same := err == nil && os.SameFile(info, named)
			s, err := st.Lookup(d)
			if err != nil || (s.State == Trusted) != same {
				t.Fatalf("after Trust(%q): Lookup(%q) = %v, %v; same directory: %v", p, d, s, err, same)
			}
		}
		if _, removed, err := st.Revoke(p); err != nil || !removed {
			t.Fatalf("Revoke(%q) = %v, %v", p, removed, err)
		}
		if s, _ := st.Lookup(key); s.State != Unknown {
			t.Fatalf("after Revoke(%q): %v", p, s)
		}
	})
}

// FuzzDecode: any record text decodes or fails without panicking, and
// every entry it keeps is a real path's form.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"version":1,"workspaces":[{"dir":"/ws","trusted":true,"at":"2026-12-01T10:00:00Z"}]}`))
	f.Add([]byte(`{"version":1,"workspaces":[{"dir":"/a/../b","trusted":true},{"dir":"rel"}]}`))
	f.Add([]byte(`{"version":2}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := decode(data)
		if err != nil {
			return
		}
		for _, e := range entries {
			if !validDir(e.Dir) || !validSum(e.Local) || !validFiles(e.Files) {
				t.Fatalf("decode kept %q", e.Dir)
			}
		}
	})
}
