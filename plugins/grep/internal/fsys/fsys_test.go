package fsys

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestOpen: the file opened is the one named, whether its path fits on the
// stack or not.
func TestOpen(t *testing.T) {
	dir := t.TempDir()
	// A directory deep enough that its files' paths do not fit on the stack.
	long := filepath.Join(dir, strings.Repeat("d", 200), strings.Repeat("e", 200), strings.Repeat("f", 200))
	for _, d := range []string{dir, long} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		want := strings.Repeat("line\n", 300)
		if err := os.WriteFile(filepath.Join(d, "f.txt"), []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, open := range []func() (int, error){
			func() (int, error) { return Open(filepath.Join(d, "f.txt"), unix.O_RDONLY|unix.O_CLOEXEC) },
			func() (int, error) { return OpenIn(d, "f.txt", unix.O_RDONLY|unix.O_CLOEXEC) },
			func() (int, error) { return OpenIn(d+"/", "f.txt", unix.O_RDONLY|unix.O_CLOEXEC) },
		} {
			fd, err := open()
			if err != nil {
				t.Fatalf("open in %d-byte dir: %v", len(d), err)
			}
			f := os.NewFile(uintptr(fd), "f.txt")
			got, err := io.ReadAll(f)
			_ = f.Close()
			if err != nil || string(got) != want {
				t.Errorf("read in %d-byte dir: %d bytes, %v", len(d), len(got), err)
			}
		}
		if _, err := OpenIn(d, "missing", unix.O_RDONLY); !errors.Is(err, unix.ENOENT) {
			t.Errorf("missing file: %v, want ENOENT", err)
		}
	}
	if _, err := OpenIn(dir, "f\x00.txt", unix.O_RDONLY); err == nil {
		t.Error("a name holding a NUL opened")
	}
	fd, err := OpenIn("/", "", unix.O_RDONLY|unix.O_DIRECTORY)
	if err != nil {
		t.Fatalf("open /: %v", err)
	}
	_ = unix.Close(fd)
}

func TestLstatIn(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("sub", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name          string
		exists, isDir bool
	}{
		{"sub", true, true}, {"file", true, false}, {"link", true, false}, {"missing", false, false},
	} {
		if exists, isDir := LstatIn(dir, tc.name); exists != tc.exists || isDir != tc.isDir {
			t.Errorf("LstatIn(%s) = %v, %v; want %v, %v", tc.name, exists, isDir, tc.exists, tc.isDir)
		}
	}
}

// FuzzAppendPath: the NUL-terminated path handed to the system call is
// exactly the joined path, and a path holding a NUL is refused rather
// than cut short at it.
func FuzzAppendPath(f *testing.F) {
	for _, s := range [][2]string{{"/a", "b"}, {"/a/", "b"}, {"/", ""}, {"/a", "b\x00c"}, {"", "x"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, dir, name string) {
		var arr [stackPath]byte
		p, ok := appendPath(arr[:0], dir, name)
		hasNUL := strings.ContainsRune(dir+name, 0)
		if ok == hasNUL {
			t.Fatalf("appendPath(%q, %q) ok = %v with NUL = %v", dir, name, ok, hasNUL)
		}
		if ok && string(p) != join(dir, name)+"\x00" {
			t.Fatalf("appendPath(%q, %q) = %q, want %q", dir, name, p, join(dir, name)+"\x00")
		}
	})
}
