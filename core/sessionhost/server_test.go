package sessionhost

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/riot-tools/riot/core"
	"github.com/riot-tools/riot/core/permission"
	"github.com/riot-tools/riot/core/sessionhost/attach"
)

// Twenty concurrent clients each cd into their own directory and allow
// their own command for the session on their own terminal. Every grant is
// asked once, on the client whose call it is, kept once in the session's
// state, and holds for every later client: one without a terminal runs all
// twenty commands unasked.
func TestConcurrentClientsKeepEveryGrant(t *testing.T) {
	h := startHost(t, terminalsTrusted)
	const n = 20
	scripts := make([]string, n)
	for i := range n {
		if err := os.Mkdir(filepath.Join(h.ws, fmt.Sprintf("d%d", i)), 0o755); err != nil {
			t.Fatal(err)
		}
		scripts[i] = filepath.Join(h.ws, fmt.Sprintf("s%d", i))
		if err := os.WriteFile(scripts[i], fmt.Appendf(nil, "#!/bin/sh\necho ran-%d in $PWD\n", i), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	prompters := make([]*answering, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		prompters[i] = &answering{a: permission.AnswerAllowSession}
		wg.Go(func() {
			hello := self(h.ws)
			hello.Terminal = true
			rs, err := Turn(context.Background(), h.srv.Paths.Socket, hello,
				[]core.ToolUse{bash("cd", "cd "+filepath.Join(h.ws, fmt.Sprintf("d%d", i))), bash("run", scripts[i])},
				Handlers{Prompter: prompters[i]})
			switch {
			case err != nil:
				errs[i] = err
			case len(rs) != 2 || rs[0].IsError() || rs[1].IsError() || !strings.Contains(text(rs[1]), fmt.Sprintf("ran-%d in %s/d", i, h.ws)):
				errs[i] = fmt.Errorf("results %+v", rs)
			}
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("client %d: %v", i, err)
		}
	}
	want := make([]string, n)
	for i, p := range prompters {
		want[i] = "Bash(" + scripts[i] + ":*)"
		if len(p.asked) != 1 || p.asked[0].Tool != "Bash" || len(p.asked[0].Subjects) != 1 || p.asked[0].Subjects[0].Value != scripts[i] {
			t.Fatalf("client %d should have been asked once, about its own command: %+v", i, p.asked)
		}
	}
	data, err := os.ReadFile(filepath.Join(h.state, "sessions", "S.json"))
	if err != nil {
		t.Fatal(err)
	}
	var saved struct{ Grants []string }
	if err := json.Unmarshal(data, &saved); err != nil {
		t.Fatal(err)
	}
	got := slices.Clone(saved.Grants)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("the session should keep each client's grant exactly once:\n got %q\nwant %q", saved.Grants, want)
	}
	// Every grant holds for a client that cannot be asked.
	var all []core.ToolUse
	for i, s := range scripts {
		all = append(all, bash(fmt.Sprint("again", i), s))
	}
	rs, err := h.turn(Handlers{}, all...)
	if err != nil {
		t.Fatal(err)
	}
	for i := range rs {
		wantStatus(t, rs, i, core.StatusOK, fmt.Sprintf("ran-%d", i))
	}
	// Bash's directory is one session-wide value, the last client's.
	rs, err = h.turn(Handlers{}, bash("pwd", "pwd"))
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, rs, 0, core.StatusOK, filepath.Join(h.ws, "d"))
}

// A client that cannot be asked is denied what would need asking, with the
// rule that would allow it; an answer of deny denies, as the user's word.
func TestPromptsGoToTheirClient(t *testing.T) {
	h := startHost(t, terminalsTrusted)
	cmd := "touch " + filepath.Join(h.ws, "f")
	rs, err := h.turn(Handlers{Prompter: &answering{a: permission.AnswerAllowOnce}}, bash("b", cmd))
	if err != nil {
		t.Fatal(err)
	}
	// Without Terminal in the hello the host does not ask, whatever the
	// client's prompter would say.
	wantStatus(t, rs, 0, core.StatusDenied, "Bash(touch:*)")
	hello := self(h.ws)
	hello.Terminal = true
	no := &answering{a: permission.AnswerDeny}
	rs, err = Turn(context.Background(), h.srv.Paths.Socket, hello, []core.ToolUse{bash("b", cmd)}, Handlers{Prompter: no})
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, rs, 0, core.StatusDenied, "The user denied permission for this call")
	// A terminal client with no prompter denies.
	rs, err = Turn(context.Background(), h.srv.Paths.Socket, hello, []core.ToolUse{bash("b", cmd)}, Handlers{})
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, rs, 0, core.StatusDenied, "The user denied permission for this call")
	if _, err := os.Stat(filepath.Join(h.ws, "f")); !os.IsNotExist(err) {
		t.Fatal("a denied command ran")
	}
	once := &answering{a: permission.AnswerAllowOnce}
	rs, err = Turn(context.Background(), h.srv.Paths.Socket, hello, []core.ToolUse{bash("b", cmd)}, Handlers{Prompter: once})
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, rs, 0, core.StatusOK, "")
	if len(once.asked) != 1 || len(no.asked) != 1 {
		t.Fatalf("each terminal client should be asked once: %d, %d", len(once.asked), len(no.asked))
	}
}

