package sandbox

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// SetupError is a sandbox bwrap could not set up for a command: bwrap
// exited before the command started, so the command did not run. Its text
// is for the model, in riot's words; bwrap's own is never the reason.
type SetupError struct {
	// Path is the path bwrap could not mount, or "".
	Path string
	// Namespaces: the kernel refused the namespaces the sandbox needs.
	Namespaces bool
}

func (e *SetupError) Error() string {
	const head = "The command was not run: the kernel sandbox could not be set up for it ("
	switch {
	case e.Path != "":
		return head + "it could not mount " + e.Path + "). Retry without naming that path, or with a path it resolves to; if the command needs it, tell the user, who can run it outside riot. Run `riot explain` to see the sandbox."
	case e.Namespaces:
		return head + "the kernel refused the namespaces it needs). Tell the user that unprivileged user namespaces must be enabled for riot's sandbox, or that [sandbox] mode = \"off\" runs commands unconfined; do not retry until then."
	}
	return head + "bwrap exited before the command started). Do not retry: tell the user that bubblewrap fails on this machine (`riot explain` shows the sandbox), and that reinstalling the bubblewrap package or [sandbox] mode = \"off\" lets commands run."
}

// classifySetup reads what bwrap wrote before it exited and says, in
// riot's terms, what failed. bwrap's messages are "bwrap: Can't ... PATH:
// strerror" for a mount it could not make.
func classifySetup(stderr []byte) *SetupError {
	e := &SetupError{}
	sc := bufio.NewScanner(bytes.NewReader(stderr))
	for sc.Scan() {
		msg, ok := strings.CutPrefix(sc.Text(), "bwrap: ")
		if !ok {
			continue
		}
		low := strings.ToLower(msg)
		if strings.Contains(low, "namespace") || strings.Contains(low, "uid map") {
			e.Namespaces = true
			return e
		}
		if strings.HasPrefix(msg, "Can't") {
			for _, f := range strings.Fields(msg) {
				if strings.HasPrefix(f, "/") {
					e.Path = strings.TrimRight(f, ":,")
					return e
				}
			}
		}
	}
	return e
}

// maxSetupStderr bounds what is kept of bwrap's own messages.
const maxSetupStderr = 8 << 10

// Watch follows a bwrap through its status pipe (--json-status-fd): bwrap
// writes the sandbox's first process there at once, and the command's exit
// code only if the sandbox was set up and the command exec'd. It tells a
// sandbox that failed to set up from a command that failed, and it ends
// the sandbox's first process with bwrap: that process is the PID
// namespace's init, in a session of its own (--new-session), so no signal
// to bwrap's group reaches it, and it ignores SIGTERM; bwrap's
// --die-with-parent misses it when bwrap is killed while it starts.
type Watch struct {
	r, w *os.File
	// first closes once bwrap named the sandbox's first process, or the
	// pipe closed without it; done once the pipe closed.
	first, done chan struct{}
	// started: bwrap reported the command's exit code.
	started bool
	// inner is a pidfd of the sandbox's first process, once known.
	mu    sync.Mutex
	inner int
	// wrapped is what Wrap returned, called once cmd.Start returned.
	wrapped func()
}

// WrapWatched is Wrap with a Watch: call Started after cmd.Start, and
// Check with Wait's error.
func WrapWatched(p *Profile, bin string, cmd *exec.Cmd) (*Watch, error) {
	w, err := newWatch()
	if err != nil {
		return nil, err
	}
	w.wrapped = Wrap(p, bin, cmd)
	w.attach(cmd)
	return w, nil
}

func newWatch() (*Watch, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	return &Watch{r: r, w: w, first: make(chan struct{}), done: make(chan struct{}), inner: -1}, nil
}

// attach passes the status pipe to bwrap's command line in cmd.
func (w *Watch) attach(cmd *exec.Cmd) {
	fd := 3 + len(cmd.ExtraFiles)
	cmd.ExtraFiles = append(cmd.ExtraFiles, w.w)
	// Before bwrap's other options; bwrap closes the descriptor in the
	// sandbox, so the command never sees it.
	cmd.Args = slices.Insert(slices.Clone(cmd.Args), 1, "--json-status-fd", strconv.Itoa(fd))
}

// Started is called once cmd.Start returned, with its error: the status is
// read until bwrap exits.
func (w *Watch) Started(startErr error) {
	_ = w.w.Close()
	if w.wrapped != nil {
		w.wrapped()
	}
	if startErr != nil {
		_ = w.r.Close()
		close(w.first)
		close(w.done)
		return
	}
	go w.read()
}

func (w *Watch) read() {
	defer close(w.done)
	defer w.r.Close()
	firstDone := sync.OnceFunc(func() { close(w.first) })
	defer firstDone()
	dec := json.NewDecoder(io.LimitReader(w.r, 64<<10))
	for {
		var st struct {
			ChildPid *int `json:"child-pid"`
			ExitCode *int `json:"exit-code"`
		}
		if dec.Decode(&st) != nil {
			return
		}
		if st.ChildPid != nil && *st.ChildPid > 0 {
			// bwrap has not reaped it yet: it writes this before it waits.
			if fd := openPidfd(*st.ChildPid); fd >= 0 {
				w.mu.Lock()
				w.inner = fd
				w.mu.Unlock()
			}
			firstDone()
		}
		if st.ExitCode != nil {
			w.started = true
		}
	}
}

// End kills the sandbox's first process, and with it the sandbox, should
// it have outlived bwrap; once bwrap has exited it is a no-op otherwise.
// Call it after bwrap's Wait. bwrap names that process before anything
// else, so this waits for no more than that line (or the pipe's end).
func (w *Watch) End() {
	<-w.first
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.inner >= 0 {
		killPidfd(w.inner)
		w.inner = -1
	}
}

// Check turns bwrap's Wait error into a *SetupError when bwrap exited by
// itself before the command started (known, when the caller knows what
// failed); any other error is returned as is. A bwrap killed by a signal
// (a timeout, a cancellation) is not one.
func (w *Watch) Check(waitErr error, known *SetupError) error {
	<-w.done
	var exit *exec.ExitError
	if w.started || !errors.As(waitErr, &exit) {
		return waitErr
	}
	if ws, ok := exit.Sys().(syscall.WaitStatus); !ok || ws.Signaled() {
		return waitErr
	}
	if known != nil {
		return known
	}
	return &SetupError{}
}

// setupStderr keeps the first maxSetupStderr bytes written to it.
type setupStderr struct {
	mu  sync.Mutex
	buf []byte
	// done closes when every writer closed the pipe copy reads.
	done chan struct{}
}

// copy keeps what r carries, and drains the rest so no writer blocks.
func (s *setupStderr) copy(r *os.File) {
	defer close(s.done)
	defer r.Close()
	_, _ = io.Copy(s, r)
}

func (s *setupStderr) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if room := maxSetupStderr - len(s.buf); room > 0 {
		s.buf = append(s.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (s *setupStderr) bytes() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.buf)
}
