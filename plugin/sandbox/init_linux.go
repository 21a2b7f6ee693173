package sandbox

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// A long-lived sandbox runs this binary again inside bwrap as its init: it
// starts each command the plugin asks for and reports how it ended. Each
// command gets PID and IPC namespaces of its own, nested in the sandbox's,
// with the command as its PID 1: when the command exits, the kernel ends
// everything it started, however it detached itself, as a sandbox of its
// own would. Creating them takes CAP_SYS_ADMIN in the sandbox's user
// namespace, which bwrap leaves the init and the init keeps in one thread,
// the only one that forks; a command gets no capability at all, as under a
// bwrap of its own.

const (
	// initArg and initEnv (egress.go) together mark this binary as a
	// sandbox's init.
	initArg = "__riot_sandbox_init"
	// probeArg is the init's first child, started as a command is: it
	// shows that the namespaces can be created and that it has no
	// capability.
	probeArg = "__riot_sandbox_probe"
	// initFD is the init's end of the socketpair; exeFD is this binary,
	// which bwrap runs through /proc/self/fd.
	initFD = 3
	exeFD  = 4
)

// The init takes over before main, in any binary that can sandbox (this
// package is linked into every plugin and into test binaries), so that the
// plugin's own executable serves as the init without a hook in its main.
func init() {
	if len(os.Args) < 2 || os.Getenv(initEnv) != "1" {
		return
	}
	switch {
	case len(os.Args) == 2 && os.Args[1] == initArg:
		os.Exit(runInit())
	case len(os.Args) == 2 && os.Args[1] == probeArg:
		os.Exit(probeCaps())
	case os.Args[1] == egressArg:
		os.Exit(runForwarder(os.Args[2:]))
	}
}

func runInit() int {
	// Every command forks from this thread, whose capabilities are set
	// for it below; init functions run on the main goroutine, which this
	// locks to the main thread for good.
	runtime.LockOSThread()
	// One P: the init's Go code runs on this thread alone, and with a
	// second, idle P the runtime's monitor neither takes this thread's P
	// while it waits in ppoll (for up to 10 ms) nor sleeps: it wakes every
	// 20 µs and more rarely after, some 30 times during a short command,
	// CPU that bash needs on a busy machine (BENCHMARKS.md, "An attached
	// Bash turn, hop by hop"). With one P it takes the P at its first look
	// and sleeps until this thread is back.
	runtime.GOMAXPROCS(1)
	// No descriptor of the init's may reach a command: the socket would
	// let it start processes outside its call, and whatever else the
	// plugin inherited is none of the command's business.
	_ = unix.Close(exeFD)
	if unix.CloseRange(initFD, ^uint(0), unix.CLOSE_RANGE_CLOEXEC) != nil {
		return 1
	}
	// Commands may not read or trace this process's memory or descriptors.
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	// The socket is read and written with blocking calls on this thread
	// alone: a message wakes this thread and nothing else, where the
	// runtime's poller would wake another thread to hand it over.
	if unix.SetNonblock(initFD, false) != nil {
		return 1
	}
	s := &initServer{fd: initFD, in: newMsgBuf(), procs: map[uint64]*child{}}
	if err := dropForCommands(); err != nil {
		s.reply(reply{Err: "its capabilities cannot be set: " + startErrText(err)})
		return 1
	}
	if err := probe(); err != nil {
		s.reply(reply{Err: startErrText(err)})
		return 1
	}
	// In proxy mode the forwarder listens before any command starts; a
	// sandbox without it would give commands no way out, so it does not
	// start.
	if os.Getenv(egressEnv) == "1" {
		fwd, err := startForwarder()
		if err != nil {
			s.reply(reply{Err: "riot's proxy cannot be offered in it: " + startErrText(err)})
			return 1
		}
		s.fwd = fwd
	}
	// The session's /tmp is shared by its commands on purpose: only
	// /dev/shm is the sandbox's own then.
	s.scratch = scratchDirs
	if os.Getenv(sharedTmpEnv) == "1" {
		s.scratch = []string{"/dev/shm"}
	}
	_ = os.Unsetenv(sharedTmpEnv)
	_ = os.Unsetenv(egressEnv)
	_ = os.Unsetenv(initEnv)
	s.reply(reply{})
	s.serve()
	// The plugin is gone: returning ends the sandbox's PID namespace,
	// and every command in it.
	return 0
}

// initServer runs on the init's one locked thread: it waits in a single
// ppoll for the plugin's next message and for the end of every running
// command, so that no goroutine, lock or hand-over between threads sits
// on a command's way in or out.
type initServer struct {
	fd int
	in *msgBuf
	// procs are the running commands, by request.
	procs map[uint64]*child
	// fwd is the proxy forwarder in proxy mode, or nil. Should it end, so
	// does the sandbox: its commands would have no way out.
	fwd *child
	// scratch are the directories emptied after each command.
	scratch []string
}

