package diagnostics

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/riot-tools/riot/plugin"
	"github.com/riot-tools/riot/plugin/plugintest"
)

const toolName = "Diagnostics"

// testEnviron is the checkers' environment in tests: the test's own, with
// the network shut for go and cargo so that a missing module fails at once
// instead of being fetched, and with extra settings appended last so they
// win.
func testEnviron(extra ...string) []string {
	env := append(os.Environ(),
		"GOPROXY=off", "GOFLAGS=-mod=readonly", "GOTOOLCHAIN=local",
		"CARGO_NET_OFFLINE=true", "CARGO_TERM_COLOR=never",
	)
	return append(env, extra...)
}

// serve serves a Diagnostics tool with real process access and the given
// options; its workspace root is a fresh temporary directory.
func serve(t testing.TB, o options) *plugintest.Client {
	t.Helper()
	if o.environ == nil {
		o.environ = testEnviron()
	}
	return plugintest.Serve(t, []plugin.Handler{newHandler(o)}, plugintest.WithProc(plugintest.RealProc(t)))
}

func decodeUI(t testing.TB, res plugintest.Result) UIPayload {
	t.Helper()
	var ui UIPayload
	if err := json.Unmarshal(res.UI, &ui); err != nil {
		t.Fatalf("the UI payload should be JSON: %v (%s)", err, res.UI)
	}
	return ui
}

// writeFiles writes files (relative path to content) under root.
func writeFiles(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		mustWrite(t, filepath.Join(root, filepath.FromSlash(name)), content)
	}
}

// fakeChecker writes an executable shell script named name into a fresh
// directory and returns that directory, for use as PATH.
func fakeChecker(t testing.TB, name, script string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// fakeEnviron is an environment whose PATH holds only dirs and the system
// directories a shell script needs, never a real checker.
func fakeEnviron(dirs ...string) []string {
	return testEnviron("PATH=" + strings.Join(append(dirs, "/usr/bin", "/bin"), string(os.PathListSeparator)))
}

// requireCargo skips unless cargo actually runs in the tests' environment:
// a name on PATH is not enough, since rustup's shim is a cargo that fails
// in a HOME without a toolchain.
func requireCargo(t *testing.T) {
	t.Helper()
	requireRuns(t, "cargo", "the Rust tests need it (rustup with a default toolchain, or apt-get install cargo)")
}

// requireRuns skips unless `name --version` exits 0 in the tests' environment.
func requireRuns(t *testing.T, name, why string) {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s is not installed; %s", name, why)
	}
	cmd := exec.Command(path, "--version")
	cmd.Env = testEnviron()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("%s is on PATH (%s) but does not run (%v: %s); %s", name, path, err, firstLine(strings.TrimSpace(string(out))), why)
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// awaitOpen waits until a writer has opened the FIFO openFIFO made: the
// fake checker's child is running.
func awaitOpen(t *testing.T, opened <-chan *os.File) *os.File {
	t.Helper()
	select {
	case f := <-opened:
		t.Cleanup(func() { _ = f.Close() })
		return f
	case <-time.After(10 * time.Second):
		t.Fatal("the fake checker never opened the FIFO")
		return nil
	}
}

// waitClosed waits until every writer of the FIFO has closed it, which is
// how the tests see that a process the checker started is gone.
func waitClosed(t *testing.T, f *os.File) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		var buf [64]byte
		for {
			if _, err := f.Read(buf[:]); err != nil {
				return
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("a process the checker started still holds the FIFO open: its process group was not killed")
	}
}

// openFIFO makes a FIFO at path and opens it for reading in the background;
// the channel gets the file once a writer has opened it too.
func openFIFO(t *testing.T, path string) <-chan *os.File {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	opened := make(chan *os.File, 1)
	go func() {
		f, err := os.Open(path) // blocks until a writer opens it
		if err == nil {
			opened <- f
		}
	}()
	t.Cleanup(func() {
		// Unblock the open if no writer ever came: O_RDWR never blocks.
		if f, err := os.OpenFile(path, os.O_RDWR, 0); err == nil {
			_ = f.Close()
		}
		select {
		case f := <-opened:
			_ = f.Close()
		default:
		}
	})
	return opened
}
