package bash

import (
	"bytes"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// pipeSize is the output pipe's capacity: larger than the default 64 KiB,
// so a fast writer blocks less often and each read carries more.
const pipeSize = 1 << 20

// growPipe raises the pipe's capacity; where the system refuses, the
// default stays, which is only slower.
func growPipe(w *os.File) {
	if sc, err := w.SyscallConn(); err == nil {
		_ = sc.Control(func(fd uintptr) {
			_, _ = unix.FcntlInt(fd, unix.F_SETPIPE_SZ, pipeSize)
		})
	}
}

// groupAlive reports whether process group pgid has a member that is not a
// zombie. Orphans whose new parent does not reap them stay zombies, and a
// zombie is dead.
func groupAlive(pgid int) bool {
	if syscall.Kill(-pgid, 0) != nil {
		return false
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return true
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		state, group, ok := procStat(pid)
		if ok && group == pgid && state != 'Z' && state != 'X' {
			return true
		}
	}
	return false
}

// procStat reads a process's state and process group from /proc.
func procStat(pid int) (state byte, pgid int, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	// "pid (comm) S ppid pgrp ...": comm may hold spaces and parentheses,
	// so parse from the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 3 || len(f[0]) != 1 {
		return 0, 0, false
	}
	pgid, err = strconv.Atoi(string(f[2]))
	return f[0][0], pgid, err == nil
}
