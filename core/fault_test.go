package core_test

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/riot-tools/riot/core"
)

func wirefault(env ...string) core.PluginSpec {
	s := core.PluginSpec{Name: "wirefault", Path: bins.wirefault, Env: map[string]string{}}
	for i := 0; i+1 < len(env); i += 2 {
		s.Env[env[i]] = env[i+1]
	}
	return s
}

// Each way a plugin can break the wire protocol in a call gets its own
// Failed message: none reads "stopped responding" or treats the live
// plugin as crashed (which waited for it to exit, then killed it), none
// leaks the plugin's error text.
func TestWireFaults(t *testing.T) {
	h := newHost(t, withConfig(testConfig(t, bypass)), withPlugins(wirefault()))
	wantResult(t, runOne(t, h, "SplitUTF8", `{}`), core.StatusOK, "café au lait")
	pids := processesOf(bins.wirefault)
	cases := []struct {
		tool string
		want []string
	}{
		{"EarlyClose", []string{"partial output", "The EarlyClose tool ended its output without a final result, so riot cannot tell whether this call succeeded"}},
		{"StatusError", []string{"partial output", "The StatusError tool's plugin answered this call with an error (gRPC status Internal) instead of a result"}},
		{"HugeMessage", []string{"The HugeMessage tool sent a message over riot's 64.0 MiB per-message limit, so riot stopped reading this call's result."}},
		{"BadKind", []string{"The BadKind tool sent malformed output (a content chunk of unknown kind), so riot discarded this call's result"}},
		{"BadUTF8", []string{"The BadUTF8 tool sent malformed output (text that is not valid UTF-8, at byte 11 of its output)"}},
		{"CutUTF8", []string{"The CutUTF8 tool sent malformed output (text that is not valid UTF-8, at byte 3 of its output)"}},
		{"NoEvent", []string{"The NoEvent tool sent malformed output (an event of no known type)"}},
		{"PrepareError", []string{"The PrepareError tool failed while checking this call (its plugin answered with gRPC status Internal instead of a verdict; its text is in riot's log), so the call did not run."}},
		// Tools whose Prepare the host skips: their Call's stream must
		// begin with the answer, which must be the default one.
		{"ElidedNoAnswer", []string{"The ElidedNoAnswer tool sent malformed output (a stream that did not begin with the answer to the check of the input), so riot discarded this call's result"}},
		{"ElidedNotDefault", []string{"The ElidedNotDefault tool sent malformed output (an answer to the check of the input other than the default one its manifest declares)"}},
		{"ElidedTwice", []string{"The ElidedTwice tool sent malformed output (a second answer to the check of the input)"}},
		{"ElidedStatusError", []string{"The ElidedStatusError tool failed while checking this call (its plugin answered with gRPC status Internal instead of a verdict; its text is in riot's log), so the call did not run."}},
	}
	// Tools that honour an expected answer and lie about it: the first
	// call is prepared, the second carries the guess, and its stream
	// breaks the rule that a miss runs nothing.
	guessed := []struct {
		tool string
		want []string
	}{
		{"GuessRunsAnyway", []string{"The GuessRunsAnyway tool sent malformed output (output after an answer to the check of the input other than the one riot expected, on which the tool must not run), so riot discarded this call's result", "It may have partially run"}},
		{"GuessOkAfterMiss", []string{"The GuessOkAfterMiss tool sent malformed output (a call that reports a result after an answer to the check of the input other than the one riot expected, on which the tool must not run)", "It may have partially run"}},
		{"GuessTwice", []string{"The GuessTwice tool sent malformed output (a second answer to the check of the input)"}},
		{"GuessAnswerAfterOutput", []string{"The GuessAnswerAfterOutput tool sent malformed output (a stream that did not begin with the answer to the check of the input)"}},
	}
	for _, tc := range guessed {
		t.Run(tc.tool, func(t *testing.T) {
			wantResult(t, runOne(t, h, tc.tool, `{}`), core.StatusOK, "prepared call")
			r := runOne(t, h, tc.tool, `{}`)
			wantResult(t, r, core.StatusFailed, tc.want...)
			for _, bad := range []string{"ran anyway", "ran first", "prepared call"} {
				if strings.Contains(r.Text(), bad) {
					t.Fatalf("the result keeps the lying stream's output %q:\n%s", bad, r.Text())
				}
			}
		})
	}
	for _, tc := range cases {
		t.Run(tc.tool, func(t *testing.T) {
			r := runOne(t, h, tc.tool, `{}`)
			wantResult(t, r, core.StatusFailed, tc.want...)
			for _, bad := range []string{"stopped responding", "Retry", "internal detail", "what is this", "broken\n"} {
				if strings.Contains(r.Text(), bad) {
					t.Fatalf("the result says %q:\n%s", bad, r.Text())
				}
			}
		})
	}
	// The plugin lived through all of it, and serves valid output whole.
	wantResult(t, runOne(t, h, "SplitUTF8", `{}`), core.StatusOK, "café au lait")
	if after := processesOf(bins.wirefault); len(pids) != 1 || len(after) != 1 || pids[0] != after[0] {
		t.Fatalf("the plugin was restarted: %v, then %v", pids, after)
	}
}