// A client of another build, session, workspace or config inputs is
// refused with the reason; one whose call names a tool the host lacks is
// told to run it itself when it asked for that.
func TestRefusals(t *testing.T) {
	h := startHost(t)
	for _, tc := range []struct {
		change func(*Hello)
		want   string
	}{
		{func(h *Hello) { h.Build = "build-2" }, "the session host runs another riot build (build-1, this riot is build-2); restart it with `riot serve --stop --session S`"},
		{func(h *Hello) { h.Session = "T" }, "the session host serves another session or workspace"},
		{func(h *Hello) { h.Workspace += "/x" }, "the session host serves another session or workspace"},
		{func(h *Hello) { h.Inputs = "inputs-2" }, "the session host runs with other flags or environment than this invocation; restart it with yours: `riot serve --stop --session S`"},
	} {
		hello := self(h.ws)
		tc.change(&hello)
		_, err := Turn(context.Background(), h.srv.Paths.Socket, hello, []core.ToolUse{use("s", "State", map[string]string{"set": "no"})}, Handlers{})
		var refused *RefusedError
		if !errors.As(err, &refused) || refused.Reason != tc.want {
			t.Errorf("want refused: %q, got %v", tc.want, err)
		}
	}
	rs, err := h.turn(Handlers{}, use("s", "State", map[string]string{}))
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, rs, 0, core.StatusOK, "was=") // nothing a refused client sent ran
	if text(rs[0]) != "was=" {
		t.Fatalf("a refused turn ran: %s", text(rs[0]))
	}
	hello := self(h.ws)
	hello.KnownOnly = true
	if _, err := Turn(context.Background(), h.srv.Paths.Socket, hello, []core.ToolUse{use("s", "State", map[string]string{"set": "v"}), use("n", "Nope", nil)}, Handlers{}); !errors.Is(err, ErrNoHost) {
		t.Fatalf("a call of an unknown tool should come back to the client: %v", err)
	}
	rs, err = Turn(context.Background(), h.srv.Paths.Socket, hello, []core.ToolUse{use("s", "State", map[string]string{})}, Handlers{})
	if err != nil || text(rs[0]) != "was=" {
		t.Fatalf("known tools run, and the turn sent back ran nothing: %v %+v", err, rs)
	}
	// Without KnownOnly the host runs the turn and says the tool is unknown.
	rs, err = h.turn(Handlers{}, use("n", "Nope", nil))
	if err != nil || len(rs) != 1 || rs[0].Status == core.StatusOK {
		t.Fatalf("an unknown tool is the host's failure to report: %v %+v", err, rs)
	}
}

