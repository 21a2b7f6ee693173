package attach

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A socket in a state dir too deep for sockaddr_un is still reachable.
func TestDeepSocketPath(t *testing.T) {
	dir := filepath.Join(t.TempDir(), strings.Repeat("d", 90), "hosts")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	p := PathsFor(dir, "S", "/ws")
	if len(p.Socket) <= maxSunPath {
		t.Fatalf("the test needs a long path, got %d bytes", len(p.Socket))
	}
	addr, done, err := ShortAddr(p.Socket)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", addr)
	done()
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := Dial(p.Socket)
	if err != nil {
		t.Fatalf("dial a deep socket: %v", err)
	}
	c.Close()
	if PathsFor(dir, "S", "/ws") == PathsFor(dir, "S", "/other") || PathsFor(dir, "S", "/ws") == PathsFor(dir, "T", "/ws") {
		t.Fatal("each session and workspace needs its own socket")
	}
}

// A path that fits sockaddr_un is used as it is, up to the last byte that
// fits; one longer goes through its directory's descriptor.
func TestShortAddrBoundary(t *testing.T) {
	base := t.TempDir()
	for _, n := range []int{maxSunPath, maxSunPath + 1} {
		dir := filepath.Join(base, fmt.Sprint(n))
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		path := dir + "/" + strings.Repeat("s", n-len(dir)-1)
		addr, done, err := ShortAddr(path)
		if err != nil {
			t.Fatal(err)
		}
		ln, lerr := net.Listen("unix", addr)
		done()
		if lerr != nil {
			t.Fatalf("%d bytes: listen on %s: %v", n, addr, lerr)
		}
		if _, err := os.Stat(path); err != nil {
			t.Errorf("%d bytes: the socket should be at %s: %v", n, path, err)
		}
		ln.Close()
		if direct := addr == path; direct != (n == maxSunPath) {
			t.Errorf("%d bytes: got address %s", n, addr)
		}
	}
	if _, _, err := ShortAddr(filepath.Join(base, "missing", strings.Repeat("m", 120))); err == nil {
		t.Error("a long path in a missing directory cannot be reached")
	}
}