// A manifest over the message limit, or refused with an error status,
// names what happened; the host's other plugins work.
func TestManifestFaults(t *testing.T) {
	cases := []struct{ fault, want string }{
		{"huge-manifest", "The wirefault plugin's tool list (its manifest) is over riot's 64.0 MiB message limit, so riot cannot list its tools."},
		{"manifest-error", "The wirefault plugin answered the request for its tool list with an error (gRPC status Internal) instead of a manifest."},
		{"hang-manifest", "The wirefault plugin started but did not list its tools within 300ms."},
	}
	for _, tc := range cases {
		t.Run(tc.fault, func(t *testing.T) {
			cfg := testConfig(t, bypass)
			if tc.fault == "hang-manifest" {
				cfg.Limits.StartTimeout = 300 * time.Millisecond
			}
			h := newHost(t, withConfig(cfg), withPlugins(wirefault("RIOT_WIREFAULT", tc.fault), testkit()))
			if got := problemOf(t, h, "wirefault"); !strings.Contains(got, tc.want) {
				t.Fatalf("problem = %q, want %q", got, tc.want)
			}
			wantResult(t, runOne(t, h, "Noop", `{}`), core.StatusOK, "ok")
		})
	}
}

// A tool whose input schema its meta-schema rejects fails each call with
// one correction, whether its manifest came from the plugin or from the
// cache, whose entry must then not be marked checked (a marked entry's
// schemas compile without the check); the plugin's other tools work.
func TestToolWithAnInvalidSchema(t *testing.T) {
	cfg := testConfig(t, bypass)
	for _, from := range []string{"the plugin", "the cache"} {
		h := newHost(t, withConfig(cfg), withPlugins(wirefault("RIOT_WIREFAULT", "bad-schema")))
		if pids := processesOf(bins.wirefault); from == "the cache" && len(pids) != 0 {
			t.Fatalf("the second host started the plugin to list its tools (pids %v): the cache was not used", pids)
		}
		wantResult(t, runOne(t, h, "BadSchema", `{}`), core.StatusFailed,
			"The BadSchema tool is broken: its input schema is invalid, so riot cannot check calls to it. Use another tool.")
		wantResult(t, runOne(t, h, "SplitUTF8", `{}`), core.StatusOK, "café au lait")
		if err := h.Close(); err != nil {
			t.Fatalf("%s: %v", from, err)
		}
	}
}

func problemOf(t *testing.T, h *core.Host, plugin string) string {
	t.Helper()
	for _, p := range h.Plugins() {
		if p.Name == plugin {
			return p.Problem
		}
	}
	t.Fatalf("plugin %s not listed", plugin)
	return ""
}

// An input too large for any plugin is refused up front, and the message
// does not invite a retry.
func TestOversizedInputIsRefusedUpFront(t *testing.T) {
	h := newHost(t, withConfig(testConfig(t, bypass)))
	big := `{"text":"` + strings.Repeat("a", 5<<20) + `"}`
	r := runOne(t, h, "Echo", big)
	wantResult(t, r, core.StatusFailed, "This call's input is 5.0 MiB; riot takes at most 4.0 MiB of input per call, so it was not run. Do not send it again as it is")
	if strings.Contains(r.Text(), "etry") {
		t.Fatalf("the message invites a retry:\n%s", r.Text())
	}
	wantResult(t, runOne(t, h, "Echo", `{"text":"small"}`), core.StatusOK, "small")
}

