package sessionhost

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// kernelPeer checks the process at the other end of nc, as the kernel
// names it (SO_PEERCRED): the host's own user, in the host's own mount,
// PID and user namespaces. Any doubt refuses.
func kernelPeer(nc net.Conn) (peer, error) {
	uc, ok := nc.(*net.UnixConn)
	if !ok {
		return peer{}, &PeerError{Msg: "the session host serves only Unix socket clients"}
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return peer{}, &PeerError{Msg: unknownPeer}
	}
	var cred *unix.Ucred
	var credErr error = &PeerError{Msg: unknownPeer}
	pidfd := -1
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
		// The peer's pidfd (Linux 6.5) pins the process: the checks of
		// /proc/PID below count only if it still lives after them, so that
		// its PID was not reused in between.
		if p, err := unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_PEERPIDFD); err == nil {
			pidfd = p
		}
	}); err != nil || credErr != nil {
		return peer{}, &PeerError{Msg: unknownPeer}
	}
	if pidfd >= 0 {
		defer func() { _ = unix.Close(pidfd) }()
	}
	if int(cred.Uid) != os.Getuid() {
		return peer{}, &PeerError{Msg: fmt.Sprintf("the session host refuses this client: it runs as another user (uid %d); run riot as the user who started the host", cred.Uid)}
	}
	// PID 0: the client is in a PID namespace the host cannot see into.
	if cred.Pid <= 0 {
		return peer{}, &PeerError{Msg: sandboxedPeer}
	}
	// A sandboxed command runs in new namespaces (bwrap); one that reaches
	// the socket anyway, through a bind mount or with the state dir
	// visible, is told apart by them.
	for _, ns := range []string{"mnt", "pid", "user"} {
		own, err := os.Readlink("/proc/self/ns/" + ns)
		if err != nil {
			return peer{}, &PeerError{Msg: unknownPeer}
		}
		theirs, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/%s", cred.Pid, ns))
		if err != nil || theirs != own {
			return peer{}, &PeerError{Msg: sandboxedPeer}
		}
	}
	p := peer{pid: int(cred.Pid), terminal: onTerminal(int(cred.Pid))}
	if pidfd >= 0 && unix.PidfdSendSignal(pidfd, 0, nil, 0) != nil {
		return peer{}, &PeerError{Msg: unknownPeer}
	}
	return p, nil
}

// sandboxedPeer is the refusal of a client in other namespaces.
const sandboxedPeer = "the session host refuses this client: it runs in another mount, PID or user namespace than the host (inside a sandbox); a session host serves only its user's riot outside any sandbox"

// onTerminal reports whether process pid is in the foreground of its
// controlling terminal and has that terminal as its stdin and stderr,
// where riot's prompter reads and writes. A process without one (a
// command, a server, a script's pipe) is not, whatever it says.
func onTerminal(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The command name, in parentheses, may hold anything: the fields
	// that matter follow its last ')': state ppid pgrp session tty_nr tpgid.
	i := strings.LastIndexByte(string(data), ')')
	if i < 0 {
		return false
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 6 {
		return false
	}
	pgrp, err1 := strconv.Atoi(f[2])
	ttyNr, err2 := strconv.ParseUint(f[4], 10, 32)
	tpgid, err3 := strconv.Atoi(f[5])
	if err := errors.Join(err1, err2, err3); err != nil || ttyNr == 0 || tpgid != pgrp {
		return false
	}
	for _, fd := range []int{0, 2} {
		var st unix.Stat_t
		if unix.Stat(fmt.Sprintf("/proc/%d/fd/%d", pid, fd), &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFCHR {
			return false
		}
		if unix.Major(st.Rdev) != unix.Major(ttyNr) || unix.Minor(st.Rdev) != unix.Minor(ttyNr) {
			return false
		}
	}
	return true
}
