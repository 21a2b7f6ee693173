package sandbox

import "golang.org/x/sys/unix"

// openPidfd is a pidfd of pid, or -1 (a kernel before 5.3, or pid gone).
func openPidfd(pid int) int {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return -1
	}
	return fd
}

// killPidfd sends SIGKILL to the process of fd, which a pidfd names
// however long ago it was opened, and closes fd.
func killPidfd(fd int) {
	_ = unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
	_ = unix.Close(fd)
}
