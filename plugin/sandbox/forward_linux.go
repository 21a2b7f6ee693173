package sandbox

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// runForwarder is this binary as the forwarder, inside a sandbox. With no
// arguments it is a long-lived sandbox's, started by the init with the
// listening socket at fd 3, and serves until the sandbox ends. Otherwise
// args are the descriptor this binary came in as, then the command: it
// listens, starts the command with every other descriptor bwrap passed,
// and exits with the command's status once it ends.
func runForwarder(args []string) int {
	// Commands may not read or trace this process's memory.
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	if len(args) == 0 {
		f := os.NewFile(3, "riot-egress-listener")
		l, err := net.FileListener(f)
		_ = f.Close()
		if err != nil {
			return 1
		}
		forward(l)
		return 1
	}
	return forwardAround(args)
}

// forwardAround is the forwarder of a command in a bwrap of its own.
func forwardAround(args []string) int {
	exeFD, err := strconv.Atoi(args[0])
	if err != nil || exeFD < 3 || len(args) < 2 {
		fmt.Fprintln(os.Stderr, "riot: malformed proxy forwarder command line")
		return 125
	}
	// Only what the command was given passes on: the descriptors below
	// this binary's, which bwrap passed as the command's own.
	if unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC) != nil {
		return 125
	}
	_ = unix.Close(exeFD)
	var extra []*os.File
	for fd := 3; fd < exeFD; fd++ {
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err != nil {
			extra = append(extra, nil)
			continue
		}
		extra = append(extra, os.NewFile(uintptr(fd), "passed"))
	}
	l, err := net.Listen("tcp4", ProxyAddr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "riot: the command was not run: riot's proxy cannot be offered in the sandbox (%v). Tell the user; do not retry.\n", err)
		return 125
	}
	go forward(l)
	// A command that signals its process group (kill 0) signals this
	// process too; it must not end the command's sandbox under it. The
	// signals are caught, not ignored, so the command gets them with their
	// default action.
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2)
	go func() {
		for range sigs {
		}
	}()
	path, argv := args[1], args[1:]
	env := make([]string, 0, len(os.Environ()))
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, initEnv+"=") {
			env = append(env, kv)
		}
	}
	cmd := &exec.Cmd{Path: path, Args: argv, Env: env, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, ExtraFiles: extra}
	if !strings.Contains(path, "/") {
		// As bwrap's execvp would: a bare name is looked up on PATH.
		if found, err := exec.LookPath(path); err == nil {
			cmd.Path = found
		}
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "riot: %s: %v\n", path, errText(err))
		return 127
	}
	_ = cmd.Wait()
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	switch {
	case !ok:
		return 1
	case ws.Signaled():
		// As bwrap reports a command a signal ended.
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}

func errText(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno.Error()
	}
	return err.Error()
}

// forward relays each connection l accepts to riot's proxy, until l fails
// for good. A failure that may pass (out of descriptors) is waited out,
// longer each time in a row, as net/http's server does.
func forward(l net.Listener) {
	var delay time.Duration
	for {
		c, err := l.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			delay = min(max(2*delay, 5*time.Millisecond), time.Second)
			time.Sleep(delay)
			continue
		}
		delay = 0
		go relay(c)
	}
}

// relay copies both ways between a command's connection and one to the
// proxy, passing each side's end of writing on to the other.
func relay(c net.Conn) {
	defer c.Close()
	u, err := net.Dial("unix", egressSocket)
	if err != nil {
		return
	}
	defer u.Close()
	up := make(chan struct{})
	go func() {
		defer close(up)
		_, _ = io.Copy(u, c)
		_ = u.(*net.UnixConn).CloseWrite()
	}()
	_, _ = io.Copy(c, u)
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.CloseWrite()
	}
	<-up
}

// proxyListener is the forwarder's listening socket on the sandbox's
// loopback, made by a long-lived sandbox's init before it starts the
// forwarder, so that a command that connects at once finds it listening.
// Raw calls, blocking: the init keeps the runtime's poller out of its one
// thread.
func proxyListener() (*os.File, error) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	sa := &unix.SockaddrInet4{Port: proxyPort, Addr: [4]byte{127, 0, 0, 1}}
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1); err != nil {
		_ = unix.Close(fd)
		return nil, err
	}
	if err := unix.Bind(fd, sa); err != nil {
		_ = unix.Close(fd)
		return nil, err
	}
	if err := unix.Listen(fd, unix.SOMAXCONN); err != nil {
		_ = unix.Close(fd)
		return nil, err
	}
	return os.NewFile(uintptr(fd), "riot-egress-listener"), nil
}

// startForwarder starts the long-lived sandbox's forwarder with the
// listening socket: this binary again, without capabilities (the init
// dropped what a child could inherit), killed if the init's thread ends.
// Its pidfd tells the init when it ends.
func startForwarder() (*child, error) {
	lf, err := proxyListener()
	if err != nil {
		return nil, err
	}
	defer lf.Close()
	cmd := &exec.Cmd{Path: "/proc/self/exe", Args: []string{"riot-sandbox-egress", egressArg}, Env: []string{initEnv + "=1"}, ExtraFiles: []*os.File{lf}}
	pidfd := -1
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL, PidFD: &pidfd}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	if pidfd < 0 {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, errors.New("the kernel gives no pidfd of the forwarder")
	}
	return &child{cmd: cmd, pidfd: pidfd}, nil
}