// child is a running command: its pid is its group, and pidfd becomes
// readable when it exits.
type child struct {
	cmd   *exec.Cmd
	pidfd int
}

func (s *initServer) serve() {
	for {
		ids, fds := s.pollSet()
		if _, err := unix.Ppoll(fds, nil, nil); err != nil {
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return
		}
		if s.fwd != nil && fds[len(fds)-1].Revents != 0 {
			_ = s.fwd.cmd.Wait()
			return
		}
		// Ends first: a command that exited is reported before the next
		// message is read, which may well be the plugin's next command.
		for i, id := range ids {
			if fds[i+1].Revents != 0 {
				s.finish(id)
			}
		}
		if fds[0].Revents == 0 {
			continue
		}
		var req request
		files, err := s.in.recvFD(s.fd, &req)
		if err != nil {
			// The plugin is gone, or sent what it never sends: either
			// way, stop rather than guess.
			return
		}
		switch req.Op {
		case opStart:
			s.start(req, files)
		case opSignal:
			closeAll(files)
			s.signal(req.ID, syscall.Signal(req.Sig))
		default:
			closeAll(files)
		}
	}
}

// pollSet is the socket, then each running command's pidfd, with the
// commands' ids in the same order, then the forwarder's pidfd if any.
func (s *initServer) pollSet() ([]uint64, []unix.PollFd) {
	ids := make([]uint64, 0, len(s.procs))
	fds := make([]unix.PollFd, 1, len(s.procs)+2)
	fds[0] = unix.PollFd{Fd: int32(s.fd), Events: unix.POLLIN}
	for id, c := range s.procs {
		ids = append(ids, id)
		fds = append(fds, unix.PollFd{Fd: int32(c.pidfd), Events: unix.POLLIN})
	}
	if s.fwd != nil {
		fds = append(fds, unix.PollFd{Fd: int32(s.fwd.pidfd), Events: unix.POLLIN})
	}
	return ids, fds
}

func (s *initServer) reply(r reply) {
	_ = sendMsgFD(s.fd, r)
}

func (s *initServer) start(req request, files []*os.File) {
	defer closeAll(files)
	streams := files
	var sp spec
	switch {
	case req.Spec != nil:
		sp = *req.Spec
	case len(files) == 0:
		s.reply(reply{ID: req.ID, Err: "malformed start request"})
		return
	default:
		var err error
		if sp, err = readSpec(files[0]); err != nil {
			s.reply(reply{ID: req.ID, Err: "malformed start request"})
			return
		}
		streams = files[1:]
	}
	if sp.Path == "" || len(req.FDs) != len(streams) {
		s.reply(reply{ID: req.ID, Err: "malformed start request"})
		return
	}
	cmd := &exec.Cmd{Path: sp.Path, Args: sp.Args, Env: sp.Env, Dir: sp.Dir}
	for i, f := range streams {
		n := req.FDs[i]
		switch {
		case n == 0:
			cmd.Stdin = f
		case n == 1:
			cmd.Stdout = f
		case n == 2:
			cmd.Stderr = f
		case n >= 3 && n < 3+maxFDs:
			for len(cmd.ExtraFiles) <= n-3 {
				cmd.ExtraFiles = append(cmd.ExtraFiles, nil)
			}
			cmd.ExtraFiles[n-3] = f
		}
	}
	pidfd := -1
	cmd.SysProcAttr = commandAttr(&pidfd)
	if err := cmd.Start(); err != nil {
		s.reply(reply{ID: req.ID, Err: startErrText(err)})
		return
	}
	s.procs[req.ID] = &child{cmd: cmd, pidfd: pidfd}
	s.reply(reply{ID: req.ID, Pid: cmd.Process.Pid})
}

// commandAttr puts a command in PID and IPC namespaces of its own, in its
// own process group, killed if the init (its thread) dies. The clone
// stores a pidfd of the command in pidfd (close-on-exec), which the init
// polls for the command's end; the probe shows that the kernel gives one.
func commandAttr(pidfd *int) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{
		Cloneflags: syscall.CLONE_NEWPID | syscall.CLONE_NEWIPC,
		Setpgid:    true,
		Pdeathsig:  syscall.SIGKILL,
		PidFD:      pidfd,
	}
}

// dropForCommands leaves this thread CAP_SYS_ADMIN alone, effective and
// permitted, and empties the sets a command's capabilities come from at
// exec: bounding, inheritable and ambient. Run as root or not, a command
// then has none.
func dropForCommands() error {
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return err
	}
	for c := 0; c <= unix.CAP_LAST_CAP; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
			return err
		}
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	data[0].Effective = 1 << unix.CAP_SYS_ADMIN
	data[0].Permitted = 1 << unix.CAP_SYS_ADMIN
	return unix.Capset(&hdr, &data[0])
}

