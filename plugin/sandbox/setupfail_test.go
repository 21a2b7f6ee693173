//go:build linux

package sandbox

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestClassifySetup(t *testing.T) {
	for _, tc := range []struct {
		stderr string
		want   SetupError
	}{
		{"bwrap: Can't mkdir parents for /proc/123/status: No such file or directory\n", SetupError{Path: "/proc/123/status"}},
		{"bwrap: Can't bind mount /oldroot/x on /newroot/x: Permission denied\n", SetupError{Path: "/oldroot/x"}},
		{"bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces.\n", SetupError{Namespaces: true}},
		{"bwrap: setting up uid map: Permission denied\n", SetupError{Namespaces: true}},
		{"something else\n", SetupError{}},
	} {
		if got := classifySetup([]byte(tc.stderr)); *got != tc.want {
			t.Errorf("%q: %+v, want %+v", tc.stderr, *got, tc.want)
		}
	}
	for _, e := range []*SetupError{{Path: "/x"}, {Namespaces: true}, {}} {
		msg := e.Error()
		if !strings.HasPrefix(msg, "The command was not run: the kernel sandbox could not be set up for it (") || strings.Contains(msg, "bwrap: ") {
			t.Errorf("%q is not riot's words", msg)
		}
	}
}

// No path below /proc or /dev is ever bound from the host, whatever
// list names it, nor the start directory there: the sandbox has its own
// /proc and /dev, and bwrap cannot make mount points in them.
func TestKernelPathsAreNeverBound(t *testing.T) {
	p := &Profile{
		Writable:       true,
		ReadPaths:      []string{"/proc/self/status", "/proc/1/status", "/dev/null", "/usr"},
		WritePaths:     []string{"/dev/shm", "/proc/self/fd", "/tmp"},
		ProtectedPaths: []string{"/dev/shm/x"},
		MaskedPaths:    []string{"/proc/self/environ"},
	}
	args := Args(p, "/proc/self")
	for i, a := range args {
		if i > 0 && strings.HasSuffix(args[i-1], "bind-try") || i > 0 && args[i-1] == "--ro-bind" && a != "/dev/null" {
			if kernelPath(a) {
				t.Errorf("%s is bound: %v", a, args)
			}
		}
	}
}

// A pool whose bwrap cannot set the sandbox up answers at once (bwrap's
// exit closes the init's socket), with what bwrap could not mount; the
// pool stays usable for other profiles.
func TestPoolSetupFailureIsFast(t *testing.T) {
	fake := filepath.Join(t.TempDir(), "bwrap")
	script := "#!/bin/sh\necho \"bwrap: Can't mkdir parents for /nonexistent/p: No such file or directory\" >&2\nexit 1\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	pl := &Pool{}
	t.Cleanup(pl.Close)
	out, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd := exec.Command("/bin/true")
	cmd.Stdout = out
	done := make(chan error, 1)
	go func() {
		_, err := pl.Start(fake, &Profile{Writable: true, WritePaths: []string{t.TempDir()}}, cmd)
		done <- err
	}()
	select {
	case err = <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the pool waited for a bwrap that had exited")
	}
	var setup *SetupError
	if !errors.As(err, &setup) || setup.Path != "/nonexistent/p" {
		t.Fatalf("%v, want a *SetupError naming /nonexistent/p", err)
	}
	if pl.Usable() != nil {
		t.Fatalf("one profile's mount failure broke the pool: %v", pl.Usable())
	}
}
