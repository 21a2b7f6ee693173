package sandbox

import (
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Pool keeps long-lived sandboxes, so that a command costs a fork and an
// exec inside namespaces already built instead of a bwrap start with every
// mount. A sandbox runs one command at a time, so no command ever sees
// another's processes, and a command reuses an idle sandbox only when
// their bubblewrap command lines are the same, mount for mount, and the
// paths mounted are still the files they were: a call's writable set
// never reaches a call with another profile, and a masked file replaced
// since (which the kernel unmounts from every other namespace) gets a new
// sandbox that masks it again. Between two commands the init empties the
// private /tmp (not the session's, which its commands share) and /dev/shm,
// and each command has an IPC namespace of its
// own, so a command finds nothing the previous one left there.
//
// A Pool is safe for concurrent use; the zero value is ready.
type Pool struct {
	// Started and Ended are told each sandbox's process group, for the
	// plugin's process guard; nil is nothing.
	Started, Ended func(pgid int)

	mu    sync.Mutex
	boxes []*box
	tick  uint64
	// broken is why long-lived sandboxes cannot run here (nested user
	// namespaces refused): commands then get a bwrap of their own.
	broken error
}

// maxIdleBoxes bounds the sandboxes kept without a running command, for
// a session whose approved paths give calls many profiles.
const maxIdleBoxes = 4

// startTimeout bounds a new sandbox's start, up to its init's first word.
const startTimeout = 10 * time.Second

// Start runs cmd in the long-lived sandbox of profile p, starting one if
// need be. It returns errNotShared, or the reason long-lived sandboxes
// cannot run here, when cmd must run under a bwrap of its own instead;
// a *LostError when the sandbox ended before the command started.
func (pl *Pool) Start(bwrap string, p *Profile, cmd *exec.Cmd) (*Process, error) {
	files, fds, err := cmdFiles(cmd)
	if err != nil {
		return nil, err
	}
	env := CommandEnv(p, cmd.Env)
	// A sandbox found dead before the command started costs nothing to
	// replace: one more try, in a new one.
	for try := 0; ; try++ {
		b, err := pl.get(bwrap, p, cmd.Dir)
		if err != nil {
			return nil, err
		}
		proc, err := b.run(cmd, env, files, fds)
		var lost *LostError
		if errors.As(err, &lost) && !lost.Started && try == 0 {
			continue
		}
		return proc, err
	}
}

// Close ends every sandbox and the commands in them.
func (pl *Pool) Close() {
	pl.mu.Lock()
	boxes := pl.boxes
	pl.boxes = nil
	pl.mu.Unlock()
	for _, b := range boxes {
		b.close()
	}
}

// Usable reports nil, or why long-lived sandboxes do not run here.
func (pl *Pool) Usable() error {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	return pl.broken
}

// get is the live sandbox of this profile, or a new one, with one more
// command counted as running in it.
func (pl *Pool) get(bwrap string, p *Profile, dir string) (*box, error) {
	args := mountArgs(p, dir)
	key := strings.Join(args, "\x00")
	ids := snapshot(watched(p, dir))
	pl.mu.Lock()
	defer pl.mu.Unlock()
	if pl.broken != nil {
		return nil, pl.broken
	}
	pl.tick++
	for _, b := range pl.boxes {
		if b.running > 0 || b.key != key || b.retired || b.dead() {
			continue
		}
		if !slices.Equal(b.ids, ids) {
			b.retired = true
			continue
		}
		b.running++
		b.used = pl.tick
		return b, nil
	}
	b, err := startBox(pl, bwrap, args, key, ids, forwarded(p), p.TempDir != "")
	if err != nil {
		if !errors.As(err, new(*SetupError)) {
			pl.broken = err
		}
		return nil, err
	}
	b.running, b.used = 1, pl.tick
	pl.boxes = append(pl.boxes, b)
	pl.trimLocked()
	return b, nil
}

// release counts a command out of b, and ends the sandboxes no longer
// needed: retired or dead ones without commands, and the idle ones past
// maxIdleBoxes, least recently used first.
func (pl *Pool) release(b *box) {
	pl.mu.Lock()
	b.running--
	pl.trimLocked()
	pl.mu.Unlock()
}

func (pl *Pool) trimLocked() {
	var keep []*box
	for _, b := range pl.boxes {
		if b.running == 0 && (b.retired || b.dead()) {
			go b.close()
			continue
		}
		keep = append(keep, b)
	}
	for {
		idle := 0
		oldest := -1
		for i, b := range keep {
			if b.running == 0 {
				idle++
				if oldest < 0 || b.used < keep[oldest].used {
					oldest = i
				}
			}
		}
		if idle <= maxIdleBoxes {
			break
		}
		go keep[oldest].close()
		keep = slices.Delete(keep, oldest, oldest+1)
	}
	pl.boxes = keep
}

// cmdFiles are the descriptors to pass for cmd and the numbers the
// command gets them as: only files, so the init need copy nothing.
func cmdFiles(cmd *exec.Cmd) ([]*os.File, []int, error) {
	var files []*os.File
	var fds []int
	for i, s := range []any{cmd.Stdin, cmd.Stdout, cmd.Stderr} {
		if s == nil {
			continue
		}
		f, ok := s.(*os.File)
		if !ok || f == nil {
			return nil, nil, errNotShared
		}
		files, fds = append(files, f), append(fds, i)
	}
	for i, f := range cmd.ExtraFiles {
		if f != nil {
			files, fds = append(files, f), append(fds, 3+i)
		}
	}
	if len(files) >= maxFDs || cmd.SysProcAttr != nil && (cmd.SysProcAttr.Setsid || cmd.SysProcAttr.Cloneflags != 0) {
		return nil, nil, errNotShared
	}
	return files, fds, nil
}

// watched are the paths whose identity a sandbox depends on: what it
// mounts and what it masks, and the start directory where the sandbox
// mounts it because nothing else shows it. A directory the profile shows
// is not one: commands in other directories share the sandbox.
func watched(p *Profile, dir string) []string {
	paths := slices.Concat(p.ReadPaths, p.WritePaths, p.ProtectedPaths, withDaemonMasks(p).MaskedPaths)
	if dir != "" && !shows(p, dir) {
		paths = append(paths, dir)
	}
	// The session's /tmp made again is another directory.
	if p.TempDir != "" {
		paths = append(paths, p.TempDir)
	}
	// A proxy restarted on the same path is another socket, which the
	// sandbox's bind does not reach.
	if forwarded(p) {
		paths = append(paths, p.Egress.Socket)
	}
	return paths
}

// pathID is what a path was when a sandbox mounted it: which file, or
// that there was none.
type pathID struct {
	path     string
	dev, ino uint64
	mode     uint32
	exists   bool
}

func snapshot(paths []string) []pathID {
	ids := make([]pathID, len(paths))
	for i, path := range paths {
		ids[i].path = path
		var st unix.Stat_t
		if unix.Lstat(path, &st) == nil {
			ids[i].dev, ids[i].ino, ids[i].mode, ids[i].exists = st.Dev, st.Ino, st.Mode&unix.S_IFMT, true
		}
	}
	return ids
}

// box is one long-lived sandbox: bwrap running this binary as its init.
type box struct {
	key string
	ids []pathID
	// running, used and retired are guarded by the pool's lock.
	running int
	used    uint64
	retired bool

	pool  *Pool
	bwrap *exec.Cmd
	watch *Watch
	pgid  int
	conn  *net.UnixConn
	// in is where the init's replies are read: by startBox, then read.
	in *msgBuf
	// gone closes when the init is gone and every command with it.
	gone chan struct{}
	// reading: read() runs, and reaps the box when its socket closes.
	reading bool

	mu      sync.Mutex
	next    uint64
	pending map[uint64]*Process
	lost    bool
}

// startBox starts bwrap with the sandbox's mounts and this binary as its
// init, and waits for the init to say that it can start commands. With
// egress the init starts the proxy forwarder first.
func startBox(pl *Pool, bwrap string, mounts []string, key string, ids []pathID, egress, sharedTmp bool) (*box, error) {
	conn, initEnd, err := socketpair()
	if err != nil {
		return nil, err
	}
	exe, err := os.Open("/proc/self/exe")
	if err != nil {
		_ = conn.Close()
		_ = initEnd.Close()
		return nil, err
	}
	defer exe.Close()
	// The init creates each command's PID namespace (CAP_SYS_ADMIN) and
	// then drops every other capability and what a command could inherit
	// (CAP_SETPCAP): only the init has one, in the sandbox's namespace.
	args := append(slices.Clone(mounts), "--cap-add", "CAP_SYS_ADMIN", "--cap-add", "CAP_SETPCAP",
		"--", "/proc/self/fd/"+strconv.Itoa(exeFD), initArg)
	cmd := exec.Command(bwrap, args...)
	cmd.Env = []string{initEnv + "=1"}
	if egress {
		cmd.Env = append(cmd.Env, egressEnv+"=1")
	}
	if sharedTmp {
		cmd.Env = append(cmd.Env, sharedTmpEnv+"=1")
	}
	cmd.ExtraFiles = []*os.File{initEnd, exe}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	// bwrap's own messages, should it fail to set the sandbox up, to say
	// in riot's words what failed. Commands have their own streams.
	// A file, not a writer, so that Wait never waits for the init to
	// close it.
	stderr := &setupStderr{done: make(chan struct{})}
	er, ew, err := os.Pipe()
	if err != nil {
		_ = conn.Close()
		_ = initEnd.Close()
		return nil, err
	}
	cmd.Stderr = ew
	watch, err := newWatch()
	if err != nil {
		_ = conn.Close()
		_ = initEnd.Close()
		_, _ = er.Close(), ew.Close()
		return nil, err
	}
	watch.attach(cmd)
	err = cmd.Start()
	watch.Started(err)
	// Only bwrap holds the init's end now: a bwrap that exits before its
	// init started closes it, which ends the wait below at once.
	_ = initEnd.Close()
	_ = ew.Close()
	go stderr.copy(er)
	if err != nil {
		_ = conn.Close()
		return nil, err
	}
	b := &box{key: key, ids: ids, pool: pl, bwrap: cmd, watch: watch, pgid: cmd.Process.Pid, conn: conn, in: newMsgBuf(), gone: make(chan struct{}), pending: map[uint64]*Process{}}
	if pl.Started != nil {
		pl.Started(b.pgid)
	}
	// A bwrap that hangs must not hold every later command.
	_ = conn.SetReadDeadline(time.Now().Add(startTimeout))
	var hello reply
	_, err = b.in.recv(conn, &hello)
	_ = conn.SetReadDeadline(time.Time{})
	if err != nil || hello.Err != "" {
		b.close()
		<-b.gone
		if hello.Err != "" {
			return nil, errors.New("a long-lived sandbox cannot run here: its init cannot start commands (" + hello.Err + ")")
		}
		<-stderr.done
		if setup := classifySetup(stderr.bytes()); setup.Path != "" {
			// This profile's mounts failed, not long-lived sandboxes.
			return nil, setup
		}
		return nil, errors.New("a long-lived sandbox cannot run here: bwrap exited before its init started")
	}
	b.reading = true
	go b.read()
	return b, nil
}

func (b *box) dead() bool {
	select {
	case <-b.gone:
		return true
	default:
		return false
	}
}

// close ends the sandbox: the init reads the end of its socket and exits,
// which ends its PID namespace; bwrap's group is killed to be sure.
func (b *box) close() {
	_ = b.conn.Close()
	if b.reading {
		<-b.gone
		return
	}
	b.reap()
}

// reap kills what is left of the sandbox, waits for bwrap and marks every
// command still pending as lost.
func (b *box) reap() {
	b.mu.Lock()
	if b.lost {
		b.mu.Unlock()
		return
	}
	b.lost = true
	pending := b.pending
	b.pending = nil
	b.mu.Unlock()
	_ = syscall.Kill(-b.pgid, syscall.SIGKILL)
	_ = b.bwrap.Wait()
	// The sandbox's first process, in a session of its own, outlives a
	// bwrap killed while it started.
	b.watch.End()
	if b.pool.Ended != nil {
		b.pool.Ended(b.pgid)
	}
	for _, p := range pending {
		p.end(reply{}, true)
	}
	close(b.gone)
}

// read delivers the init's replies until the init is gone.
func (b *box) read() {
	for {
		var r reply
		files, err := b.in.recv(b.conn, &r)
		closeAll(files)
		if err != nil {
			_ = b.conn.Close()
			b.reap()
			return
		}
		b.mu.Lock()
		p := b.pending[r.ID]
		if p != nil && (r.Exited || r.Err != "") {
			delete(b.pending, r.ID)
		}
		b.mu.Unlock()
		if p == nil {
			continue
		}
		if r.Exited || r.Err != "" {
			if r.Dirty {
				// What the command left in /tmp could not be removed: the
				// next command gets a new sandbox.
				b.retire()
			}
			p.end(r, false)
		} else {
			p.setPid(r.Pid)
		}
	}
}

// run asks the init to start cmd with env and waits until it has. The
// command is counted out of b when it ends, or at once when it never
// started.
func (b *box) run(cmd *exec.Cmd, env []string, files []*os.File, fds []int) (*Process, error) {
	req := request{Op: opStart, FDs: fds}
	raw := make([]int, 0, len(files)+1)
	sp := spec{Path: cmd.Path, Args: cmd.Args, Env: env, Dir: cmd.Dir}
	enc, err := json.Marshal(sp)
	if err != nil {
		b.pool.release(b)
		return nil, err
	}
	if len(enc) <= maxInlineSpec {
		// A memfd costs a file made, written, passed, read and freed.
		req.Spec = &sp
	} else {
		sf, err := specFile(enc)
		if err != nil {
			b.pool.release(b)
			return nil, err
		}
		defer sf.Close()
		raw = append(raw, int(sf.Fd()))
	}
	for _, f := range files {
		raw = append(raw, int(f.Fd()))
	}
	b.mu.Lock()
	if b.lost {
		b.mu.Unlock()
		// A sandbox being reaped is not yet gone: retire it, or the
		// caller's one more try would find it again.
		b.pool.mu.Lock()
		b.retired = true
		b.pool.mu.Unlock()
		b.pool.release(b)
		return nil, &LostError{}
	}
	b.next++
	p := &Process{box: b, id: b.next, started: make(chan struct{}), exited: make(chan struct{})}
	b.pending[p.id] = p
	b.mu.Unlock()
	req.ID = p.id
	if err := sendMsg(b.conn, req, raw); err != nil {
		b.forget(p)
		b.pool.release(b)
		return nil, &LostError{}
	}
	// The message carried copies of the descriptors; the files stay
	// referenced until it is sent, so no finalizer closes one early.
	runtime.KeepAlive(files)
	// The init answers at once; a call cancelled meanwhile still waits for
	// the answer, and its Proc then stops the command.
	<-p.started
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.startErr != "":
		return nil, errors.New("the command could not be started in the sandbox: " + p.startErr)
	case p.lost && p.pid == 0:
		return nil, &LostError{}
	}
	return p, nil
}

