package plugin

import (
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// confineChildEnv makes the test binary the confined child of
// TestConfineReadOnly: Landlock cannot be lifted, so the restricted
// process must be one of its own.
const confineChildEnv = "RIOT_TEST_CONFINE_CHILD"

func TestMain(m *testing.M) {
	if dir := os.Getenv(confineChildEnv); dir != "" {
		os.Exit(confineChild(dir))
	}
	os.Exit(m.Run())
}

// confineChild restricts itself, then tries what a read-only plugin must
// not do and what it must still do, printing one line per check.
func confineChild(dir string) int {
	if _, err := confineReadOnly(); err != nil {
		println("confine:", err.Error())
		return 3
	}
	report := func(what string, err error) {
		state := "allowed"
		if err != nil {
			state = "refused"
			if errors.Is(err, syscall.EACCES) {
				state = "refused EACCES"
			}
		}
		_, _ = os.Stderr.WriteString(what + ": " + state + "\n")
	}
	_, err := os.ReadFile(filepath.Join(dir, "existing"))
	report("read", err)
	report("create", os.WriteFile(filepath.Join(dir, "new"), []byte("x"), 0o600))
	_, err = os.OpenFile(filepath.Join(dir, "existing"), os.O_WRONLY, 0)
	report("open for writing", err)
	report("remove", os.Remove(filepath.Join(dir, "existing")))
	report("mkdir", os.Mkdir(filepath.Join(dir, "d"), 0o700))
	c, err := net.Dial("tcp", os.Getenv("RIOT_TEST_CONFINE_ADDR"))
	if err == nil {
		_ = c.Close()
	}
	report("connect", err)
	// Protocol 3's link: the host listens and the plugin connects, which
	// needs no right to create the socket's file.
	u, err := net.Dial("unix", filepath.Join(dir, "host.sock"))
	if err == nil {
		_ = u.Close()
	}
	report("connect to a Unix socket", err)
	l, err := net.Listen("unix", filepath.Join(dir, "own.sock"))
	if err == nil {
		_ = l.Close()
	}
	report("listen on a Unix socket", err)
	// A read-only plugin starts no processes, as its manifest told the host.
	report("execute", exec.Command("/bin/true").Run())
	return 0
}

// A read-only plugin's process can read but not write or execute anything,
// anywhere, nor connect over TCP where the kernel's Landlock has network
// rights. It can connect to a Unix socket, but
// not make one.
func TestConfineReadOnly(t *testing.T) {
	abi, err := ll.LandlockGetABIVersion()
	if err != nil || abi < 1 {
		t.Skipf("this kernel has no Landlock (%v); ServeReadOnly is best effort there", err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "existing"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ln.Close() }()
	host, err := net.Listen("unix", filepath.Join(dir, "host.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = host.Close() }()
	for _, l := range []net.Listener{ln, host} {
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				_ = c.Close()
			}
		}()
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), confineChildEnv+"="+dir, "RIOT_TEST_CONFINE_ADDR="+ln.Addr().String())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	got := string(out)
	want := []string{"read: allowed", "create: refused EACCES", "open for writing: refused EACCES", "remove: refused EACCES", "mkdir: refused EACCES",
		"connect to a Unix socket: allowed", "listen on a Unix socket: refused EACCES", "execute: refused EACCES"}
	if abi >= 4 {
		want = append(want, "connect: refused EACCES")
	}
	for _, w := range want {
		if !strings.Contains(got, w+"\n") {
			t.Errorf("want %q in:\n%s", w, got)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "new")); err == nil {
		t.Error("the confined process created a file")
	}
}
