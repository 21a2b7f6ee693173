package diagnostics

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/riot-tools/riot/plugin"
	"github.com/riot-tools/riot/plugin/plugintest"
)

// TestFailures covers the failures that are for the model: each is Failed,
// its first line a short cause, the rest what to do. The checkers are fake
// scripts on PATH.
func TestFailures(t *testing.T) {
	t.Parallel()
	goMod := map[string]string{"go.mod": "module example.com/m\n\ngo 1.26\n", "a/a.go": "package a\n"}
	pyProject := map[string]string{"pyproject.toml": "", "m.py": ""}
	tsProject := map[string]string{"tsconfig.json": "{}", "a.ts": ""}
	tests := []struct {
		name    string
		files   map[string]string
		checker string // its name on PATH; "" for none at all
		script  string
		first   string   // the message's first line
		says    []string // fragments the rest must contain
		never   string   // a fragment it must not contain
		status  string
	}{
		{
			name: "go not installed", files: goMod,
			first:  "go is not installed.",
			says:   []string{"Diagnostics runs `go vet ./...` for the project in the workspace root (go.mod), and found no `go` on PATH.", "https://go.dev/doc/install"},
			status: statusNotInstalled,
		},
		{
			name: "tsc not installed says where it looked", files: tsProject,
			first:  "tsc is not installed.",
			says:   []string{"found no `tsc` in the project (node_modules/.bin) or on PATH", "npm install --save-dev typescript"},
			status: statusNotInstalled,
		},
		{
			name: "neither python checker installed", files: pyProject,
			first:  "Neither ruff nor pyright is installed.",
			says:   []string{"pip install ruff", "npm install -g pyright"},
			status: statusNotInstalled,
		},
		{
			name: "the checker crashes", files: goMod, checker: "go",
			script: `echo "go: cannot load module: something broke" >&2; exit 2`,
			first:  "go vet failed (exit status 2) without reporting problems in the code.",
			says:   []string{"stderr of go vet:\n  go: cannot load module: something broke"},
			status: statusFailed,
		},
		{
			name: "only the first 20 lines of stderr", files: goMod, checker: "go",
			script: `i=1; while [ $i -le 30 ]; do echo "line $i" >&2; i=$((i+1)); done; exit 1`,
			first:  "go vet failed (exit status 1) without reporting problems in the code.",
			says:   []string{"stderr of go vet (first 20 of 30 lines):\n  line 1\n", "  line 19\n  line 20"},
			never:  "line 21",
			status: statusFailed,
		},
		{
			name: "a crash with empty stderr shows stdout", files: pyProject, checker: "ruff",
			script: `echo "ruff: bad config"; exit 2`,
			first:  "ruff failed (exit status 2) without reporting problems in the code.",
			says:   []string{"(stderr was empty)\nstdout of ruff:\n  ruff: bad config"},
			never:  "It reported",
			status: statusFailed,
		},
		{
			name: "killed by a signal", files: goMod, checker: "go",
			script: `kill -9 $$`,
			first:  "go vet failed (killed by signal: killed) without reporting problems in the code.",
			says:   []string{"It printed nothing on stderr or stdout."},
			status: statusFailed,
		},
		{
			name: "unparseable output", files: pyProject, checker: "pyright",
			script: `echo "this is not JSON"; echo "pyright warning" >&2; exit 0`,
			first:  "pyright printed output Diagnostics could not read (exit status 0).",
			says:   []string{"stderr of pyright:\n  pyright warning"},
			status: statusFailed,
		},
		{
			name: "errors reported, then a failure with warnings only", files: map[string]string{"Cargo.toml": "[package]\nname = \"x\"\n"}, checker: "cargo",
			script: `echo '{"reason":"compiler-message","message":{"message":"unused","level":"warning","spans":[]}}'; echo "error: failed to run custom build command" >&2; exit 101`,
			first:  "cargo check failed (exit status 101) without reporting problems in the code.",
			says:   []string{"It reported 1 other problem before failing; they are in the UI payload.", "error: failed to run custom build command"},
			status: statusFailed,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var dirs []string
			if tc.checker != "" {
				dirs = append(dirs, fakeChecker(t, tc.checker, tc.script))
			}
			c := serve(t, options{environ: fakeEnviron(dirs...)})
			writeFiles(t, c.Cwd, tc.files)
			res := c.Call(toolName, map[string]any{})
			if res.Ok {
				t.Fatalf("want Failed, got Ok: %s", res.Text)
			}
			if got := firstLine(res.Message); got != tc.first {
				t.Errorf("first line = %q, want %q", got, tc.first)
			}
			for _, s := range tc.says {
				if !strings.Contains(res.Message, s) {
					t.Errorf("message should say %q:\n%s", s, res.Message)
				}
			}
			if tc.never != "" && strings.Contains(res.Message, tc.never) {
				t.Errorf("message should not contain %q:\n%s", tc.never, res.Message)
			}
			ui := decodeUI(t, res)
			if ui.Status != tc.status {
				t.Errorf("ui status = %q, want %q", ui.Status, tc.status)
			}
			if tc.status == statusNotInstalled && (ui.ExitCode != -1 || ui.Command[0] != checkers[ui.Checker].binary || ui.Diagnostics == nil) {
				t.Errorf("a checker that never ran has exit code -1, its bare name as command, and an empty list: %+v", ui)
			}
		})
	}
}