// Progress goes to the client of the running turn; cancelling the client's
// context cancels its call in the host, which keeps serving.
func TestProgressAndCancel(t *testing.T) {
	h := startHost(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var seen []core.Progress
	rs, err := Turn(ctx, h.srv.Paths.Socket, self(h.ws), []core.ToolUse{use("b", "Block", map[string]any{})}, Handlers{Progress: func(p core.Progress) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, p)
		if strings.HasPrefix(p.Message, "pid=") {
			cancel()
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, rs, 0, core.StatusCancelled, "")
	if len(seen) == 0 || seen[0].CallID != "b" {
		t.Fatalf("the client should have seen its call's progress: %+v", seen)
	}
	rs, err = h.turn(Handlers{}, use("s", "State", map[string]string{}))
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, rs, 0, core.StatusOK, "was=")
}

// A changed fingerprint rebuilds the host before the turn; one Current
// cannot read refuses the turn; a RestartError refuses it and the host
// exits. The host's warning reaches the client as a notice.
func TestReloadAndRestart(t *testing.T) {
	h := startHost(t, func(h *testHost) { h.srv.Warning = func() string { return "this workspace is not trusted" } })
	if _, err := h.turn(Handlers{}, use("s", "State", map[string]string{"set": "v1"})); err != nil {
		t.Fatal(err)
	}
	old := testkitPID(t, h)
	if h.buildCount() != 1 {
		t.Fatalf("want one build, got %d", h.buildCount())
	}
	h.set("fp-2", nil)
	var notices []string
	rs, err := h.turn(Handlers{Notice: func(s string) { notices = append(notices, s) }}, use("s", "State", map[string]string{}))
	if err != nil {
		t.Fatal(err)
	}
	if h.buildCount() != 2 || !strings.Contains(h.log(), "reloading: the config or a plugin binary changed") {
		t.Fatalf("a changed fingerprint should rebuild the host: %d builds, log %s", h.builds, h.log())
	}
	wantStatus(t, rs, 0, core.StatusOK, "was=v1") // the session's state outlives the reload
	if err := syscall.Kill(old, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("the old plugins should be closed before the new ones start: pid %d: %v", old, err)
	}
	if testkitPID(t, h) == old {
		t.Fatal("the reloaded host should run new plugin processes")
	}
	if !slices.Equal(notices, []string{"this workspace is not trusted"}) {
		t.Fatalf("the host's warning should reach the client once: %q", notices)
	}
	h.set("fp-2", errors.New("bad toml"))
	_, err = h.turn(Handlers{}, use("s", "State", map[string]string{}))
	var refused *RefusedError
	if !errors.As(err, &refused) || !strings.Contains(refused.Reason, "cannot reread its config; fix the config, then restart the host with `riot serve --stop --session S`") {
		t.Fatalf("an unreadable config refuses: %v", err)
	}
	h.set("fp-3", &RestartError{Reason: "the state directory moved"})
	if _, err = h.turn(Handlers{}, use("s", "State", map[string]string{})); !errors.As(err, &refused) || refused.Reason != "the state directory moved" {
		t.Fatalf("want the restart reason: %v", err)
	}
	if err := h.exited(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(h.srv.Paths.Socket); !os.IsNotExist(err) {
		t.Fatalf("an exited host leaves no socket: %v", err)
	}
}

// testkitPID is the pid of the host's testkit plugin, from a Block call
// that the client cancels once the plugin has said its pid.
func testkitPID(t *testing.T, h *testHost) int {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pid := 0
	_, err := Turn(ctx, h.srv.Paths.Socket, self(h.ws), []core.ToolUse{use("b", "Block", map[string]any{})}, Handlers{Progress: func(p core.Progress) {
		if n, ok := strings.CutPrefix(p.Message, "pid="); ok {
			pid, _ = strconv.Atoi(n)
			cancel()
		}
	}})
	if err != nil || pid <= 0 {
		t.Fatalf("no testkit pid: %v", err)
	}
	return pid
}

// A failed rebuild refuses the turn; the next turn tries again.
func TestFailedReload(t *testing.T) {
	var fail atomic.Bool
	h := startHost(t, func(h *testHost) {
		build := h.srv.Build
		h.srv.Build = func(ctx context.Context, r *Relay) (*core.Host, string, error) {
			if fail.Load() {
				return nil, "", errors.New("no plugins")
			}
			return build(ctx, r)
		}
	})
	fail.Store(true)
	h.set("fp-2", nil)
	_, err := h.turn(Handlers{}, use("s", "State", map[string]string{}))
	var refused *RefusedError
	if !errors.As(err, &refused) || !strings.Contains(refused.Reason, "could not reload its changed config") {
		t.Fatalf("a failed reload refuses: %v", err)
	}
	fail.Store(false)
	rs, err := h.turn(Handlers{}, use("s", "State", map[string]string{}))
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, rs, 0, core.StatusOK, "was=")
}

// Stop ends the host and leaves no socket or description; a second host
// on the same socket is refused while the first runs; List shows it.
func TestStopListAndOneHostPerSocket(t *testing.T) {
	h := startHost(t)
	metas, err := List(Dir(h.state))
	if err != nil || len(metas) != 1 || metas[0].Pid != os.Getpid() || metas[0].Session != "S" || metas[0].Workspace != h.ws || metas[0].Socket != h.srv.Paths.Socket {
		t.Fatalf("List: %+v %v", metas, err)
	}
	second := &Server{Paths: h.srv.Paths, Self: h.srv.Self, Idle: h.srv.Idle, Build: h.srv.Build, Current: h.srv.Current}
	if err := second.Serve(context.Background()); !errors.Is(err, ErrRunning) {
		t.Fatalf("a second host on a served socket: %v", err)
	}
	if err := Stop(h.srv.Paths.Socket); err != nil {
		t.Fatal(err)
	}
	if err := h.exited(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{h.srv.Paths.Socket, h.srv.Paths.Meta} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Fatalf("%s should be gone: %v", p, err)
		}
	}
	if err := Stop(h.srv.Paths.Socket); !errors.Is(err, ErrNoHost) {
		t.Fatalf("stopping no host: %v", err)
	}
	if _, err := h.turn(Handlers{}, use("s", "State", nil)); !errors.Is(err, ErrNoHost) {
		t.Fatalf("a turn with no host: %v", err)
	}
	if !strings.Contains(h.log(), "stopping: asked by a client") {
		t.Fatalf("log: %s", h.log())
	}
}

