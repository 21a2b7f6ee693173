package plugin

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

func TestOpenRead(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, outside, results := base+"/ws", base+"/outside", base+"/results/s1"
	for _, d := range []string{ws, outside + "/dir", results} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{ws + "/a.txt", ws + "/secret.txt", outside + "/o.txt", outside + "/dir/d.txt", results + "/c.txt"} {
		if err := os.WriteFile(f, []byte(filepath.Base(f)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{ws + "/out": outside + "/o.txt", ws + "/odir": outside + "/dir", ws + "/in": ws + "/a.txt"} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	const changed, denied = "changed after the permission check", "deny rules cover"
	for _, c := range []struct {
		name, path, mode string
		allowed          []string
		want             string // "" reads the file
	}{
		{"inside", "a.txt", "", nil, ""},
		{"a link inside", "in", "", nil, ""},
		{"a results file", results + "/c.txt", "", nil, ""},
		{"a link out, not allowed", "out", "", []string{ws + "/a.txt"}, changed},
		{"a link out, allowed", "out", "", []string{outside + "/o.txt"}, ""},
		{"below an allowed directory", "odir/d.txt", "", []string{outside + "/dir"}, ""},
		{"beside an allowed file", "odir/d.txt", "", []string{outside + "/dir/d"}, changed},
		{"an allowed relative path counts for nothing", "out", "", []string{"o.txt"}, changed},
		{"outside in bypass", "out", "bypassPermissions", nil, ""},
		{"denied", "secret.txt", "", nil, denied},
		{"denied in bypass", "secret.txt", "bypassPermissions", []string{ws + "/secret.txt"}, denied},
	} {
		env := &Env{Cwd: ws, Roots: []string{ws}, ResultsDirs: []string{results}, DenyRead: []string{"/**/secret.txt"}, AllowedReads: c.allowed, Mode: c.mode}
		f, err := env.OpenRead(c.path)
		var refused *RefusedError
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want == "":
			data, _ := io.ReadAll(f)
			_ = f.Close()
			if len(data) == 0 {
				t.Errorf("%s: read nothing", c.name)
			}
		case !errors.As(err, &refused) || !strings.Contains(refused.Message, c.want):
			t.Errorf("%s: %v, want a refusal saying %q", c.name, err, c.want)
		case f != nil:
			t.Errorf("%s: refused, yet a file was returned", c.name)
		}
	}
	// A missing file is the open's own error, for the tool to explain.
	if _, err := (&Env{Cwd: ws, Roots: []string{ws}}).OpenRead("nope"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
	if runtime.GOOS == "linux" {
		// A magic link is not followed: /proc/self/fd/N names an open file
		// whatever its path.
		held, err := os.Open(outside + "/o.txt")
		if err != nil {
			t.Fatal(err)
		}
		defer held.Close()
		env := &Env{Cwd: ws, Roots: []string{"/"}, Mode: "bypassPermissions"}
		if f, err := env.OpenRead("/proc/self/fd/" + strconv.Itoa(int(held.Fd()))); err == nil {
			_ = f.Close()
			t.Error("OpenRead followed a magic link")
		}
	}
}

// TestCheckOpenedRefusesWhatIsNoFile: a descriptor whose file was removed
// meanwhile, or that names no path at all, is refused as changed.
func TestCheckOpenedRefusesWhatIsNoFile(t *testing.T) {
	env := &Env{Cwd: "/ws", Roots: []string{"/"}, Mode: "bypassPermissions"}
	for _, real := range []string{"/ws/a.txt (deleted)", "pipe:[1234]", "anon_inode:[eventfd]", ""} {
		err := env.checkOpened("/ws/a.txt", real)
		var refused *RefusedError
		if !errors.As(err, &refused) || refused.Message != "a.txt changed while it was being opened (it was removed or replaced), so it was not read.\nRead it again once it has stopped changing." {
			t.Errorf("checkOpened(%q) = %v", real, err)
		}
	}
	if err := env.checkOpened("/ws/a.txt", "/ws/a.txt"); err != nil {
		t.Errorf("a plain file: %v", err)
	}
}