// TestTimeoutKillsTheProcessGroup: a checker that runs past the timeout is
// stopped with everything it started, and the result says it timed out.
func TestTimeoutKillsTheProcessGroup(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "fifo")
	opened := openFIFO(t, fifo)
	// A child in the background holds the FIFO open; the leader sleeps.
	bin := fakeChecker(t, "go", `echo '{"example.com/m/a": {"printf": [{"posn": "'"$PWD"'/a/a.go:1:1", "message": "early"}]}}'
sleep 60 >`+fifo+` &
exec sleep 60`)
	c := serve(t, options{timeout: time.Second, environ: fakeEnviron(bin)})
	writeFiles(t, c.Cwd, map[string]string{"go.mod": "module example.com/m\n", "a/a.go": "package a\n"})

	res := c.Call(toolName, map[string]any{})
	held := awaitOpen(t, opened)
	if res.Ok || firstLine(res.Message) != "Timed out after 1 s." {
		t.Fatalf("want Failed starting %q, got ok=%v %q", "Timed out after 1 s.", res.Ok, res.Message)
	}
	for _, s := range []string{
		"`go vet ./...` did not finish within 1 s, so Diagnostics stopped it and every process it started. The check is incomplete.",
		"Problems reported before it was stopped (1 of 1 shown; incomplete):\n  a/a.go:1:1: warning: early [printf]",
	} {
		if !strings.Contains(res.Message, s) {
			t.Errorf("message should say %q:\n%s", s, res.Message)
		}
	}
	if ui := decodeUI(t, res); ui.Status != statusTimedOut || len(ui.Diagnostics) != 1 {
		t.Errorf("ui = %+v", ui)
	}
	waitClosed(t, held)
}

// TestCancelKillsTheProcessGroup: when the caller gives up, the checker and
// what it started are stopped.
func TestCancelKillsTheProcessGroup(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "fifo")
	opened := openFIFO(t, fifo)
	bin := fakeChecker(t, "cargo", `sleep 60 >`+fifo+` &
exec sleep 60`)
	c := serve(t, options{environ: fakeEnviron(bin)})
	writeFiles(t, c.Cwd, map[string]string{"Cargo.toml": "[package]\nname = \"x\"\n"})

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.CallContext(ctx, toolName, map[string]any{})
	}()
	// The checker is running once its child has opened the FIFO.
	held := awaitOpen(t, opened)
	cancel()
	waitClosed(t, held)
	<-done
}

// TestHostDeadline: a host deadline nearer than the tool's timeout wins,
// one second early, so the tool still says it timed out.
func TestHostDeadline(t *testing.T) {
	t.Parallel()
	bin := fakeChecker(t, "go", "exec sleep 60")
	c := serve(t, options{environ: fakeEnviron(bin)})
	writeFiles(t, c.Cwd, map[string]string{"go.mod": "module example.com/m\n"})
	c.Timeout = 5 * time.Second
	res := c.Call(toolName, map[string]any{})
	var secs int
	if _, err := fmt.Sscanf(firstLine(res.Message), "Timed out after %d s.", &secs); res.Ok || err != nil || secs < 1 || secs > 4 {
		t.Fatalf("want a timeout at the host's 5 s deadline less a second (4 s, less any delay in starting), got ok=%v %q", res.Ok, firstLine(res.Message))
	}
	if strings.Contains(res.Message, "Problems reported before") {
		t.Errorf("a checker that reported nothing has no partial list: %s", res.Message)
	}
}