// A host with no turn for its idle time exits.
func TestIdleExit(t *testing.T) {
	h := startHost(t, func(h *testHost) { h.srv.Idle = 1 })
	if err := h.exited(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(h.log(), "exiting: no turn for") {
		t.Fatalf("log: %s", h.log())
	}
}

// A description whose process is gone is a crashed host's: List removes
// it with its socket and does not show it.
func TestListDropsCrashedHosts(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "hosts")
	if err := EnsureDir(dir); err != nil {
		t.Fatal(err)
	}
	p := PathsFor(dir, "S", "/ws")
	if err := writeMeta(p.Meta, Meta{Pid: 1 << 30, Session: "S"}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p.Socket, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	alive := PathsFor(dir, "A", "/ws")
	if err := writeMeta(alive.Meta, Meta{Pid: os.Getpid(), Session: "A", Workspace: "/ws"}); err != nil {
		t.Fatal(err)
	}
	other := PathsFor(dir, "A", "/other")
	if err := writeMeta(other.Meta, Meta{Pid: os.Getpid(), Session: "A", Workspace: "/a"}); err != nil {
		t.Fatal(err)
	}
	before := PathsFor(dir, "0", "/z")
	if err := writeMeta(before.Meta, Meta{Pid: os.Getpid(), Session: "0", Workspace: "/z"}); err != nil {
		t.Fatal(err)
	}
	noPid := PathsFor(dir, "Z", "/ws")
	if err := writeMeta(noPid.Meta, Meta{Pid: 0, Session: "Z"}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "junk.json"), []byte("not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	metas, err := List(dir)
	if err != nil || len(metas) != 3 || metas[0].Session != "0" || metas[1].Workspace != "/a" || metas[2].Workspace != "/ws" {
		t.Fatalf("want the three live hosts, by session then workspace: %+v %v", metas, err)
	}
	for _, f := range []string{p.Meta, p.Socket} {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Fatalf("a crashed host's %s should be removed: %v", f, err)
		}
	}
	if metas, err := List(filepath.Join(dir, "missing")); err != nil || metas != nil {
		t.Fatalf("no directory is no host: %v %v", metas, err)
	}
}

// A client that shows no progress gets only the first progress frame of
// its turn, which tells it the host began the turn; one that asks for
// progress gets each call's start and end.
func TestProgressOnlyWhenAsked(t *testing.T) {
	h := startHost(t)
	uses := []core.ToolUse{use("a", "State", map[string]string{}), use("b", "State", map[string]string{})}
	for _, asked := range []bool{false, true} {
		hello := self(h.ws)
		hello.Progress = asked
		c, err := attach.Dial(h.srv.Paths.Socket)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.NewEncoder(c).Encode(clientFrame{Hello: &hello, Uses: uses}); err != nil {
			t.Fatal(err)
		}
		progress, done := 0, false
		sc := bufio.NewScanner(c)
		for sc.Scan() {
			var f hostFrame
			if err := json.Unmarshal(sc.Bytes(), &f); err != nil {
				t.Fatalf("not a frame: %q", sc.Bytes())
			}
			if f.Progress != nil {
				progress++
			}
			if f.Done {
				done = len(f.Results) == 2
				break
			}
		}
		_ = c.Close()
		switch {
		case !done:
			t.Fatalf("asked=%v: the turn did not end with its two results", asked)
		case !asked && progress != 1:
			t.Fatalf("a client that asked for no progress got %d progress frames, want the first only", progress)
		case asked && progress != 4:
			t.Fatalf("a client that asked for progress got %d progress frames, want a start and an end per call", progress)
		}
	}
}

// A hello that names a format gets the results as the host's Render
// renders them, and no results; one Render cannot serve gets the results
// themselves; Turn never asks for rendering.
func TestRenderedReply(t *testing.T) {
	h := startHost(t, func(h *testHost) {
		h.srv.Render = func(format string, rs []core.ToolResult) ([]byte, error) {
			if format != "plain" {
				return nil, errors.New("no such format")
			}
			return []byte(fmt.Sprintf("%d results, the first %s\n", len(rs), rs[0].Status)), nil
		}
	})
	uses := []core.ToolUse{use("s", "State", map[string]string{})}
	hello := self(h.ws)
	hello.Render = "plain"
	r, err := TurnReply(context.Background(), h.srv.Paths.Socket, hello, uses, Handlers{})
	if err != nil || string(r.Output) != "1 results, the first ok\n" || r.Results != nil {
		t.Fatalf("a rendered reply: %+v %v", r, err)
	}
	hello.Render = "fancy"
	r, err = TurnReply(context.Background(), h.srv.Paths.Socket, hello, uses, Handlers{})
	if err != nil || r.Output != nil || len(r.Results) != 1 {
		t.Fatalf("a format the host cannot render gets the results: %+v %v", r, err)
	}
	if !strings.Contains(h.log(), "sending the results unrendered: no such format") {
		t.Fatalf("the host should log why it sent the results: %s", h.log())
	}
	rs, err := Turn(context.Background(), h.srv.Paths.Socket, hello, uses, Handlers{})
	if err != nil || len(rs) != 1 {
		t.Fatalf("Turn gets results whatever its hello says: %+v %v", rs, err)
	}
}

// A question about a host, asked while a turn runs, goes to that turn's
// client on its terminal and its answer comes back; a client whose
// prompter does not answer such questions denies, and one not at a
// terminal cannot be asked.
func TestNetworkQuestionsGoToTheirClient(t *testing.T) {
	h := startHost(t, terminalsTrusted)
	q := permission.NetworkQuestion{Host: "example.com", Port: 443, Rule: "example.com:443", Tool: "Block"}
	type reply struct {
		a   permission.Answer
		err error
	}
	// ask runs a Block call and, once it runs, asks the relay q; the turn
	// is then cancelled.
	ask := func(terminal bool, p permission.Prompter) reply {
		t.Helper()
		hello := self(h.ws)
		hello.Terminal = terminal
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		got := make(chan reply, 1)
		var once sync.Once
		_, err := Turn(ctx, h.srv.Paths.Socket, hello, []core.ToolUse{use("b", "Block", map[string]any{})}, Handlers{Prompter: p, Progress: func(pr core.Progress) {
			if strings.HasPrefix(pr.Message, "pid=") {
				once.Do(func() {
					go func() {
						a, err := h.srv.relay.PromptNetwork(context.Background(), q)
						got <- reply{a, err}
						cancel()
					}()
				})
			}
		}})
		if err != nil {
			t.Fatal(err)
		}
		return <-got
	}
	always := &answering{a: permission.AnswerAllowOnce, network: permission.AnswerAllowAlways}
	if r := ask(true, always); r.a != permission.AnswerAllowAlways || r.err != nil {
		t.Errorf("a terminal client's answer: %v %v", r.a, r.err)
	}
	if len(always.hosts) != 1 || always.hosts[0] != q || len(always.asked) != 0 {
		t.Errorf("the client was asked %+v and %+v", always.hosts, always.asked)
	}
	// "Once" is no answer to a question about a host.
	if r := ask(true, &answering{network: permission.AnswerAllowOnce}); r.a != permission.AnswerDeny || r.err != nil {
		t.Errorf("allow once: %v %v", r.a, r.err)
	}
	// A prompter that only answers permission prompts denies.
	if r := ask(true, promptOnly{&answering{a: permission.AnswerAllowOnce}}); r.a != permission.AnswerDeny || r.err != nil {
		t.Errorf("a prompter without network questions: %v %v", r.a, r.err)
	}
	// A client not at a terminal cannot be asked.
	if r := ask(false, always); r.a != permission.AnswerDeny || !errors.Is(r.err, permission.ErrCannotAsk) {
		t.Errorf("a client not at a terminal: %v %v", r.a, r.err)
	}
}

// promptOnly hides its prompter's answers to questions about hosts.
type promptOnly struct{ p permission.Prompter }

func (p promptOnly) Prompt(ctx context.Context, req permission.Request, d permission.Decision) (permission.Answer, error) {
	return p.p.Prompt(ctx, req, d)
}