// retire keeps b from taking another command; it ends once idle.
func (b *box) retire() {
	b.pool.mu.Lock()
	b.retired = true
	b.pool.mu.Unlock()
}

func (b *box) forget(p *Process) {
	b.mu.Lock()
	delete(b.pending, p.id)
	b.mu.Unlock()
}

func (b *box) signal(id uint64, sig syscall.Signal) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.lost {
		return nil
	}
	if _, ok := b.pending[id]; !ok {
		return nil
	}
	return sendMsg(b.conn, request{Op: opSignal, ID: id, Sig: int(sig)}, nil)
}

// Process is a command running in a long-lived sandbox. It implements the
// SDK's Process: its group is the command's PID namespace, which ends
// with the command.
type Process struct {
	box     *box
	id      uint64
	started chan struct{}
	exited  chan struct{}

	mu       sync.Mutex
	pid      int
	startErr string
	status   syscall.WaitStatus
	lost     bool
	once     sync.Once
}

func (p *Process) setPid(pid int) {
	p.mu.Lock()
	p.pid = pid
	p.mu.Unlock()
	closeOnce(p.started)
}

func (p *Process) end(r reply, lost bool) {
	p.once.Do(func() {
		p.mu.Lock()
		p.startErr = r.Err
		p.status = syscall.WaitStatus(r.Status)
		p.lost = lost
		p.mu.Unlock()
		// The sandbox takes its next command once this one is counted
		// out, before anyone waiting on this one goes on.
		p.box.pool.release(p.box)
		closeOnce(p.started)
		close(p.exited)
	})
}

func closeOnce(c chan struct{}) {
	select {
	case <-c:
	default:
		close(c)
	}
}

// Pid is the command's pid inside the sandbox, for display: it names no
// process outside it.
func (p *Process) Pid() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.pid
}

// Signal sends sig to the command's process group; the command's PID
// namespace's init, bash, gets only SIGKILL and the signals it traps.
// Once the command has ended it does nothing.
func (p *Process) Signal(sig syscall.Signal) error { return p.box.signal(p.id, sig) }

// Wait waits for the command to end: nil for status 0, an *ExitError
// otherwise, a *LostError when the sandbox ended first.
func (p *Process) Wait() error {
	<-p.exited
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.lost:
		return &LostError{Started: true}
	case p.status == 0:
		return nil
	}
	return &ExitError{Status: p.status}
}

// Done closes when the command has ended.
func (p *Process) Done() <-chan struct{} { return p.exited }

// Sandboxed reports true: nothing the command started outlives it.
func (p *Process) Sandboxed() bool { return true }
