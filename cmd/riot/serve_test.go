package main_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/riot-tools/riot/internal/proctest"
)

// hostMeta is the description a session host writes beside its socket.
type hostMeta struct {
	Pid    int    `json:"pid"`
	Socket string `json:"socket"`
}

// startHost starts `riot serve --session S` in the background and returns
// its description; the test stops it, and fails if it outlives that.
func startHost(t *testing.T, e *env, session string, args ...string) hostMeta {
	t.Helper()
	e.riot("", append([]string{"serve", "--session", session}, args...)...).want(t, 0, "A session host serves "+session)
	return startHostMeta(t, e)
}

// startHostMeta reads the description of the one running host; the test
// kills it at the end if it still runs.
func startHostMeta(t *testing.T, e *env) hostMeta {
	t.Helper()
	metas, _ := filepath.Glob(filepath.Join(e.state, "riot", "hosts", "*.json"))
	if len(metas) != 1 {
		t.Fatalf("want one host description, found %v", metas)
	}
	data, err := os.ReadFile(metas[0])
	if err != nil {
		t.Fatal(err)
	}
	var m hostMeta
	if err := json.Unmarshal(data, &m); err != nil || m.Pid <= 0 {
		t.Fatalf("host description %s: %v", data, err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(m.Pid, syscall.SIGKILL)
		proctest.WaitExit(m.Pid, 10*time.Second)
	})
	return m
}

// allowBash lets Bash run without asking (its commands write FIFOs outside
// the workspace), from the user's config, so that the host and its clients
// share it.
func allowBash(e *env, extra string) {
	if !strings.Contains(extra, "[serve]") {
		extra += leakGuard
	}
	// The tests follow commands by their host pids, so the kernel sandbox,
	// whose PID namespace renumbers them, is off (sandbox_test.go has its
	// own orphan tests).
	e.userConfig("[permissions]\nmode = \"bypassPermissions\"\n" + extra + "\n[sandbox]\nmode = \"off\"\n")
}

// leakGuard bounds the life of a host a killed test run could not stop.
const leakGuard = "\n[serve]\nidle_timeout = \"5m\"\n"

