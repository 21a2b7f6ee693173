//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// homeTree is a writable directory standing for a home added with
// --add-dir ~: some entries exist, the protected ones do not.
func homeTree(t *testing.T) string {
	t.Helper()
	h := filepath.Join(t.TempDir(), "home")
	for _, d := range []string{"proj", ".config/app", ".git/hooks", "repo/.git/hooks", "state/results/s1", "state/results/s2", "state/hosts"} {
		if err := os.MkdirAll(filepath.Join(h, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range map[string]string{
		"notes.txt": "notes", ".git/hooks/pre-commit": "hook", ".git/HEAD": "ref", "repo/.git/config": "[core]",
		"state/mcp-token": "TOKEN", "state/results/s1/a.txt": "MINE", "state/results/s2/b.txt": "THEIRS",
	} {
		if err := os.WriteFile(filepath.Join(h, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

// listTree is every path under dir, relative, sorted.
func listTree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out = append(out, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// Protected paths that do not exist yet cannot be made by a command
// allowed to write, neither directly nor by moving a directory above one
// aside; what exists stays writable; the tree is left as it was (no mount
// point made in it). Through a bwrap of its own and the pool alike.
func TestMissingProtectedPathsCannotBeMade(t *testing.T) {
	bwrap := needBwrap(t)
	for _, pooled := range []bool{false, true} {
		h := homeTree(t)
		before := listTree(t, h)
		protected := []string{".bashrc", "bin", ".config/systemd/user", ".config/autostart", ".git/config", ".git/hooks", "repo/.git/hooks", "repo/.git/config"}
		p := &Profile{Writable: true, WritePaths: []string{h}}
		for _, rel := range protected {
			p.ProtectedPaths = append(p.ProtectedPaths, filepath.Join(h, rel))
		}
		var script strings.Builder
		attempts := map[string]string{
			"echo evil > .bashrc": "Read-only file system", "mkdir bin": "Read-only file system",
			"mkdir -p .config/systemd/user": "Read-only file system", "mkdir .config/autostart": "Read-only file system",
			"echo core > .git/config": "Read-only file system", "touch .git/hooks/post-checkout": "Read-only file system",
			// A new name in a frozen directory is refused; a directory
			// above a protected path in a writable one is a mount point.
			"mv .config .config2": "Read-only file system", "mv .git/hooks .git/h2": "Read-only file system",
			"mv repo/.git repo/g2": "Device or resource busy", "echo x > repo/.git/config": "Read-only file system",
		}
		for attempt := range attempts {
			script.WriteString("{ " + attempt + "; } 2>&1 | sed 's|^|" + attempt + ": |'; [ -e .bashrc ] || [ -e bin ] || [ -e .config2 ] || [ -e .git/h2 ] || [ -e repo/g2 ] && echo 'MADE: " + attempt + "'\n")
		}
		script.WriteString("echo new > proj/new.txt && echo notes2 > notes.txt && mkdir .config/app/sub && echo STILL-WRITABLE\n")
		got := runIn(t, bwrap, p, h, script.String(), pooled)
		if strings.Contains(got, "MADE") || !strings.Contains(got, "STILL-WRITABLE") {
			t.Fatalf("pooled %v: want every protected path refused and the rest writable:\n%s", pooled, got)
		}
		for attempt, why := range attempts {
			if !slices.ContainsFunc(strings.Split(got, "\n"), func(l string) bool { return strings.HasPrefix(l, attempt+": ") && strings.Contains(l, why) }) {
				t.Errorf("pooled %v: %q: want refused with %q:\n%s", pooled, attempt, why, got)
			}
		}
		want := append(slices.Clone(before), "proj/new.txt", ".config/app/sub")
		slices.Sort(want)
		if after := listTree(t, h); !slices.Equal(after, want) {
			t.Errorf("pooled %v: the tree changed beyond the allowed writes:\n got %v\nwant %v", pooled, after, want)
		}
	}
}

// runIn runs script under bash in p, from dir, and returns its output.
func runIn(t *testing.T, bwrap string, p *Profile, dir, script string, pooled bool) string {
	t.Helper()
	out, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd := exec.Command("/bin/bash", "-c", script)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	cmd.Stdout, cmd.Stderr = out, out
	if pooled {
		pool := &Pool{}
		defer pool.Close()
		proc, err := pool.Start(bwrap, p, cmd)
		if err != nil {
			t.Fatal(err)
		}
		_ = proc.Wait()
	} else {
		Wrap(p, bwrap, cmd)
		_ = cmd.Run()
	}
	b, err := os.ReadFile(out.Name())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A hidden directory shows what the profile lists below it and nothing
// else: riot's state dir under a writable home shows the session's own
// results read-only, not the token, another session's results or the
// hosts' sockets; and it cannot be replaced by moving its parent aside.
func TestHiddenDirShowsOnlyWhatIsListed(t *testing.T) {
	bwrap := needBwrap(t)
	for _, pooled := range []bool{false, true} {
		h := homeTree(t)
		state := filepath.Join(h, "state")
		own := filepath.Join(state, "results", "s1")
		p := &Profile{Writable: true, WritePaths: []string{h}, ReadPaths: []string{own}, MaskedPaths: []string{state}}
		got := runIn(t, bwrap, p, h, `find state | sort; cat state/results/s1/a.txt; cat state/mcp-token state/results/s2/b.txt 2>/dev/null
{ echo x > state/results/s1/new; } 2>/dev/null && echo WROTE-OWN
mkdir state/x 2>/dev/null && echo WROTE-MASK
mv state state2 2>/dev/null && echo MOVED`, pooled)
		want := "state\nstate/results\nstate/results/s1\nstate/results/s1/a.txt\nMINE"
		if got != want {
			t.Errorf("pooled %v: the hidden dir showed\n%s\nwant\n%s", pooled, got, want)
		}
	}
}

// A sandboxed command has no controlling terminal: /dev/tty does not open
// and TIOCSTI on the user's terminal (its inherited stdin) fails, so
// nothing is pushed into the user's shell. Run with its stdio on a pty
// that is the caller's controlling terminal, as riot's is in a shell.
func TestNoControllingTerminal(t *testing.T) {
	bwrap := needBwrap(t)
	ws := t.TempDir()
	script := `import fcntl, os, termios
try:
    os.open("/dev/tty", os.O_RDWR)
    print("TTY-OPENED")
except OSError as e:
    print("tty:", e.strerror)
for fd in (0, 1, 2):
    try:
        fcntl.ioctl(fd, termios.TIOCSTI, b"X")
        print("INJECTED", fd)
    except OSError as e:
        print("tiocsti:", e.strerror)
`
	p := &Profile{Writable: true, WritePaths: []string{ws}}
	for _, pooled := range []bool{false, true} {
		ptmx, tty, err := pty.Open()
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("/usr/bin/python3", "-c", script)
		cmd.Dir = ws
		cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
		var out []byte
		done := make(chan []byte)
		go func() {
			var buf []byte
			b := make([]byte, 4096)
			for {
				n, err := ptmx.Read(b)
				buf = append(buf, b[:n]...)
				if err != nil {
					done <- buf
					return
				}
			}
		}()
		if pooled {
			out = runPooledOnTTY(t, bwrap, p, cmd, tty)
		} else {
			// bwrap starts in a session whose controlling terminal is
			// the pty, as under the user's shell.
			Wrap(p, bwrap, cmd)
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
			if err := cmd.Run(); err != nil {
				t.Errorf("pooled %v: %v", pooled, err)
			}
		}
		inq, err := unix.IoctlGetInt(int(tty.Fd()), unix.TIOCINQ)
		if err != nil {
			t.Fatal(err)
		}
		_ = tty.Close()
		got := string(<-done) + string(out)
		_ = ptmx.Close()
		if strings.Contains(got, "TTY-OPENED") || strings.Contains(got, "INJECTED") || inq != 0 ||
			strings.Count(got, "tiocsti:") != 3 || !strings.Contains(got, "tty: No such device or address") {
			t.Errorf("pooled %v: the command reached the terminal (%d bytes queued):\n%s", pooled, inq, got)
		}
	}
}

// runPooledOnTTY starts the pool from a helper process whose controlling
// terminal is tty: the test binary itself, as a pooled sandbox's init
// would inherit it from the plugin.
func runPooledOnTTY(t *testing.T, bwrap string, p *Profile, cmd *exec.Cmd, tty *os.File) []byte {
	t.Helper()
	// The pool's bwrap inherits the caller's session; make this process's
	// child the session leader holding the pty by running the pool in a
	// re-exec of the test binary.
	helper := exec.Command(os.Args[0], "-test.run=^TestPoolOnTTYHelper$")
	helper.Env = append(os.Environ(), "RIOT_TEST_POOL_TTY=1", "RIOT_TEST_BWRAP="+bwrap, "RIOT_TEST_WS="+p.WritePaths[0], "RIOT_TEST_SCRIPT="+cmd.Args[2])
	helper.Stdin, helper.Stdout, helper.Stderr = tty, tty, tty
	helper.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := helper.Run(); err != nil {
		t.Errorf("the pooled helper: %v", err)
	}
	return nil
}

// TestPoolOnTTYHelper runs a command through the pool with the pty as
// its stdio, in runPooledOnTTY's session.
func TestPoolOnTTYHelper(t *testing.T) {
	if os.Getenv("RIOT_TEST_POOL_TTY") != "1" {
		t.Skip("a helper of TestNoControllingTerminal")
	}
	ws := os.Getenv("RIOT_TEST_WS")
	cmd := exec.Command("/usr/bin/python3", "-c", os.Getenv("RIOT_TEST_SCRIPT"))
	cmd.Dir = ws
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	pool := &Pool{}
	defer pool.Close()
	proc, err := pool.Start(os.Getenv("RIOT_TEST_BWRAP"), &Profile{Writable: true, WritePaths: []string{ws}}, cmd)
	if err != nil {
		t.Fatal(err)
	}
	_ = proc.Wait()
}
