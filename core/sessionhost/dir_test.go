package sessionhost

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
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

// A socket in a state dir too deep for sockaddr_un is still reachable.
func TestDeepSocketPath(t *testing.T) {
	dir := filepath.Join(t.TempDir(), strings.Repeat("d", 90), "hosts")
	if err := EnsureDir(dir); err != nil {
		t.Fatal(err)
	}
	p := PathsFor(dir, "S", "/ws")
	if len(p.Socket) <= maxSunPath {
		t.Fatalf("the test needs a long path, got %d bytes", len(p.Socket))
	}
	addr, done, err := shortAddr(p.Socket)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", addr)
	done()
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := dial(p.Socket)
	if err != nil {
		t.Fatalf("dial a deep socket: %v", err)
	}
	c.Close()
	if PathsFor(dir, "S", "/ws") == PathsFor(dir, "S", "/other") || PathsFor(dir, "S", "/ws") == PathsFor(dir, "T", "/ws") {
		t.Fatal("each session and workspace needs its own socket")
	}
}