// TestCheckerEnvironment: the checker gets the configured environment,
// without riot's plugin-protocol variables, and runs in the project root.
func TestCheckerEnvironment(t *testing.T) {
	t.Parallel()
	bin := fakeChecker(t, "go", `echo "x.go:1:1: mark=$RIOT_DIAG_MARK protocol=$PLUGIN_PROTOCOL_VERSIONS dir=$PWD" >&2; exit 1`)
	c := serve(t, options{environ: append(fakeEnviron(bin), "RIOT_DIAG_MARK=on", "PLUGIN_PROTOCOL_VERSIONS=1")})
	writeFiles(t, c.Cwd, map[string]string{"go.mod": "module example.com/m\n", "sub/a.go": "package sub\n"})
	res := c.Call(toolName, map[string]any{"path": "sub"})
	if want := "x.go:1:1: error: mark=on protocol= dir=" + c.Cwd; !res.Ok || !strings.Contains(res.Text, want) {
		t.Fatalf("text = %q, want it to contain %q", res.Text, want)
	}
}

// TestDurationComesFromTheClock: the UI's duration is measured with the
// injected clock, which a FixedClock holds still.
func TestDurationComesFromTheClock(t *testing.T) {
	t.Parallel()
	bin := fakeChecker(t, "cargo", "sleep 0.2")
	c := plugintest.Serve(t, []plugin.Handler{newHandler(options{environ: fakeEnviron(bin)})},
		plugintest.WithProc(plugintest.RealProc(t)), plugintest.WithClock(plugintest.NewFixedClock(time.Unix(1e9, 0))))
	writeFiles(t, c.Cwd, map[string]string{"Cargo.toml": ""})
	res := c.Call(toolName, map[string]any{})
	if ui := decodeUI(t, res); !res.Ok || ui.DurationMS != 0 || ui.ExitCode != 0 {
		t.Fatalf("ok=%v ui=%+v: with a fixed clock the duration is 0", res.Ok, ui)
	}
}

// TestRunCancelled: run reports a cancellation as such, not as a timeout,
// and the outcome says so first.
func TestRunCancelled(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "fifo")
	opened := openFIFO(t, fifo)
	bin := fakeChecker(t, "cargo", "sleep 60 >"+fifo+" &\nexec sleep 60")
	dir := t.TempDir()
	p := &plan{Checker: checkerCargo, Binary: filepath.Join(bin, "cargo"), Dir: dir, DirShown: ".", Display: "cargo check"}
	env := &plugin.Env{Cwd: dir, Proc: plugintest.RealProc(t), Clock: plugin.SystemClock{}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan runResult, 1)
	go func() { done <- run(ctx, p, env, options{timeout: time.Minute}, nil) }()
	held := awaitOpen(t, opened)
	cancel()
	res := <-done
	if !res.Cancelled || res.TimedOut || res.Signal == "" {
		t.Fatalf("run = %+v: want cancelled, not timed out, ended by a signal", res)
	}
	waitClosed(t, held)
	out := outcome(p, res, env, newUI(p))
	if out.IsOk() || firstLine(out.Message()) != "Cancelled." {
		t.Fatalf("outcome = %q", out.Message())
	}
}

// TestStartFailures: a checker that vanished after detection is reported as
// not installed; one that cannot be executed says so.
func TestStartFailures(t *testing.T) {
	p := &plan{Checker: checkerGo, Binary: "/opt/go/bin/go", Display: "go vet ./...", DirShown: ".", Marker: "/w/go.mod"}
	env := &plugin.Env{Cwd: "/w"}
	out := outcome(p, runResult{StartErr: &os.PathError{Op: "fork/exec", Path: p.Binary, Err: syscall.ENOENT}, ExitCode: -1}, env, newUI(p))
	if out.IsOk() || firstLine(out.Message()) != "go is not installed." {
		t.Errorf("vanished binary: %q", out.Message())
	}
	out = outcome(p, runResult{StartErr: &os.PathError{Op: "fork/exec", Path: p.Binary, Err: syscall.EACCES}, ExitCode: -1}, env, newUI(p))
	if want := "go vet could not be started.\ngo is at /opt/go/bin/go but it is not executable."; out.IsOk() || !strings.HasPrefix(out.Message(), want) {
		t.Errorf("not executable: %q, want it to start %q", out.Message(), want)
	}
	out = outcome(p, runResult{StartErr: errors.New("fork: resource temporarily unavailable"), ExitCode: -1}, env, newUI(p))
	if !strings.Contains(out.Message(), "but it could not be run.") || strings.Contains(out.Message(), "resource") {
		t.Errorf("other start errors are described, not dumped: %q", out.Message())
	}
}
