package plugin

import (
	"os"
	"path/filepath"
	"testing"
)

func TestDenied(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, outside := filepath.Join(base, "ws"), filepath.Join(base, "outside")
	for _, d := range []string{ws + "/sub", outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{ws + "/secret.txt", ws + "/a.txt", outside + "/secret.txt", outside + "/o.txt"} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"alias": ws + "/secret.txt", "olnk": outside, "sublnk": ws + "/sub", "broken": base + "/none",
	} {
		if err := os.Symlink(target, filepath.Join(ws, link)); err != nil {
			t.Fatal(err)
		}
	}
	env := &Env{Cwd: ws, DenyRead: []string{ws + "/**/secret.txt"}}
	for _, c := range []struct {
		path string
		want bool
	}{
		{"secret.txt", true},
		{ws + "/secret.txt", true},
		{"sub/../secret.txt", true},
		{"a.txt", false},
		{"sub", false},
		// A link to a denied file is denied.
		{"alias", true},
		// `..` after a link is applied to the target: olnk/../ws is base/ws.
		{"olnk/../ws/secret.txt", true},
		{"sublnk/../secret.txt", true},
		// As in the chain, a deny glob matches the written form too.
		{"olnk/secret.txt", true},
		{"olnk/o.txt", false},
		// What cannot be resolved is denied.
		{"broken", true},
	} {
		if got := env.Denied(c.path); got != c.want {
			t.Errorf("Denied(%q) = %v, want %v", c.path, got, c.want)
		}
	}
	if (&Env{Cwd: ws}).Denied("secret.txt") || (&Env{Cwd: ws}).Denied("broken") {
		t.Error("without deny globs nothing is denied")
	}
	if !env.DeniedPhysical(ws+"/secret.txt") || env.DeniedPhysical(ws+"/alias") || (&Env{}).DeniedPhysical(ws+"/secret.txt") {
		t.Error("DeniedPhysical matches the path as given, and only with deny globs")
	}
}

func TestAbsKeepsHomeAndCwd(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home directory")
	}
	env := &Env{Cwd: "/w"}
	for in, want := range map[string]string{"~": home, "~/x": filepath.Join(home, "x"), "a/../b": "/w/b", "/abs": "/abs", "~user": "/w/~user"} {
		if got := env.Abs(in); got != want {
			t.Errorf("Abs(%q) = %q, want %q", in, got, want)
		}
	}
}