// probeCaps is the probe's exit status: 0 when it has no capability in
// any set, as every command must not.
func probeCaps() int {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 1
	}
	found := 0
	for _, line := range strings.Split(string(b), "\n") {
		name, value, ok := strings.Cut(line, ":\t")
		if !ok || !strings.HasPrefix(name, "Cap") {
			continue
		}
		found++
		if strings.Trim(value, "0") != "" {
			return 1
		}
	}
	if found != 5 {
		return 1
	}
	return 0
}

// probe starts this binary as a command would be started, to check its
// capabilities and exit: where the kernel or bwrap refuses the nested
// namespaces, or a command would keep a capability, the plugin learns it
// before any command depends on it.
func probe() error {
	cmd := &exec.Cmd{Path: "/proc/self/exe", Args: []string{"riot-sandbox-probe", probeArg}, Env: []string{initEnv + "=1"}}
	pidfd := -1
	cmd.SysProcAttr = commandAttr(&pidfd)
	err := cmd.Run()
	if pidfd >= 0 {
		_ = unix.Close(pidfd)
	} else if err == nil {
		err = errors.New("the kernel gives no pidfd of a command")
	}
	return err
}

// finish reaps a command that exited and reports its end. It leaves the
// table as it is reaped, on this thread, so a signal never reaches a
// recycled pid.
func (s *initServer) finish(id uint64) {
	c := s.procs[id]
	delete(s.procs, id)
	_ = unix.Close(c.pidfd)
	_ = c.cmd.Wait()
	status := 0
	if ws, ok := c.cmd.ProcessState.Sys().(syscall.WaitStatus); ok {
		status = int(ws)
	}
	// The command's PID namespace is gone, and with it everything that
	// could still write here; the plugin sends the next command only
	// after this reply.
	dirty := !emptyDirs(s.scratch)
	s.reply(reply{ID: id, Exited: true, Status: status, Dirty: dirty})
}

// scratchDirs are the sandbox's own writable directories, which no
// command may find as the previous one left them.
var scratchDirs = []string{"/tmp", "/dev/shm"}

// emptyDirs removes what is in dirs, and reports whether everything that
// should go went. Only what is on each directory's own filesystem goes:
// the sandbox mounts the roots and other paths below /tmp when they live
// there, and neither those mounts nor what is in them are ever touched,
// nor the directories that lead to them, which every new sandbox has too.
func emptyDirs(dirs []string) bool {
	ok := true
	for _, dir := range dirs {
		var st unix.Stat_t
		if err := unix.Lstat(dir, &st); err != nil {
			ok = ok && errors.Is(err, unix.ENOENT)
			continue
		}
		if st.Mode&unix.S_IFMT != unix.S_IFDIR {
			ok = false
			continue
		}
		if cleared, _ := clearDir(dir, st.Dev); !cleared {
			ok = false
		}
	}
	return ok
}

// clearDir removes dir's entries on device dev, depth first. It reports
// whether all went that should, and whether dir leads to another mount
// (and so stays). Nothing else runs in the sandbox meanwhile, so nothing
// moves under it; it never follows a symlink. A directory the command made
// unreadable is made readable first: the command ran as this user.
func clearDir(dir string, dev uint64) (ok, holdsMount bool) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		_ = os.Chmod(dir, 0o700)
		if entries, err = os.ReadDir(dir); err != nil {
			return false, false
		}
	}
	ok = true
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		var st unix.Stat_t
		if err := unix.Lstat(path, &st); err != nil {
			ok = false
			continue
		}
		if st.Dev != dev {
			// A mount point: the sandbox's own.
			holdsMount = true
			continue
		}
		if st.Mode&unix.S_IFMT != unix.S_IFDIR {
			if unix.Unlink(path) != nil {
				ok = false
			}
			continue
		}
		sub, holds := clearDir(path, dev)
		switch {
		case holds:
			holdsMount = true
		case unix.Rmdir(path) != nil:
			ok = false
		}
		ok = ok && sub
	}
	return ok, holdsMount
}

// signal sends sig to the command's group. The group's leader is its PID
// namespace's init, which only SIGKILL and signals it handles reach; the
// rest of the group gets every signal.
func (s *initServer) signal(id uint64, sig syscall.Signal) {
	if c, ok := s.procs[id]; ok {
		_ = syscall.Kill(-c.cmd.Process.Pid, sig)
	}
}

// startErrText says why a command did not start, without the command's
// text: the plugin turns it into the model's message.
func startErrText(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno.Error()
	}
	return "the command could not be started"
}
