package main_test

import "syscall"

const nonblock = syscall.O_NONBLOCK

func mkfifo(path string) error { return syscall.Mkfifo(path, 0o600) }
