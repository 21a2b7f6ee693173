//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/riot-tools/riot/internal/bwrap"
	"github.com/riot-tools/riot/internal/proctest"
)

func needBwrap(t *testing.T) string {
	t.Helper()
	bwrap, err := bwrap.Find()
	if err != nil {
		if os.Getenv("RIOT_REQUIRE_SANDBOX") != "" {
			t.Fatalf("RIOT_REQUIRE_SANDBOX is set but %v", err)
		}
		t.Skipf("needs bubblewrap: %v", err)
	}
	return bwrap
}

// poolFixture is a pool over a workspace with a masked secret, ended with
// the test.
type poolFixture struct {
	bwrap string
	pool  *Pool
	ws    string
	out   string
}

func newPoolFixture(t *testing.T) *poolFixture {
	bwrap := needBwrap(t)
	dir := t.TempDir()
	f := &poolFixture{bwrap: bwrap, pool: &Pool{}, ws: filepath.Join(dir, "ws"), out: filepath.Join(dir, "out")}
	if err := os.MkdirAll(f.ws, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.ws, ".env"), []byte("SECRET"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.pool.Close)
	return f
}

func (f *poolFixture) profile(writable bool) *Profile {
	return &Profile{Writable: writable, WritePaths: []string{f.ws}, MaskedPaths: []string{filepath.Join(f.ws, ".env")}}
}

// start runs script in the profile with its output in a file.
func (f *poolFixture) start(t *testing.T, p *Profile, script string) (*Process, *os.File) {
	t.Helper()
	out, err := os.CreateTemp(filepath.Dir(f.out), "out")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = out.Close() })
	cmd := exec.Command("/bin/bash", "-c", script)
	cmd.Dir = f.ws
	cmd.Env = []string{"PATH=/usr/bin:/bin", "TMPDIR=" + filepath.Dir(f.out)}
	cmd.Stdout, cmd.Stderr = out, out
	proc, err := f.pool.Start(f.bwrap, p, cmd)
	if err != nil {
		t.Fatalf("start %q: %v", script, err)
	}
	return proc, out
}

// run runs script to its end: its output and Wait's error.
func (f *poolFixture) run(t *testing.T, p *Profile, script string) (string, error) {
	t.Helper()
	proc, out := f.start(t, p, script)
	err := proc.Wait()
	b, _ := os.ReadFile(out.Name())
	return string(b), err
}

func (f *poolFixture) boxes() []*box {
	f.pool.mu.Lock()
	defer f.pool.mu.Unlock()
	return append([]*box(nil), f.pool.boxes...)
}