// hangingSpec is the testkit told to hang before its handshake while
// the file hang exists, writing its pid to the FIFO pid first.
func hangingSpec(t *testing.T) (spec core.PluginSpec, hang func(bool), fifo string) {
	t.Helper()
	dir := t.TempDir()
	fifo = filepath.Join(dir, "pid")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	spec = testkit()
	spec.Env = map[string]string{"RIOT_TESTKIT_HANG": dir}
	return spec, func(on bool) {
		if on {
			_ = os.WriteFile(filepath.Join(dir, "hang"), nil, 0o600)
		} else {
			_ = os.Remove(filepath.Join(dir, "hang"))
		}
	}, fifo
}

func readPID(t *testing.T, fifo string) int {
	t.Helper()
	f, err := os.Open(fifo)
	if err != nil {
		t.Error(err)
		return 0
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	pid, _ := strconv.Atoi(strings.TrimSpace(line))
	return pid
}

// A plugin that hangs before its handshake costs one start timeout, once:
// the failure is remembered for that binary, by the next host too, and
// other plugins' tools work meanwhile.
func TestHangBeforeHandshakeIsBoundedAndRemembered(t *testing.T) {
	cfg := testConfig(t, bypass)
	cfg.Limits.StartTimeout = 300 * time.Millisecond
	spec, hang, fifo := hangingSpec(t)
	hang(true)
	pids := make(chan int, 2)
	go func() { pids <- readPID(t, fifo) }()
	start := time.Now()
	h := newHost(t, withConfig(cfg), withPlugins(spec, wirefault()))
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("New took %s with a start timeout of 300ms", d)
	}
	want := "The testkit plugin did not complete the handshake within 300ms: " + bins.testkit + " hangs at start."
	if got := problemOf(t, h, "testkit"); !strings.Contains(got, want) {
		t.Fatalf("problem = %q, want %q", got, want)
	}
	wantResult(t, runOne(t, h, "SplitUTF8", `{}`), core.StatusOK, "café")
	h.Close()
	<-pids

	// The next host does not start it at all.
	var log lockedBuffer
	h2 := newHost(t, withConfig(cfg), withPlugins(spec, wirefault()), func(o *core.Options) {
		o.Logger = hclog.New(&hclog.LoggerOptions{Output: &log, Level: hclog.Debug})
	})
	if strings.Contains(log.String(), "testkit: starting plugin") {
		t.Fatalf("the second host started the plugin again:\n%s", log.String())
	}
	if got := problemOf(t, h2, "testkit"); !strings.Contains(got, want) || !strings.Contains(got, "does not start the binary again until it changes") {
		t.Fatalf("problem = %q, want the remembered failure", got)
	}
	h2.Close()

	// A changed binary is tried again: it writes its pid once more.
	bin := filepath.Join(t.TempDir(), "riot-tool-testkit")
	copyFile(t, bins.testkit, bin)
	spec.Path = bin
	hang(false)
	h3 := newHost(t, withConfig(cfg), withPlugins(spec))
	wantResult(t, runOne(t, h3, "Noop", `{}`), core.StatusOK, "ok")
}

// Close while a plugin is in its handshake kills it at once and leaves no
// process and no socket directory behind; the waiting call fails, saying
// riot is shutting down.
func TestCloseDuringStart(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	cfg := testConfig(t, bypass)
	cfg.Limits.StartTimeout = time.Minute
	spec, hang, fifo := hangingSpec(t)
	newHost(t, withConfig(cfg), withPlugins(spec)).Close() // caches the manifest, so New starts nothing
	hang(true)
	h := newHost(t, withConfig(cfg), withPlugins(spec))
	results := make(chan core.ToolResult, 1)
	go func() { results <- runOne(t, h, "Noop", `{}`) }()
	pid := readPID(t, fifo)
	if pid == 0 {
		t.Fatal("no pid from the starting plugin")
	}
	start := time.Now()
	h.Close()
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("Close took %s", d)
	}
	if err := syscall.Kill(pid, 0); err == nil && !zombie(pid) {
		t.Fatalf("the starting plugin %d outlived Close", pid)
	}
	wantResult(t, <-results, core.StatusFailed, "riot is shutting down, so the Noop call did not run.")
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Fatalf("Close left %s in the temporary directory", left[0].Name())
	}
}

