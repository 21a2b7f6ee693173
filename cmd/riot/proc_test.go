package main_test

import (
	"bufio"
	"os"
	"os/exec"
	"syscall"
	"testing"
)

// proc is a riot process a test started, reaped exactly once.
type proc struct {
	*exec.Cmd
	// exited is closed once the process is reaped; err is set before, so
	// the cleanup and the test may both wait on it.
	exited chan struct{}
	err    error
}

// startProc starts cmd; the test's end kills it and waits for it.
func startProc(t *testing.T, cmd *exec.Cmd) *proc {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{Cmd: cmd, exited: make(chan struct{})}
	go func() { p.err = cmd.Wait(); close(p.exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-p.exited
	})
	return p
}

// wait returns what Wait returned, once the process is reaped.
func (p *proc) wait() error {
	<-p.exited
	return p.err
}

// makeFifo makes the FIFO at path through which a command tells the test
// it runs.
func makeFifo(t *testing.T, path string) string {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// readFifo returns the first line the command writes to fifo. It fails the
// test with output() if the process exits first.
func (p *proc) readFifo(t *testing.T, fifo string, output func() string) string {
	t.Helper()
	lines := make(chan string, 1)
	go func() {
		f, err := os.Open(fifo) // blocks until a writer opens it
		if err != nil {
			lines <- ""
			return
		}
		defer f.Close()
		line, _ := bufio.NewReader(f).ReadString('\n')
		lines <- line
	}()
	select {
	case line := <-lines:
		return line
	case <-p.exited:
		// Unblock the reader.
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
		t.Fatalf("riot exited before its command wrote to %s: %v\n%s", fifo, p.err, output())
	}
	return ""
}
