package sessionhost

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/riot-tools/riot/core/sessionhost/attach"
)

// A directory or socket others can write is refused, with the reason;
// a private one passes.
func TestCheckRefusesWhatOthersCanWrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "hosts")
	if err := EnsureDir(dir); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "x.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if err := os.Chmod(sock, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := CheckSocket(sock); err != nil {
		t.Fatalf("a private socket should pass: %v", err)
	}
	for _, tc := range []struct {
		path string
		mode os.FileMode
	}{{sock, 0o620}, {sock, 0o602}, {dir, 0o720}, {dir, 0o777}} {
		if err := os.Chmod(tc.path, tc.mode); err != nil {
			t.Fatal(err)
		}
		err := CheckSocket(sock)
		if !errors.Is(err, ErrUnsafe) || !strings.Contains(err.Error(), "can be written by other users") {
			t.Errorf("%s mode %04o: want refused as writable by others, got %v", tc.path, tc.mode, err)
		}
		if err := EnsureDir(dir); tc.path == dir && !errors.Is(err, ErrUnsafe) {
			t.Errorf("EnsureDir should refuse a directory of mode %04o: %v", tc.mode, err)
		}
		_ = os.Chmod(sock, 0o600)
		_ = os.Chmod(dir, 0o700)
	}
	if err := CheckSocket(filepath.Join(dir, "missing.sock")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing socket: %v", err)
	}
	plain := filepath.Join(dir, "plain.sock")
	if err := os.WriteFile(plain, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := CheckSocket(plain); !errors.Is(err, ErrUnsafe) || !strings.Contains(err.Error(), "is not a socket") {
		t.Errorf("a regular file: %v", err)
	}
}

// A socket or directory another user owns is refused, whatever its mode.
func TestCheckRefusesAnotherUsersSocket(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("giving a file to another user needs root")
	}
	dir := filepath.Join(t.TempDir(), "hosts")
	if err := EnsureDir(dir); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "x.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	for _, p := range []string{sock, dir} {
		if err := os.Chown(p, 4242, 4242); err != nil {
			t.Fatal(err)
		}
		if err := CheckSocket(sock); !errors.Is(err, ErrUnsafe) || !strings.Contains(err.Error(), p+" is owned by another user") {
			t.Errorf("%s owned by another user: %v", p, err)
		}
		if _, err := attach.Dial(sock); !errors.Is(err, ErrUnsafe) {
			t.Errorf("a client should not connect: %v", err)
		}
		_ = os.Chown(p, 0, 0)
	}
	if err := os.Chown(dir, 4242, 4242); err != nil {
		t.Fatal(err)
	}
	if err := EnsureDir(dir); !errors.Is(err, ErrUnsafe) {
		t.Errorf("EnsureDir should refuse another user's directory: %v", err)
	}
	if err := os.Remove(dir); err == nil {
		t.Fatal("the directory should not be removable while it holds the socket")
	}
	// A file in place of the directory is refused too.
	file := filepath.Join(t.TempDir(), "hosts")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := CheckDir(file); !errors.Is(err, ErrUnsafe) || !strings.Contains(err.Error(), "is not a directory") {
		t.Errorf("a file as the directory: %v", err)
	}
}