// Commands of one profile run in one sandbox, each with its output and
// exit status, each in a PID namespace of its own, without the init's
// socket, and with the profile's mounts.
func TestPoolRunsCommandsInOneSandbox(t *testing.T) {
	f := newPoolFixture(t)
	p := f.profile(true)
	out, err := f.run(t, p, `echo "pid $$"; ls /proc/self/fd | tr '\n' ' '; echo; cat .env; echo; echo made > made; exit 3`)
	var exit *ExitError
	if !errors.As(err, &exit) || exit.Status.ExitStatus() != 3 {
		t.Fatalf("want exit status 3, got %v (%s)", err, out)
	}
	if !strings.HasPrefix(out, "pid 1\n") {
		t.Errorf("the command is not its PID namespace's init: %q", out)
	}
	// 0 (/dev/null), 1, 2, and the one ls opens: never the init's socket.
	if fds := strings.Fields(strings.Split(out, "\n")[1]); len(fds) != 4 {
		t.Errorf("the command inherited descriptors: %v", fds)
	}
	if strings.Contains(out, "SECRET") {
		t.Errorf("the masked file was shown: %q", out)
	}
	// The temporary directory is the private /tmp, whatever it was outside.
	if out, err := f.run(t, p, "echo $TMPDIR; mktemp"); err != nil || !strings.HasPrefix(out, "/tmp\n/tmp/") {
		t.Errorf("TMPDIR: %v %q", err, out)
	}
	// No capability in any set, as under a bwrap of its own.
	caps, err := f.run(t, p, "grep ^Cap /proc/self/status")
	if err != nil || strings.Count(caps, "0000000000000000") != 5 {
		t.Errorf("the command has capabilities: %v\n%s", err, caps)
	}
	if b, _ := os.ReadFile(filepath.Join(f.ws, "made")); string(b) != "made\n" {
		t.Errorf("the write profile's root was not writable: %q", b)
	}
	first := f.boxes()
	// In another directory the profile shows, too.
	if err := os.Mkdir(filepath.Join(f.ws, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/bin/pwd")
	cmd.Dir = filepath.Join(f.ws, "sub")
	proc, err := f.pool.Start(f.bwrap, p, cmd)
	if err != nil {
		t.Fatal(err)
	}
	if err := proc.Wait(); err != nil {
		t.Fatalf("pwd in sub: %v", err)
	}
	if again := f.boxes(); len(first) != 1 || len(again) != 1 || again[0] != first[0] {
		t.Fatalf("the second command did not reuse the sandbox: %d then %d", len(first), len(again))
	}
	// Ended commands are forgotten: a signal to one goes nowhere.
	b := first[0]
	b.mu.Lock()
	pending := len(b.pending)
	b.mu.Unlock()
	if pending != 0 {
		t.Fatalf("%d ended commands still pending", pending)
	}
}

// A call's writable set never reaches a call with another profile: the
// read-only profile gets a sandbox of its own, where the write fails.
func TestPoolKeepsProfilesApart(t *testing.T) {
	f := newPoolFixture(t)
	if out, err := f.run(t, f.profile(true), "echo a > a"); err != nil {
		t.Fatalf("write: %v %s", err, out)
	}
	out, err := f.run(t, f.profile(false), "echo b > b")
	if err == nil || !strings.Contains(out, "Read-only file system") {
		t.Fatalf("the read-only profile wrote: %v %q", err, out)
	}
	if _, err := os.Stat(filepath.Join(f.ws, "b")); !os.IsNotExist(err) {
		t.Fatal("the write reached the disk")
	}
	if n := len(f.boxes()); n != 2 {
		t.Fatalf("%d sandboxes for two profiles", n)
	}
}

// A masked file replaced outside the sandbox (which unmounts the mask in
// every other namespace) gets a new sandbox that masks it again; so does
// a protected path created since.
func TestPoolRebuildsWhenAMountedPathChanges(t *testing.T) {
	f := newPoolFixture(t)
	p := f.profile(true)
	p.ProtectedPaths = []string{filepath.Join(f.ws, "hooks")}
	if out, _ := f.run(t, p, "cat .env"); strings.Contains(out, "SECRET") {
		t.Fatalf("the secret was shown: %q", out)
	}
	env := filepath.Join(f.ws, ".env")
	if err := os.WriteFile(env+".new", []byte("NEWSECRET"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(env+".new", env); err != nil {
		t.Fatal(err)
	}
	if out, _ := f.run(t, p, "cat .env"); strings.Contains(out, "SECRET") {
		t.Fatalf("the replaced secret was shown: %q", out)
	}
	if err := os.Mkdir(filepath.Join(f.ws, "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := f.run(t, p, "echo x > hooks/h"); err == nil || !strings.Contains(out, "Read-only file system") {
		t.Fatalf("a protected path created since was writable: %v %q", err, out)
	}
}

// gone waits up to 3 s, on pidfds, for pids to end; it returns those left.
func gone(t *testing.T, pids []int) []int {
	t.Helper()
	var fds []unix.PollFd
	byFD := map[int32]int{}
	for _, pid := range pids {
		fd, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			continue // already gone
		}
		defer unix.Close(fd)
		fds = append(fds, unix.PollFd{Fd: int32(fd), Events: unix.POLLIN})
		byFD[int32(fd)] = pid
	}
	deadline := time.Now().Add(3 * time.Second)
	for len(fds) > 0 {
		left := time.Until(deadline)
		if left <= 0 {
			break
		}
		n, err := unix.Poll(fds, int(left.Milliseconds())+1)
		if err != nil && !errors.Is(err, unix.EINTR) {
			t.Fatal(err)
		}
		if n <= 0 {
			continue
		}
		var still []unix.PollFd
		for _, fd := range fds {
			if fd.Revents == 0 {
				fd.Revents = 0
				still = append(still, fd)
			}
		}
		fds = still
	}
	var left []int
	for _, fd := range fds {
		left = append(left, byFD[fd.Fd])
	}
	return left
}

// fifo is a named pipe in the workspace, where the sandbox shows it.
func (f *poolFixture) fifo(t *testing.T, name string) string {
	t.Helper()
	path := filepath.Join(f.ws, name)
	if err := unix.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// readLine blocks until a command writes a line to the fifo.
func readLine(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil || len(b) == 0 {
		t.Fatalf("reading %s: %v", path, err)
	}
}

func uniqueSleep() string {
	return fmt.Sprintf("%d.%d", 5000+os.Getpid()%1000, time.Now().UnixNano()%1_000_000)
}

// What a command detached (setsid, a double fork, an ignored SIGTERM)
// ends when the command does, while the sandbox lives on.
func TestPoolEndsWhatACommandDetached(t *testing.T) {
	f := newPoolFixture(t)
	ready, step := f.fifo(t, "ready"), f.fifo(t, "step")
	secs := uniqueSleep()
	// It waits for both sleeps to have exec'd: before that, setsid's shows
	// as `setsid sleep ...`.
	script := fmt.Sprintf("setsid sleep %s & (trap '' TERM; sleep %s1 &) & until pgrep -x -f 'sleep %s1' >/dev/null && pgrep -x -f 'sleep %s' >/dev/null; do :; done; echo > ready; cat step", secs, secs, secs, secs)
	proc, _ := f.start(t, f.profile(true), script)
	readLine(t, ready)
	pids := append(proctest.HostPIDs(t, "sleep", secs), proctest.HostPIDs(t, "sleep", secs+"1")...)
	if len(pids) != 2 {
		t.Fatalf("found %d of the two sleeps", len(pids))
	}
	if err := os.WriteFile(step, []byte("go\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := proc.Wait(); err != nil {
		t.Fatal(err)
	}
	if left := gone(t, pids); len(left) > 0 {
		t.Fatalf("the command's end left %v running", left)
	}
	if out, err := f.run(t, f.profile(true), "true"); err != nil {
		t.Fatalf("the sandbox did not outlive the command: %v %s", err, out)
	}
}

// Signal reaches the command's group; SIGKILL ends bash, its PID
// namespace's init, and everything with it, SIGTERM ignored or not.
func TestPoolSignalsTheGroup(t *testing.T) {
	f := newPoolFixture(t)
	ready := f.fifo(t, "ready")
	secs := uniqueSleep()
	proc, _ := f.start(t, f.profile(false), fmt.Sprintf("sleep %s1 & trap '' TERM; setsid sleep %s & until pgrep -x -f 'sleep %s1' >/dev/null && pgrep -x -f 'sleep %s' >/dev/null; do :; done; echo > ready; wait", secs, secs, secs, secs))
	readLine(t, ready)
	fg := proctest.HostPIDs(t, "sleep", secs+"1")
	pids := append(proctest.HostPIDs(t, "sleep", secs), fg...)
	if len(pids) != 2 {
		t.Fatalf("found %d of the two sleeps", len(pids))
	}
	if err := proc.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// The group's sleep ends with SIGTERM; bash, which ignores it, waits on.
	if left := gone(t, fg); len(left) > 0 {
		t.Fatal("SIGTERM did not reach the group")
	}
	select {
	case <-proc.Done():
		t.Fatal("bash ended by a SIGTERM it ignores")
	default:
	}
	if err := proc.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err := proc.Wait()
	var exit *ExitError
	if !errors.As(err, &exit) || !exit.Status.Signaled() || exit.Status.Signal() != syscall.SIGKILL {
		t.Fatalf("want killed by SIGKILL, got %v", err)
	}
	if left := gone(t, pids); len(left) > 0 {
		t.Fatalf("SIGKILL left %v running", left)
	}
	if err := proc.Signal(syscall.SIGKILL); err != nil {
		t.Fatalf("signalling an ended command: %v", err)
	}
}

// A sandbox that dies under a command fails it with the model's message,
// and the next command gets a new sandbox.
func TestPoolFailsClosedWhenTheSandboxDies(t *testing.T) {
	f := newPoolFixture(t)
	p := f.profile(true)
	proc, _ := f.start(t, p, "sleep 100")
	b := f.boxes()[0]
	if err := syscall.Kill(-b.pgid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err := proc.Wait()
	var lost *LostError
	if !errors.As(err, &lost) || !lost.Started || !strings.Contains(err.Error(), "may have partially run") {
		t.Fatalf("want a lost sandbox, got %v", err)
	}
	out, err := f.run(t, p, "echo again")
	if err != nil || out != "again\n" {
		t.Fatalf("the next command: %v %q", err, out)
	}
	if boxes := f.boxes(); len(boxes) != 1 || boxes[0] == b {
		t.Fatal("the next command did not get a new sandbox")
	}
}

// A command that finds its sandbox lost before it started runs in a new
// one, without the caller seeing it: here the sandbox is being reaped
// (lost, not yet gone) when the command asks for it.
func TestPoolReplacesASandboxLostBeforeTheCommand(t *testing.T) {
	f := newPoolFixture(t)
	p := f.profile(true)
	type result struct {
		out string
		err error
	}
	done := make(chan result, 1)
	// The hook is set before any sandbox runs, and told which to act on
	// through an atomic, so that the pool's goroutines read it safely.
	var target atomic.Int64
	f.pool.Ended = func(pgid int) {
		if int64(pgid) != target.Load() {
			return
		}
		out, err := os.CreateTemp(filepath.Dir(f.out), "out")
		if err != nil {
			done <- result{err: err}
			return
		}
		defer out.Close()
		cmd := exec.Command("/bin/bash", "-c", "echo again")
		cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = f.ws, []string{"PATH=/usr/bin:/bin"}, out, out
		proc, err := f.pool.Start(f.bwrap, p, cmd)
		if err == nil {
			err = proc.Wait()
		}
		b, _ := os.ReadFile(out.Name())
		done <- result{string(b), err}
	}
	if out, err := f.run(t, p, "true"); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	first := f.boxes()[0]
	target.Store(int64(first.pgid))
	if err := syscall.Kill(-first.pgid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil || r.out != "again\n" {
		t.Fatalf("the command did not get a new sandbox: %v %q", r.err, r.out)
	}
	for _, b := range f.boxes() {
		if b == first {
			t.Fatal("the lost sandbox is still in the pool")
		}
	}
}

// The command has capabilities only in its own user namespace: it cannot
// unmount a mask or remount the root writable.
func TestPoolMasksHoldAgainstTheCommand(t *testing.T) {
	f := newPoolFixture(t)
	out, _ := f.run(t, f.profile(false), "umount .env; umount -l .env; mount -o remount,rw /; unshare -m sh -c 'umount .env; cat .env'; cat .env; touch x")
	if strings.Contains(out, "SECRET") {
		t.Fatalf("the command unmasked the secret: %q", out)
	}
	if _, err := os.Stat(filepath.Join(f.ws, "x")); !os.IsNotExist(err) {
		t.Fatalf("the command wrote in a read-only profile: %q", out)
	}
}

// Idle sandboxes beyond maxIdleBoxes end, least recently used first.
func TestPoolBoundsIdleSandboxes(t *testing.T) {
	f := newPoolFixture(t)
	profile := func(i int) *Profile {
		p := f.profile(false)
		p.ReadPaths = []string{filepath.Join("/nonexistent", strconv.Itoa(i))}
		return p
	}
	for i := range maxIdleBoxes + 2 {
		if out, err := f.run(t, profile(i), "true"); err != nil {
			t.Fatalf("%v %s", err, out)
		}
		// The first profile stays the most recently used but one.
		if i > 0 {
			if out, err := f.run(t, profile(0), "true"); err != nil {
				t.Fatalf("%v %s", err, out)
			}
		}
	}
	boxes := f.boxes()
	if len(boxes) != maxIdleBoxes {
		t.Fatalf("%d idle sandboxes kept, want %d", len(boxes), maxIdleBoxes)
	}
	key0 := strings.Join(mountArgs(profile(0), f.ws), "\x00")
	key1 := strings.Join(mountArgs(profile(1), f.ws), "\x00")
	kept := map[string]bool{}
	for _, b := range boxes {
		kept[b.key] = true
	}
	if !kept[key0] || kept[key1] {
		t.Fatal("the sandboxes ended were not the least recently used")
	}
}

// The least recently used sandbox ends even when it is the pool's first.
func TestPoolEndsTheFirstSandboxWhenItIsTheOldest(t *testing.T) {
	f := newPoolFixture(t)
	profile := func(i int) *Profile {
		p := f.profile(false)
		p.ReadPaths = []string{filepath.Join("/nonexistent", strconv.Itoa(i))}
		return p
	}
	for i := range maxIdleBoxes + 1 {
		if out, err := f.run(t, profile(i), "true"); err != nil {
			t.Fatalf("%v %s", err, out)
		}
	}
	kept := map[string]bool{}
	for _, b := range f.boxes() {
		kept[b.key] = true
	}
	if len(kept) != maxIdleBoxes || kept[strings.Join(mountArgs(profile(0), f.ws), "\x00")] || !kept[strings.Join(mountArgs(profile(1), f.ws), "\x00")] {
		t.Fatalf("want the first sandbox, the least recently used, ended and the next %d kept", maxIdleBoxes)
	}
}

// cmdFiles takes only files, and commands the pool can start as asked.
func TestCmdFiles(t *testing.T) {
	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command("x")
	cmd.Stdout, cmd.ExtraFiles = f, []*os.File{nil, f}
	files, fds, err := cmdFiles(cmd)
	if err != nil || len(files) != 2 || !slices.Equal(fds, []int{1, 4}) {
		t.Fatalf("files %d fds %v err %v", len(files), fds, err)
	}
	for _, attr := range []*syscall.SysProcAttr{{Setsid: true}, {Cloneflags: syscall.CLONE_NEWNS}} {
		cmd := exec.Command("x")
		cmd.SysProcAttr = attr
		if _, _, err := cmdFiles(cmd); !errors.Is(err, errNotShared) {
			t.Errorf("%+v: want errNotShared, got %v", attr, err)
		}
	}
	cmd = exec.Command("x")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.ExtraFiles = make([]*os.File, maxFDs-2)
	for i := range cmd.ExtraFiles {
		cmd.ExtraFiles[i] = f
	}
	// With the spec's memfd, as many descriptors as a message carries.
	cmd.Stdin = f
	if _, _, err := cmdFiles(cmd); err != nil {
		t.Errorf("%d files: %v", maxFDs-1, err)
	}
	cmd.Stdout = f
	if _, _, err := cmdFiles(cmd); !errors.Is(err, errNotShared) {
		t.Errorf("%d files: want errNotShared, got %v", maxFDs, err)
	}
}

// A start directory the profile shows is not watched; one it does not is.
func TestWatchedStartDirectory(t *testing.T) {
	p := &Profile{WritePaths: []string{"/w"}}
	if got := watched(p, "/w/sub"); slices.Contains(got, "/w/sub") {
		t.Errorf("a shown directory is watched: %v", got)
	}
	if got := watched(p, "/elsewhere"); !slices.Contains(got, "/elsewhere") {
		t.Errorf("a directory only its own mount shows is not watched: %v", got)
	}
}

// A command whose streams are not files is not the pool's: it runs under
// a bwrap of its own.
func TestPoolRefusesStreamsThatAreNotFiles(t *testing.T) {
	f := newPoolFixture(t)
	cmd := exec.Command("/bin/true")
	cmd.Stdout = &strings.Builder{}
	if _, err := f.pool.Start(f.bwrap, f.profile(false), cmd); !errors.Is(err, errNotShared) {
		t.Fatalf("want errNotShared, got %v", err)
	}
}

// A command finds nothing of the previous one's in /tmp or /dev/shm, and
// while one runs, another of the same profile gets a sandbox of its own,
// where it cannot see the first one's processes.
func TestPoolCommandsLeaveNothingToTheNext(t *testing.T) {
	f := newPoolFixture(t)
	p := f.profile(true)
	if out, err := f.run(t, p, "mkdir -p /tmp/d/e && echo x > /tmp/d/e/f && chmod 000 /tmp/d/e /tmp/d && echo y > /dev/shm/s"); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	if out, err := f.run(t, p, "ls -A /tmp /dev/shm | tr '\\n' ' '"); err != nil || strings.Contains(out, "d ") || strings.Contains(out, " s ") {
		t.Fatalf("the next command found what the previous one left: %v %q", err, out)
	}
	if n := len(f.boxes()); n != 1 {
		t.Fatalf("%d sandboxes for commands one after the other", n)
	}
	// The workspace, which the sandbox mounts below its own /tmp, is
	// never emptied with it.
	if b, err := os.ReadFile(filepath.Join(f.ws, ".env")); err != nil || string(b) != "SECRET" {
		t.Fatalf("the workspace lost a file: %q %v", b, err)
	}
	secs := uniqueSleep()
	ready := f.fifo(t, "ready")
	bg, _ := f.start(t, p, "sleep "+secs+" & echo > ready; wait")
	readLine(t, ready)
	out, err := f.run(t, p, "cat /proc/[0-9]*/cmdline | tr '\\0' ' '")
	if err != nil || strings.Contains(out, "sleep "+secs) {
		t.Fatalf("a command saw another's processes: %v %q", err, out)
	}
	if n := len(f.boxes()); n != 2 {
		t.Fatalf("%d sandboxes for two commands at once", n)
	}
	_ = bg.Signal(syscall.SIGKILL)
	_ = bg.Wait()
}

// emptyDirs empties what it can, unreadable directories included, and
// says when it could not.
func TestEmptyDirs(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a", "b", "f"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{filepath.Join(dir, "a", "b"), filepath.Join(dir, "a")} {
		if err := os.Chmod(d, 0); err != nil {
			t.Fatal(err)
		}
	}
	if !emptyDirs([]string{dir, filepath.Join(dir, "missing")}) {
		t.Fatal("emptyDirs failed")
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Fatalf("left %v", left)
	}
	// A symlink goes, never what it points to.
	if err := os.Symlink("/proc/self", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if !emptyDirs([]string{dir}) {
		t.Fatal("emptyDirs failed on a symlink")
	}
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if emptyDirs([]string{file}) {
		t.Fatal("a path that is not a directory was reported emptied")
	}
}

// A command's environment arrives whole whether it travels in the start
// request (small) or in a memfd (too large for one): the same command
// sees the same value, byte for byte, either way.
func TestPoolPassesSmallAndLargeEnvironments(t *testing.T) {
	f := newPoolFixture(t)
	p := f.profile(true)
	for _, size := range []int{10, maxInlineSpec + 1000, maxPacket + 1000} {
		value := strings.Repeat("v'\"$x", size/5+1)[:size]
		out, err := os.CreateTemp(filepath.Dir(f.out), "out")
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("/bin/bash", "-c", `printf %s "$BIG"`)
		cmd.Dir = f.ws
		cmd.Env = []string{"PATH=/usr/bin:/bin", "BIG=" + value}
		cmd.Stdout, cmd.Stderr = out, out
		proc, err := f.pool.Start(f.bwrap, p, cmd)
		if err != nil {
			t.Fatalf("a %d-byte variable: %v", size, err)
		}
		if err := proc.Wait(); err != nil {
			t.Fatalf("a %d-byte variable: %v", size, err)
		}
		got, _ := os.ReadFile(out.Name())
		_ = out.Close()
		if string(got) != value {
			t.Fatalf("a %d-byte variable arrived as %d bytes", size, len(got))
		}
	}
	if n := len(f.boxes()); n != 1 {
		t.Fatalf("the commands ran in %d sandboxes, want one", n)
	}
}