// bgJob starts a background job through `riot call --json` and returns its
// pid and the start message.
func bgJob(t *testing.T, e *env, session, command string) (int, string) {
	t.Helper()
	r := e.riot("", "call", "--json", "--session", session, "Bash", fmt.Sprintf(`{"command":%q,"run_in_background":true}`, command))
	r.want(t, 0, "Started background job bash_1")
	var out struct {
		Content string          `json:"content"`
		UI      json.RawMessage `json:"ui"`
	}
	var ui struct {
		Pid int `json:"pid"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || json.Unmarshal(out.UI, &ui) != nil || ui.Pid <= 0 {
		t.Fatalf("cannot read the job's pid from %s", r.stdout)
	}
	return ui.Pid, out.Content
}

// A background job started in one invocation is read in the next, through
// the session host; --stop kills it with the host's plugins, and --list
// shows the host while it runs.
func TestSessionHostKeepsBackgroundJobsAcrossInvocations(t *testing.T) {
	e := newEnv(t)
	allowBash(e, "")
	m := startHost(t, e, "S")
	e.riot("", "serve", "--list").want(t, 0, "S ", fmt.Sprint(m.Pid), e.ws)
	jobPID, msg := bgJob(t, e, "S", "echo job-started; exec sleep 600")
	if !strings.Contains(msg, "It keeps running across riot invocations of this session") {
		t.Fatalf("the start message should say the job lives with the session host: %q", msg)
	}
	r := e.riot(`[{"type":"tool_use","id":"o1","name":"BashOutput","input":{"bash_id":"bash_1"}}]`, "run", "--session", "S")
	r.want(t, 0, "Job bash_1 is running")
	if r.stderr != "" {
		t.Fatalf("an attached run should print nothing on stderr: %q", r.stderr)
	}
	// An unknown tool is riot call's usage error, with or without a host.
	e.riot("", "call", "--session", "S", "Nope").want(t, 2, `there is no enabled tool named "Nope"`)
	e.riot("", "serve", "--stop", "--session", "S").want(t, 0, "Stopped the session host of S")
	if !proctest.WaitExit(m.Pid, 10*time.Second) || !proctest.WaitExit(jobPID, 10*time.Second) {
		t.Fatal("the host and its job should be gone once --stop returns")
	}
	if _, err := os.Stat(m.Socket); !os.IsNotExist(err) {
		t.Fatalf("the socket should be removed: %v", err)
	}
	// Without a host, the next invocation runs the turn itself.
	e.riot(`[{"type":"tool_use","id":"o2","name":"BashOutput","input":{"bash_id":"bash_1"}}]`, "run", "--session", "S").want(t, 0, `There is no background job \"bash_1\"`)
	e.riot("", "serve", "--stop", "--session", "S").want(t, 1, "no session host serves session S")
}

// Without a host, a job's start message says it ends with the invocation.
func TestOneShotJobSaysItEndsWithTheInvocation(t *testing.T) {
	e := newEnv(t)
	allowBash(e, "")
	pid, msg := bgJob(t, e, "S", "exec sleep 600")
	if !strings.Contains(msg, "when that invocation exits") {
		t.Fatalf("the start message should say the job ends with this invocation: %q", msg)
	}
	if !proctest.WaitExit(pid, 10*time.Second) {
		t.Fatal("a one-shot invocation's job should end with it")
	}
}

// A host with no turn for its idle timeout exits, killing its jobs, and
// leaves no socket.
func TestSessionHostIdleExit(t *testing.T) {
	e := newEnv(t)
	allowBash(e, "\n[serve]\nidle_timeout = \"1s\"\n")
	m := startHost(t, e, "S")
	jobPID, _ := bgJob(t, e, "S", "exec sleep 600")
	if !proctest.WaitExit(m.Pid, 20*time.Second) {
		t.Fatal("the host should exit after its idle timeout")
	}
	if !proctest.WaitExit(jobPID, 10*time.Second) {
		t.Fatal("the host's idle exit should kill its background jobs")
	}
	if _, err := os.Stat(m.Socket); !os.IsNotExist(err) {
		t.Fatalf("an idle exit should remove the socket: %v", err)
	}
}

// Twenty concurrent clients of one host are served turn by turn: each
// State call reads what the one before it wrote, so the values read are
// every value written exactly once, and no update is lost.
func TestSessionHostServesConcurrentClientsInTurn(t *testing.T) {
	e := newEnv(t)
	e.userConfig(fmt.Sprintf("plugin_dirs = [%q]\n\n[permissions]\nmode = \"bypassPermissions\"\n\n[plugins.testkit]\nenabled = true\n%s", filepath.Dir(bin.testkit), leakGuard))
	startHost(t, e, "S")
	const n = 20
	for i := range n {
		if err := os.Mkdir(filepath.Join(e.ws, fmt.Sprintf("d%d", i)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	results := make([]result, n)
	for i := range n {
		wg.Go(func() {
			turn := fmt.Sprintf(`[{"type":"tool_use","id":"s","name":"State","input":{"set":"v%d"}},{"type":"tool_use","id":"b","name":"Bash","input":{"command":%q}}]`, i, "cd "+filepath.Join(e.ws, fmt.Sprintf("d%d", i)))
			cmd := e.command(turn, "run", "--session", "S")
			out, err := cmd.Output()
			results[i] = result{stdout: string(out)}
			if err != nil {
				results[i].code = 1
			}
		})
	}
	wg.Wait()
	seen := map[string]int{}
	for i, r := range results {
		var blocks []struct {
			ToolUseID string `json:"tool_use_id"`
			Content   string `json:"content"`
			IsError   bool   `json:"is_error"`
		}
		if r.code != 0 || json.Unmarshal([]byte(r.stdout), &blocks) != nil || len(blocks) != 2 {
			t.Fatalf("client %d: exit %d, %s", i, r.code, r.stdout)
		}
		for _, b := range blocks {
			if b.IsError {
				t.Fatalf("client %d: %s failed: %s", i, b.ToolUseID, b.Content)
			}
			if b.ToolUseID == "s" {
				seen[strings.TrimPrefix(b.Content, "was=")]++
			}
		}
	}
	last := e.riot(`[{"type":"tool_use","id":"s","name":"State","input":{}}]`, "run", "--session", "S")
	var final []struct {
		Content string `json:"content"`
	}
	if err := json.Unmarshal([]byte(last.stdout), &final); err != nil || len(final) != 1 {
		t.Fatalf("final read: %s", last.stdout)
	}
	seen[strings.TrimPrefix(final[0].Content, "was=")]++
	if seen[""] != 1 {
		t.Fatalf("exactly one client should have read the empty state: %v", seen)
	}
	for i := range n {
		if seen[fmt.Sprintf("v%d", i)] != 1 {
			t.Fatalf("v%d should have been read exactly once (an update was lost or doubled): %v", i, seen)
		}
	}
	// The session's directory is the one of whichever turn ran last.
	pwd := e.riot(`[{"type":"tool_use","id":"p","name":"Bash","input":{"command":"pwd"}}]`, "run", "--session", "S")
	if !strings.Contains(pwd.stdout, filepath.Join(e.ws, "d")) {
		t.Fatalf("Bash's directory should have persisted across clients: %s", pwd.stdout)
	}
}

// A client SIGKILLed mid-turn cancels its turn in the host: the call's
// processes are killed, and the host keeps serving.
func TestSessionHostCancelsTheTurnOfAKilledClient(t *testing.T) {
	e := newEnv(t)
	allowBash(e, "")
	m := startHost(t, e, "S")
	fifo := filepath.Join(t.TempDir(), "pid")
	input := fmt.Sprintf(`{"command":%q}`, fmt.Sprintf(`sleep 300 & echo $! > %s; wait`, fifo))
	clientPID, sleepPID := readPID(t, e, fifo, "call", "--session", "S", "Bash", input)
	if err := syscall.Kill(clientPID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if !proctest.WaitExit(sleepPID, 10*time.Second) {
		t.Fatalf("the killed client's command %d should be killed with its turn", sleepPID)
	}
	r := e.riot("", "call", "--session", "S", "Bash", `{"command":"echo still-serving"}`)
	r.want(t, 0, "still-serving")
	if r.stderr != "" {
		t.Fatalf("the host should have served the next client: %q", r.stderr)
	}
	if err := syscall.Kill(m.Pid, 0); err != nil {
		t.Fatalf("the host should keep serving: %v", err)
	}
}

// A host SIGKILLed mid-turn leaves no process behind; its client says the
// call may have run in part, and the next client runs its turn itself.
func TestSessionHostKilledMidTurn(t *testing.T) {
	e := newEnv(t)
	allowBash(e, "")
	m := startHost(t, e, "S")
	fifo := makeFifo(t, filepath.Join(t.TempDir(), "pid"))
	input := fmt.Sprintf(`{"command":%q}`, fmt.Sprintf(`sleep 300 & echo $! > %s; wait`, fifo))
	cmd := e.command("", "call", "--session", "S", "Bash", input)
	var out strings.Builder
	cmd.Stdout = &out
	client := startProc(t, cmd)
	sleepPID, _ := strconv.Atoi(strings.TrimSpace(client.readFifo(t, fifo, out.String)))
	if err := syscall.Kill(m.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err := client.wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("the client should exit 1: %v", err)
	}
	if !strings.Contains(out.String(), "The session host exited before this call finished, so it may have run in part") {
		t.Fatalf("the client should say the host died with its call: %q", out.String())
	}
	if sleepPID <= 0 || !proctest.WaitExit(sleepPID, 10*time.Second) {
		t.Fatalf("the call's command %d should die with the host", sleepPID)
	}
	r := e.riot("", "call", "--session", "S", "Bash", `{"command":"echo fell-back"}`)
	r.want(t, 0, "fell-back")
	if r.stderr != "" {
		t.Fatalf("a dead host's client should fall back without a warning: %q", r.stderr)
	}
}

// A client of another riot build refuses the host and runs the turn itself,
// with one warning.
func TestSessionHostRefusesAnotherBuild(t *testing.T) {
	e := newEnv(t)
	allowBash(e, "")
	startHost(t, e, "S")
	other := filepath.Join(t.TempDir(), "riot")
	if b, err := exec.Command("go", "build", "-o", other, "github.com/riot-tools/riot/cmd/riot").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, b)
	}
	e.exe = other
	r := e.riot("", "call", "--session", "S", "Bash", `{"command":"echo ran-here"}`)
	r.want(t, 0, "ran-here", "the session host runs another riot build")
	if strings.Count(r.stderr, "warning") != 1 || !strings.Contains(r.stderr, "running this turn here") {
		t.Fatalf("want one warning saying the turn ran here: %q", r.stderr)
	}
}

// A socket or host directory others can write is neither used by a client
// nor served by a host.
func TestSessionHostRefusesAWritableSocket(t *testing.T) {
	e := newEnv(t)
	allowBash(e, "")
	m := startHost(t, e, "S")
	if err := os.Chmod(m.Socket, 0o666); err != nil {
		t.Fatal(err)
	}
	r := e.riot("", "call", "--session", "S", "Bash", `{"command":"echo ran-here"}`)
	r.want(t, 0, "ran-here", "not using the session host", "can be written by other users", "running this turn here")
	dir := filepath.Dir(m.Socket)
	if err := os.Chmod(m.Socket, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	e.riot("", "call", "--session", "S", "Bash", `{"command":"echo ran-here"}`).want(t, 0, "ran-here", "can be written by other users")
	e.riot("", "serve", "--session", "T").want(t, 1, "can be written by other users")
}

// An Ask in a turn sent by a client on a terminal is asked on that
// client's terminal; "allow for this session" is kept by the host as the
// session's grant. A client without a terminal is denied as without a
// host, with the rule that would allow the call.
func TestSessionHostAsksOnTheClientsTerminal(t *testing.T) {
	e := newEnv(t)
	e.userConfig(leakGuard)
	m := startHost(t, e, "S")
	r := e.riot("", "call", "--session", "S", "Bash", `{"command":"touch nobody-asked"}`)
	r.want(t, 1, "Bash(touch:*)")
	if exists(filepath.Join(e.ws, "nobody-asked")) {
		t.Fatal("a call nobody could allow ran")
	}
	tm := e.onTerminal("call", "--session", "S", "Bash", `{"command":"touch asked"}`)
	tm.waitFor("riot: Bash wants to: ")
	tm.waitFor("[s] allow for this session")
	tm.answer("s")
	shown, code := tm.wait()
	if code != 0 || !exists(filepath.Join(e.ws, "asked")) {
		t.Fatalf("allowed on the client's terminal: exit %d\n%s", code, shown)
	}
	state, err := os.ReadFile(filepath.Join(e.state, "riot", "sessions", "S.json"))
	if err != nil || !strings.Contains(string(state), "Bash(touch:*)") {
		t.Fatalf("the host should have saved the session grant: %s %v", state, err)
	}
	// The grant holds for the next client, without a terminal.
	e.riot("", "call", "--session", "S", "Bash", `{"command":"touch granted"}`).want(t, 0)
	if !exists(filepath.Join(e.ws, "granted")) {
		t.Fatal("the session grant should allow the next call")
	}
	if err := syscall.Kill(m.Pid, 0); err != nil {
		t.Fatalf("the host should still serve: %v", err)
	}
}

// An interrupted client cancels its turn in the host: the call ends
// cancelled and its command is killed, and the host keeps serving.
func TestSessionHostCancelsTheTurnOfAnInterruptedClient(t *testing.T) {
	e := newEnv(t)
	allowBash(e, "")
	m := startHost(t, e, "S")
	fifo := makeFifo(t, filepath.Join(t.TempDir(), "pid"))
	input := fmt.Sprintf(`{"command":%q}`, fmt.Sprintf(`sleep 300 & echo $! > %s; wait`, fifo))
	cmd := e.command("", "call", "--json", "--session", "S", "Bash", input)
	var out strings.Builder
	cmd.Stdout = &out
	client := startProc(t, cmd)
	sleepPID, _ := strconv.Atoi(strings.TrimSpace(client.readFifo(t, fifo, out.String)))
	if err := client.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	_ = client.wait()
	if !strings.Contains(out.String(), `"status": "cancelled"`) {
		t.Fatalf("the interrupted call should end cancelled: %s", out.String())
	}
	if sleepPID <= 0 || !proctest.WaitExit(sleepPID, 10*time.Second) {
		t.Fatalf("the cancelled call's command %d should be killed", sleepPID)
	}
	e.riot("", "call", "--session", "S", "Bash", `{"command":"echo still-serving"}`).want(t, 0, "still-serving")
	if err := syscall.Kill(m.Pid, 0); err != nil {
		t.Fatalf("the host should keep serving: %v", err)
	}
}

// --daemon starts a host when none runs, and the next invocation attaches
// to it; a changed config reloads the host's plugins before the next turn.
func TestDaemonStartsAHostAndItReloadsOnConfigChange(t *testing.T) {
	e := newEnv(t)
	allowBash(e, "")
	e.riot("", "call", "--session", "D", "--daemon", "Bash", `{"command":"echo first"}`).want(t, 0, "first")
	m := startHostMeta(t, e)
	e.riot("", "serve", "--list").want(t, 0, "D ", fmt.Sprint(m.Pid))
	bgJob(t, e, "D", "exec sleep 600")
	allowBash(e, "\n[limits]\nmax_parallel = 3\n")
	r := e.riot(`[{"type":"tool_use","id":"o","name":"BashOutput","input":{"bash_id":"bash_1"}}]`, "run", "--session", "D")
	// The host reloaded (its old plugins and their job are gone) and ran
	// the turn: no warning, and the job is unknown to the new plugin.
	r.want(t, 0, `There is no background job \"bash_1\"`)
	if r.stderr != "" {
		t.Fatalf("a reload should not warn the client: %q", r.stderr)
	}
	if err := syscall.Kill(m.Pid, 0); err != nil {
		t.Fatalf("the same host should serve after its reload: %v", err)
	}
}

// A client finds its host where the config, not the environment, puts the
// state: without a host where the environment points, it reads the config
// and looks there.
func TestSessionHostInAConfiguredStateDir(t *testing.T) {
	e := newEnv(t)
	state := filepath.Join(t.TempDir(), "elsewhere")
	e.userConfig(fmt.Sprintf("state_dir = %q\n\n[permissions]\nmode = \"bypassPermissions\"\n%s\n[sandbox]\nmode = \"off\"\n", state, leakGuard))
	e.riot("", "serve", "--session", "S").want(t, 0, "socket "+filepath.Join(state, "hosts"))
	metas, _ := filepath.Glob(filepath.Join(state, "hosts", "*.json"))
	if len(metas) != 1 {
		t.Fatalf("want the host in the configured state dir: %v", metas)
	}
	data, _ := os.ReadFile(metas[0])
	var m hostMeta
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(m.Pid, syscall.SIGKILL)
		proctest.WaitExit(m.Pid, 10*time.Second)
	})
	bgJob(t, e, "S", "exec sleep 600")
	e.riot(`[{"type":"tool_use","id":"o","name":"BashOutput","input":{"bash_id":"bash_1"}}]`, "run", "--session", "S").want(t, 0, "Job bash_1 is running")
	e.riot("", "serve", "--stop", "--session", "S").want(t, 0, "Stopped")
}

// A client whose flags or config environment differ from its host's is
// refused with one warning and runs the turn itself: the host's config
// would not be its own.
func TestSessionHostRefusesOtherFlagsAndEnvironment(t *testing.T) {
	e := newEnv(t)
	allowBash(e, "")
	startHost(t, e, "S")
	r := e.riot("", "call", "--session", "S", "--deny", "Read", "Bash", `{"command":"echo ran-here"}`)
	r.want(t, 0, "ran-here", "the session host runs with other flags or environment than this invocation", "running this turn here")
	if strings.Count(r.stderr, "warning") != 1 {
		t.Fatalf("want one warning: %q", r.stderr)
	}
	cmd := e.command("", "call", "--session", "S", "Bash", `{"command":"echo ran-here"}`)
	cmd.Env = append(cmd.Env, "RIOT_MAX_PARALLEL=3")
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil || !strings.Contains(out.String(), "ran-here") || !strings.Contains(errb.String(), "other flags or environment") {
		t.Fatalf("a client with another RIOT_ variable: %v %q %q", err, out.String(), errb.String())
	}
	// The same flags and environment attach, silently.
	e.riot("", "call", "--session", "S", "Bash", `{"command":"echo attached"}`).want(t, 0, "attached")
}

// An attached client in an untrusted workspace says what was ignored, once,
// as it would running the turn itself; the host, not the client, read it.
func TestSessionHostSaysWhatAnUntrustedWorkspaceIgnores(t *testing.T) {
	e := newEnv(t)
	allowBash(e, "")
	e.write(".riot/config.toml", "[permissions]\nallow = [\"Read\"]\n")
	startHost(t, e, "S")
	bgJob(t, e, "S", "exec sleep 600") // attached: the job outlives the call
	r := e.riot(`[{"type":"tool_use","id":"o","name":"BashOutput","input":{"bash_id":"bash_1"}}]`, "run", "--session", "S")
	r.want(t, 0, "Job bash_1 is running")
	if strings.Count(r.stderr, "this workspace is not trusted") != 1 || !strings.Contains(r.stderr, ".riot/config.toml (permissions.allow)") {
		t.Fatalf("want the untrusted line once: %q", r.stderr)
	}
}

// With [serve] daemon = true a client starts the host itself; a plugin
// binary that changes under a running host is reloaded before the next
// turn, which the host's log says.
func TestDaemonKeyAndPluginBinaryReload(t *testing.T) {
	e := newEnv(t)
	plugins := filepath.Join(t.TempDir(), "plugins")
	if err := os.MkdirAll(plugins, 0o755); err != nil {
		t.Fatal(err)
	}
	testkit := filepath.Join(plugins, "riot-tool-testkit")
	data, err := os.ReadFile(bin.testkit)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(testkit, data, 0o755); err != nil {
		t.Fatal(err)
	}
	e.userConfig(fmt.Sprintf("plugin_dirs = [%q]\n\n[permissions]\nmode = \"bypassPermissions\"\n\n[plugins.testkit]\nenabled = true\n\n[serve]\ndaemon = true\nidle_timeout = \"5m\"\n\n[sandbox]\nmode = \"off\"\n", plugins))
	e.riot("", "call", "--session", "P", "State", `{"set":"v1"}`).want(t, 0, "was=")
	m := startHostMeta(t, e)
	logPath := strings.TrimSuffix(m.Socket, ".sock") + ".log"
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(testkit, later, later); err != nil {
		t.Fatal(err)
	}
	r := e.riot("", "call", "--session", "P", "State", `{}`)
	r.want(t, 0, "was=v1")
	if r.stderr != "" {
		t.Fatalf("a reload should not warn the client: %q", r.stderr)
	}
	log, _ := os.ReadFile(logPath)
	if !strings.Contains(string(log), "reloading: the config or a plugin binary changed") {
		t.Fatalf("the host should have reloaded its changed plugin: %s", log)
	}
	if err := syscall.Kill(m.Pid, 0); err != nil {
		t.Fatalf("the same host should serve after its reload: %v", err)
	}
}

// Twenty concurrent `riot run --session S` clients on their own terminals
// each cd into their own directory and allow their own command "for this
// session": each is asked once, on its own terminal; the session keeps
// every grant exactly once; and all of them hold for a later client that
// cannot be asked, through the host and, once it is stopped, without one.
func TestSessionHostKeepsEveryConcurrentClientsGrant(t *testing.T) {
	e := newEnv(t)
	e.userConfig(leakGuard + "\n[sandbox]\nmode = \"off\"\n")
	m := startHost(t, e, "S")
	const n = 20
	scripts := make([]string, n)
	terms := make([]*term, n)
	for i := range n {
		if err := os.Mkdir(filepath.Join(e.ws, fmt.Sprintf("d%d", i)), 0o755); err != nil {
			t.Fatal(err)
		}
		scripts[i] = filepath.Join(e.ws, fmt.Sprintf("s%d", i))
		if err := os.WriteFile(scripts[i], fmt.Appendf(nil, "#!/bin/sh\necho ran-%d\n", i), 0o755); err != nil {
			t.Fatal(err)
		}
		turn := e.write(fmt.Sprintf("turn%d.json", i), fmt.Sprintf(`[{"type":"tool_use","id":"cd","name":"Bash","input":{"command":%q}},{"type":"tool_use","id":"run","name":"Bash","input":{"command":%q}}]`,
			"cd "+filepath.Join(e.ws, fmt.Sprintf("d%d", i)), scripts[i]))
		terms[i] = e.onTerminal("run", "--session", "S", turn)
	}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i, tm := range terms {
		wg.Go(func() {
			var seen strings.Builder
			timeout := time.NewTimer(2 * time.Minute)
			defer timeout.Stop()
			for !strings.Contains(seen.String(), "[s] allow for this session") {
				select {
				case c, ok := <-tm.out:
					if !ok {
						errs[i] = fmt.Errorf("the terminal closed before the prompt: %q", seen.String())
						return
					}
					seen.WriteString(c)
				case <-timeout.C:
					errs[i] = fmt.Errorf("no prompt: %q", seen.String())
					return
				}
			}
			if !strings.Contains(seen.String(), "Bash("+scripts[i]+":*)") {
				errs[i] = fmt.Errorf("the prompt is not about this client's command: %q", seen.String())
			}
			if _, err := tm.ptmx.Write([]byte("s\n")); err != nil {
				errs[i] = err
				return
			}
			err := tm.cmd.Wait()
			for c := range tm.out {
				seen.WriteString(c)
			}
			if err != nil || strings.Count(seen.String(), "wants to:") != 1 || !strings.Contains(tm.stdout.String(), fmt.Sprintf("ran-%d", i)) {
				errs[i] = fmt.Errorf("exit %w, terminal %q, stdout %s", err, seen.String(), tm.stdout.String())
			}
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("client %d: %v", i, err)
		}
	}
	data, err := os.ReadFile(filepath.Join(e.state, "riot", "sessions", "S.json"))
	if err != nil {
		t.Fatal(err)
	}
	var saved struct{ Grants []string }
	if err := json.Unmarshal(data, &saved); err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, g := range saved.Grants {
		count[g]++
	}
	for _, s := range scripts {
		if count["Bash("+s+":*)"] != 1 {
			t.Fatalf("each client's grant should be kept exactly once: %q", saved.Grants)
		}
	}
	if len(saved.Grants) != n {
		t.Fatalf("want exactly the %d grants: %q", n, saved.Grants)
	}
	var all []string
	for i, s := range scripts {
		all = append(all, fmt.Sprintf(`{"type":"tool_use","id":"a%d","name":"Bash","input":{"command":%q}}`, i, s))
	}
	turn := "[" + strings.Join(all, ",") + "]"
	for _, attached := range []bool{true, false} {
		if !attached {
			e.riot("", "serve", "--stop", "--session", "S").want(t, 0, "Stopped")
			proctest.WaitExit(m.Pid, 10*time.Second)
		}
		r := e.riot(turn, "run", "--session", "S")
		if r.code != 0 || strings.Contains(r.stdout, `"is_error": true`) {
			t.Fatalf("attached %v: every grant should hold for a client that cannot be asked: %s %s", attached, r.stdout, r.stderr)
		}
		for i := range n {
			if !strings.Contains(r.stdout, fmt.Sprintf("ran-%d", i)) {
				t.Fatalf("attached %v: script %d did not run: %s", attached, i, r.stdout)
			}
		}
	}
}

// The host renders an attached run's results (Hello.Render) as the very
// bytes the client prints running the turn itself, in both formats, HTML
// characters, tabs and non-ASCII text included.
func TestSessionHostRendersWhatTheClientWouldPrint(t *testing.T) {
	e := newEnv(t)
	allowBash(e, "")
	if err := os.WriteFile(filepath.Join(e.ws, "a.txt"), []byte("a <b> & \"c\"\tü\n✓ 17\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := startHost(t, e, "S")
	jobPID, _ := bgJob(t, e, "S", "exec sleep 600")
	defer syscall.Kill(jobPID, syscall.SIGKILL)
	anthropic := fmt.Sprintf(`[{"type":"tool_use","id":"r","name":"Read","input":{"file_path":%q}},
		{"type":"tool_use","id":"g","name":"Grep","input":{"pattern":"17","output_mode":"content"}}]`, filepath.Join(e.ws, "a.txt"))
	openai := fmt.Sprintf(`[{"id":"r","type":"function","function":{"name":"Read","arguments":%q}}]`,
		fmt.Sprintf(`{"file_path":%q}`, filepath.Join(e.ws, "a.txt")))
	for _, tc := range []struct{ format, turn string }{{"anthropic", anthropic}, {"openai", openai}} {
		attached := e.riot(tc.turn, "run", "--session", "S", "--format", tc.format)
		local := e.riot(tc.turn, "run", "--session", "N", "--format", tc.format)
		if attached.code != 0 || local.code != 0 || attached.stderr != "" || local.stderr != "" {
			t.Fatalf("%s: attached %+v, local %+v", tc.format, attached, local)
		}
		if attached.stdout != local.stdout {
			t.Fatalf("%s: the attached run printed\n%s\nwhere the turn run here prints\n%s", tc.format, attached.stdout, local.stdout)
		}
		if !strings.Contains(local.stdout, `\u003cb\u003e \u0026`) {
			t.Fatalf("%s: the fixture should exercise HTML escaping: %s", tc.format, local.stdout)
		}
	}
	// The host served this session all along: its job is still there.
	e.riot(`[{"type":"tool_use","id":"o","name":"BashOutput","input":{"bash_id":"bash_1"}}]`, "run", "--session", "S").want(t, 0, "Job bash_1 is running")
	if err := syscall.Kill(m.Pid, 0); err != nil {
		t.Fatalf("the host should still serve: %v", err)
	}
}