func zombie(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return err != nil || bytes.Contains(data, []byte(") Z "))
}

// A plugin replaced while the host runs, and restarted after a crash,
// must not serve tools other than those the session listed.
func TestReplacedPluginMustServeTheListedTools(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "riot-tool-swap")
	copyFile(t, bins.testkit, bin)
	h := newHost(t, withConfig(testConfig(t, bypass)), withPlugins(core.PluginSpec{Name: "swap", Path: bin}))
	wantResult(t, runOne(t, h, "Crash", `{"how":"exit","code":3}`), core.StatusFailed, "exit status 3")
	// Another binary with other tools takes its place.
	copyFile(t, bins.wirefault, bin+".new")
	if err := os.Rename(bin+".new", bin); err != nil {
		t.Fatal(err)
	}
	wantResult(t, runOne(t, h, "Noop", `{}`), core.StatusFailed,
		"The swap plugin's binary "+bin+" was replaced while riot was running, and the new one serves different tools than this session listed.")
	// The same tools from a new binary are fine.
	copyFile(t, bins.testkit, bin+".new")
	if err := os.Rename(bin+".new", bin); err != nil {
		t.Fatal(err)
	}
	wantResult(t, runOne(t, h, "Noop", `{}`), core.StatusOK, "ok")
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o755); err != nil {
		t.Fatal(err)
	}
}

// A crashed plugin's socket is removed when the crash is handled, not
// left until the host closes.
func TestCrashedPluginsSocketIsRemoved(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	h := newHost(t, withConfig(testConfig(t, bypass)))
	for range 2 {
		wantResult(t, runOne(t, h, "Crash", `{"how":"exit","code":3,"read_only":true}`), core.StatusFailed, "exit status 3")
	}
	wantResult(t, runOne(t, h, "Noop", `{}`), core.StatusOK, "ok")
	sockets, _ := filepath.Glob(filepath.Join(tmp, "riot-*", "plugin*"))
	if len(sockets) != 1 {
		t.Fatalf("sockets: %v, want the live plugin's alone", sockets)
	}
}

// A plugin's panic stack goes to the log file, never to stderr at the
// default level; stderr gets one line saying where to look.
func TestPanicStackOnlyInTheLogFile(t *testing.T) {
	cfg := testConfig(t, bypass)
	cfg.Log.Level = "warn"
	var stderr lockedBuffer
	h := newHost(t, withConfig(cfg), func(o *core.Options) { o.Logger = nil; o.Stderr = &stderr })
	wantResult(t, runOne(t, h, "Crash", `{"how":"goroutine-panic"}`), core.StatusFailed, "exit status 2")
	wantResult(t, runOne(t, h, "Crash", `{"how":"call-panic"}`), core.StatusFailed, "internal error")
	h.Close()
	for _, s := range []string{"goroutine ", "panic:", "testkit: unrecoverable panic", "stack"} {
		if strings.Contains(stderr.String(), s) {
			t.Fatalf("stderr holds %q:\n%s", s, stderr.String())
		}
	}
	if !strings.Contains(stderr.String(), "plugin crashed; its output is in the log file") {
		t.Fatalf("stderr does not say the plugin crashed:\n%s", stderr.String())
	}
	log, _ := os.ReadFile(h.LogFile())
	for _, s := range []string{"testkit: unrecoverable panic", "goroutine ", "testkit: recovered panic"} {
		if !bytes.Contains(log, []byte(s)) {
			t.Fatalf("the log file lacks %q", s)
		}
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// core.New closes the log file it opened when it fails.
func TestFailedNewClosesTheLogFile(t *testing.T) {
	cfg := testConfig(t)
	cfg.Log.File = filepath.Join(t.TempDir(), "riot.log")
	_, err := core.New(context.Background(), core.Options{Config: cfg, SessionID: "not a valid id!", Stderr: &lockedBuffer{}})
	if err == nil {
		t.Fatal("New accepted an invalid session id")
	}
	fds, _ := os.ReadDir("/proc/self/fd")
	for _, fd := range fds {
		if target, _ := os.Readlink("/proc/self/fd/" + fd.Name()); target == cfg.Log.File {
			t.Fatalf("fd %s still holds the log file after New failed", fd.Name())
		}
	}
}
