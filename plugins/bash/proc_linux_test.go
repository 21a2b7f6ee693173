package bash

import (
	"bytes"
	"os"
	"slices"
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

// recordingWriter keeps what it is given and the size of each write.
type recordingWriter struct {
	data  []byte
	sizes []int
}

func (w *recordingWriter) Write(p []byte) (int, error) {
	w.data = append(w.data, p...)
	w.sizes = append(w.sizes, len(p))
	return len(p), nil
}

// The output is copied whole and in order; reads start small and grow to
// maxRead once one fills the buffer, so a stream still moves in large
// pieces while a short command's call allocates no large buffer.
func TestCopyOutputGrowsItsReads(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = r.Close() }()
	growPipe(w)
	want := make([]byte, firstRead+maxRead+1000)
	if size, err := unix.FcntlInt(w.Fd(), unix.F_GETPIPE_SZ, 0); err != nil || size < len(want) {
		t.Fatalf("the pipe holds %d bytes (%v), not the %d this test writes before reading", size, err, len(want))
	}
	for i := range want {
		want[i] = byte(i % 251)
	}
	// All of it is in the pipe before the copy starts, so each read fills
	// the buffer it is given.
	if _, err := w.Write(want); err != nil {
		t.Fatal(err)
	}
	_ = w.Close()
	var out recordingWriter
	copyOutput(&out, r)
	if !bytes.Equal(out.data, want) {
		t.Fatalf("copied %d bytes, not the %d written in order", len(out.data), len(want))
	}
	if got := []int{firstRead, maxRead, 1000}; !slices.Equal(out.sizes, got) {
		t.Fatalf("reads of %v, want %v", out.sizes, got)
	}
}
