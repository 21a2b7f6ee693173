package bash

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

func TestGrowPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = r.Close(); _ = w.Close() }()
	growPipe(w)
	size, err := unix.FcntlInt(w.Fd(), unix.F_GETPIPE_SZ, 0)
	if err != nil {
		t.Fatal(err)
	}
	if size < pipeSize {
		t.Fatalf("pipe holds %d bytes, want %d", size, pipeSize)
	}
}

func TestProcStat(t *testing.T) {
	state, pgid, ok := procStat(os.Getpid())
	if !ok || state != 'R' && state != 'S' || pgid != unix.Getpgrp() {
		t.Fatalf("own stat: %c %d %v (pgrp %d)", state, pgid, ok, unix.Getpgrp())
	}
	if _, _, ok := procStat(1 << 30); ok {
		t.Fatal("a pid that cannot exist has a stat")
	}
	if !groupAlive(unix.Getpgrp()) {
		t.Fatal("this test's own group is alive")
	}
}
