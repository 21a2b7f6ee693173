package main_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// connect starts `riot mcp` in the workspace and connects the official MCP
// Go SDK client to it.
func (e *env) connect(t *testing.T, opts *mcp.ClientOptions, args ...string) *mcp.ClientSession {
	t.Helper()
	s, _ := e.connectCmd(t, opts, args...)
	return s
}

// connectCmd is connect, also returning riot's pid.
func (e *env) connectCmd(t *testing.T, opts *mcp.ClientOptions, args ...string) (*mcp.ClientSession, int) {
	t.Helper()
	cmd := e.command("", append([]string{"mcp"}, args...)...)
	cmd.Stdin = nil
	client := mcp.NewClient(&mcp.Implementation{Name: "riot-test", Version: "1"}, opts)
	session, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { session.Close() })
	return session, cmd.Process.Pid
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func call(t *testing.T, s *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return res
}

// rawMCP is riot mcp on raw pipes, for what a client library never sends
// or hides: malformed lines, and whether a response was written at all.
type rawMCP struct {
	t      *testing.T
	stdin  io.WriteCloser
	stdout io.Closer
	out    *bufio.Reader
	pid    int
	// done is closed when riot has exited.
	done chan struct{}
}

func (e *env) raw(t *testing.T, args ...string) *rawMCP {
	t.Helper()
	cmd := e.command("", append([]string{"mcp"}, args...)...)
	cmd.Stdin = nil
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := &rawMCP{t: t, stdin: stdin, stdout: stdout, out: bufio.NewReader(stdout), pid: cmd.Process.Pid, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(r.done) }()
	t.Cleanup(func() {
		stdin.Close()
		_ = cmd.Process.Kill()
		<-r.done
	})
	return r
}

func (r *rawMCP) send(line string) {
	r.t.Helper()
	if _, err := io.WriteString(r.stdin, line+"\n"); err != nil {
		r.t.Fatal(err)
	}
}

// next reads one message riot wrote.
func (r *rawMCP) next() map[string]any {
	r.t.Helper()
	line, err := r.out.ReadBytes('\n')
	if err != nil {
		r.t.Fatalf("riot wrote no more messages: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		r.t.Fatalf("riot wrote %q, not a JSON object", line)
	}
	return m
}

// response reads until the response with id, skipping notifications.
func (r *rawMCP) response(id float64) map[string]any {
	r.t.Helper()
	for {
		m := r.next()
		if got, ok := m["id"].(float64); ok && got == id {
			return m
		}
	}
}

func (r *rawMCP) initialize() {
	r.t.Helper()
	r.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if m := r.response(1); m["result"] == nil {
		r.t.Fatalf("initialize: %v", m)
	}
	r.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// fifoPID makes a FIFO and returns it with a channel that yields the pid a
// command writes to it.
func fifoPID(t *testing.T) (string, <-chan int) {
	t.Helper()
	fifo := filepath.Join(t.TempDir(), "pid")
	if err := mkfifo(fifo); err != nil {
		t.Fatal(err)
	}
	pids := make(chan int, 1)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			pids <- 0
			return
		}
		defer f.Close()
		line, _ := bufio.NewReader(f).ReadString('\n')
		n, _ := strconv.Atoi(strings.TrimSpace(line))
		pids <- n
	}()
	t.Cleanup(func() {
		// Unblock the reader if no command ever opened the FIFO.
		if w, err := os.OpenFile(fifo, os.O_WRONLY|nonblock, 0); err == nil {
			w.Close()
		}
	})
	return fifo, pids
}

func recvPID(t *testing.T, pids <-chan int) int {
	t.Helper()
	select {
	case pid := <-pids:
		if pid == 0 {
			t.Fatal("no pid came through the FIFO")
		}
		return pid
	case <-time.After(30 * time.Second):
		t.Fatal("the call did not start within 30 s")
	}
	return 0
}

// descendants lists the processes under pid, from /proc.
func descendants(pid int) []int {
	parents := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// The command name may hold spaces and parentheses; the fields
		// after the last ')' are fixed.
		rest := string(stat[strings.LastIndexByte(string(stat), ')')+1:])
		fields := strings.Fields(rest)
		if len(fields) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(fields[1])
		parents[ppid] = append(parents[ppid], p)
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range parents[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

func toolNames(tools []*mcp.Tool) string {
	var names []string
	for _, tool := range tools {
		names = append(names, tool.Name)
	}
	return strings.Join(names, ",")
}

// riotOrder is tools[] on the embedded defaults: riot's order, not sorted.
const riotOrder = "Bash,BashOutput,KillShell,Grep,Read,Diagnostics,Edit,Write,Glob"

func TestMCPServesRiotsTools(t *testing.T) {
	e := newEnv(t)
	e.write("a.txt", "alpha\n")
	s := e.connect(t, nil)
	if v := s.InitializeResult().ProtocolVersion; v == "" {
		t.Fatal("no protocol version negotiated")
	}
	if info := s.InitializeResult().ServerInfo; info == nil || info.Name != "riot" {
		t.Fatalf("server info = %+v", info)
	}
	tools, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := toolNames(tools.Tools); got != riotOrder {
		t.Fatalf("tools/list = %s, want riot's tools[] order %s", got, riotOrder)
	}
	if tools.NextCursor != "" {
		t.Fatalf("tools/list is paged: %q", tools.NextCursor)
	}
	for _, tool := range tools.Tools {
		schema, _ := json.Marshal(tool.InputSchema)
		if !strings.Contains(string(schema), `"additionalProperties":false`) || tool.Description == "" {
			t.Errorf("%s: schema %s, description %q", tool.Name, schema, tool.Description)
		}
	}
	res := call(t, s, "Read", map[string]any{"file_path": "a.txt"})
	if res.IsError || !strings.Contains(text(res), "     1\talpha") {
		t.Fatalf("Read: %+v", res)
	}
	// The permission chain holds: without elicitation, a write is denied.
	res = call(t, s, "Bash", map[string]any{"command": "touch x"})
	if !res.IsError || !strings.Contains(text(res), "Bash(touch:*)") {
		t.Fatalf("Bash touch: %s", text(res))
	}
	if _, err := os.Stat(filepath.Join(e.ws, "x")); !os.IsNotExist(err) {
		t.Fatal("a denied call ran")
	}
	// Validation hints reach the client too.
	res = call(t, s, "Read", map[string]any{"path": "a.txt"})
	if !res.IsError || !strings.Contains(text(res), "add the required field `file_path`") {
		t.Fatalf("bad input: %s", text(res))
	}
	res = call(t, s, "Grep", map[string]any{"pattern": "alph", "output_mode": "sideways"})
	if !res.IsError || !strings.Contains(text(res), "files_with_matches") {
		t.Fatalf("bad enum: %s", text(res))
	}
	// An unknown tool is a protocol error, as the specification says.
	if _, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "Nope", Arguments: map[string]any{}}); err == nil || !strings.Contains(err.Error(), "Nope") {
		t.Fatalf("unknown tool: %v", err)
	}
}

// Each builtin runs through MCP, and its result says so.
func TestMCPEachBuiltin(t *testing.T) {
	e := newEnv(t)
	e.write("a.txt", "alpha\nbeta\n")
	e.write("go.mod", "module m\n\ngo 1.22\n")
	e.write("m.go", "package m\n")
	s := e.connect(t, nil, "--allow", "Bash(sleep:*)", "--allow", "Diagnostics", "--allow", "Read(.)", "--allow", "KillShell")
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"Bash", map[string]any{"command": "echo hi"}, "hi"},
		{"Grep", map[string]any{"pattern": "beta", "output_mode": "content"}, "beta"},
		{"Read", map[string]any{"file_path": "a.txt"}, "     2\tbeta"},
	} {
		res := call(t, s, c.tool, c.args)
		if res.IsError || !strings.Contains(text(res), c.want) {
			t.Errorf("%s: %s", c.tool, text(res))
		}
	}
	res := call(t, s, "Bash", map[string]any{"command": "sleep 30", "run_in_background": true})
	if res.IsError {
		t.Fatalf("background Bash: %s", text(res))
	}
	id := strings.Fields(text(res)[strings.Index(text(res), "bash_"):])[0]
	id = strings.TrimRight(id, ".,;:)")
	if res := call(t, s, "BashOutput", map[string]any{"bash_id": id}); res.IsError {
		t.Errorf("BashOutput %s: %s", id, text(res))
	}
	if res := call(t, s, "KillShell", map[string]any{"shell_id": id}); res.IsError {
		t.Errorf("KillShell %s: %s", id, text(res))
	}
	if res := call(t, s, "Diagnostics", map[string]any{}); res.IsError || !strings.Contains(text(res), "go vet ./...: no problems found") {
		t.Errorf("Diagnostics: %s %v", text(res), res.Meta)
	}
}

// Annotations come from what each tool declares; readOnlyHint only for
// tools whose every call is read-only.
func TestMCPAnnotations(t *testing.T) {
	e := newEnv(t)
	s := e.connect(t, nil)
	tools, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	type hints struct {
		readOnly, destructive, idempotent, openWorld bool
	}
	want := map[string]hints{
		"Bash":        {false, true, false, true},
		"BashOutput":  {true, false, false, false},
		"KillShell":   {false, true, true, false},
		"Grep":        {true, false, true, false},
		"Read":        {true, false, true, false},
		"Diagnostics": {false, true, false, true},
		"Edit":        {false, true, false, false},
		"Write":       {false, true, true, false},
		"Glob":        {true, false, true, false},
	}
	for _, tool := range tools.Tools {
		a := tool.Annotations
		if a == nil || a.DestructiveHint == nil || a.OpenWorldHint == nil || a.Title == "" || tool.Title != a.Title {
			t.Errorf("%s: annotations %+v, title %q", tool.Name, a, tool.Title)
			continue
		}
		got := hints{a.ReadOnlyHint, *a.DestructiveHint, a.IdempotentHint, *a.OpenWorldHint}
		if got != want[tool.Name] {
			t.Errorf("%s: hints %+v, want %+v", tool.Name, got, want[tool.Name])
		}
	}
}

// A tool that declares no annotations gets the conservative hints.
func TestMCPAnnotationsDefaultConservative(t *testing.T) {
	e := newEnv(t)
	e.enableTestkit()
	s := e.connect(t, nil)
	tools, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(tools.Tools, func(t *mcp.Tool) bool { return t.Name == "Noop" })
	if i < 0 {
		t.Fatalf("no Noop in %s", toolNames(tools.Tools))
	}
	a := tools.Tools[i].Annotations
	if a == nil || a.ReadOnlyHint || a.IdempotentHint || a.DestructiveHint == nil || !*a.DestructiveHint || a.OpenWorldHint == nil || !*a.OpenWorldHint {
		t.Fatalf("undeclared annotations = %+v, want readOnly false, destructive true, idempotent false, openWorld true", a)
	}
	// Plugins' tools follow the builtins, in config order.
	if got := toolNames(tools.Tools); !strings.HasPrefix(got, riotOrder+",") {
		t.Fatalf("tools/list = %s", got)
	}
}

// The UI payload goes in _meta, never structuredContent: riot's tools
// declare no output schema.
func TestMCPUIPayloadInMeta(t *testing.T) {
	e := newEnv(t)
	s := e.connect(t, nil)
	res := call(t, s, "Bash", map[string]any{"command": "echo hi"})
	if res.StructuredContent != nil {
		t.Fatalf("structuredContent = %v", res.StructuredContent)
	}
	ui, _ := json.Marshal(res.Meta["riot/ui"])
	if !strings.Contains(string(ui), `"exit_code":0`) {
		t.Fatalf("_meta = %v", res.Meta)
	}
	if res.Meta["riot/status"] != "ok" || res.Meta["riot/describe"] == "" {
		t.Fatalf("_meta = %v", res.Meta)
	}
	tools, _ := s.ListTools(context.Background(), nil)
	for _, tool := range tools.Tools {
		if tool.OutputSchema != nil {
			t.Errorf("%s declares an output schema", tool.Name)
		}
	}
}

// A client that supports elicitation is asked, and its answer holds:
// accept once, decline, and a session grant that is not asked again.
func TestMCPElicitation(t *testing.T) {
	e := newEnv(t)
	asked := make(chan string, 8)
	var mu sync.Mutex
	action, answer := "accept", "allow once"
	s := e.connect(t, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked <- req.Params.Message
			mu.Lock()
			defer mu.Unlock()
			return &mcp.ElicitResult{Action: action, Content: map[string]any{"decision": answer}}, nil
		},
	})
	set := func(a, d string) { mu.Lock(); action, answer = a, d; mu.Unlock() }
	res := call(t, s, "Bash", map[string]any{"command": "touch x"})
	if res.IsError {
		t.Fatalf("allowed touch: %s", text(res))
	}
	if msg := <-asked; !strings.Contains(msg, "touch x") {
		t.Fatalf("asked %q", msg)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "x")); err != nil {
		t.Fatal("an allowed call did not run")
	}
	set("decline", "")
	res = call(t, s, "Bash", map[string]any{"command": "touch y"})
	if !res.IsError || !strings.Contains(text(res), "The user denied permission for this call") {
		t.Fatalf("declined touch: %s", text(res))
	}
	<-asked
	set("accept", "deny")
	res = call(t, s, "Bash", map[string]any{"command": "touch y"})
	if !res.IsError || !strings.Contains(text(res), "The user denied permission for this call") {
		t.Fatalf("denied touch: %s", text(res))
	}
	<-asked
	if _, err := os.Stat(filepath.Join(e.ws, "y")); !os.IsNotExist(err) {
		t.Fatal("a denied call ran")
	}
	set("accept", "allow for this session")
	if res := call(t, s, "Bash", map[string]any{"command": "mkdir d1"}); res.IsError {
		t.Fatalf("session grant: %s", text(res))
	}
	<-asked
	if res := call(t, s, "Bash", map[string]any{"command": "mkdir d2"}); res.IsError {
		t.Fatalf("after a session grant: %s", text(res))
	}
	select {
	case msg := <-asked:
		t.Fatalf("asked again after a session grant: %q", msg)
	default:
	}
}

// Ten concurrency-safe calls from ten requests run at once: each waits at
// a barrier for all ten.
func TestMCPConcurrentCalls(t *testing.T) {
	e := newEnv(t)
	e.enableTestkit()
	s := e.connect(t, nil)
	var wg sync.WaitGroup
	errs := make(chan string, 10)
	for range 10 {
		wg.Go(func() {
			res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "Barrier", Arguments: map[string]any{"name": "b", "n": 10, "wait_ms": 20000}})
			if err != nil {
				errs <- err.Error()
			} else if res.IsError {
				errs <- text(res)
			}
		})
	}
	wg.Wait()
	close(errs)
	for msg := range errs {
		t.Error(msg)
	}
}

// An output over budget comes back as a preview and a resource_link, and
// resources/read serves the whole of it, for this session only.
func TestMCPSpilledResultResource(t *testing.T) {
	e := newEnv(t)
	s := e.connect(t, nil, "--allow", "Bash(seq:*)")
	res := call(t, s, "Bash", map[string]any{"command": "seq 1 30000"})
	if res.IsError {
		t.Fatalf("seq: %s", text(res))
	}
	var link *mcp.ResourceLink
	for _, c := range res.Content {
		if l, ok := c.(*mcp.ResourceLink); ok {
			link = l
		}
	}
	if link == nil || !strings.HasPrefix(link.URI, "riot://results/") || link.MIMEType != "text/plain" {
		t.Fatalf("no resource link to the spilled result: %s", text(res))
	}
	if len(text(res)) > 10_000 {
		t.Fatalf("the preview is %d characters", len(text(res)))
	}
	full, err := s.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: link.URI})
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for i := 1; i <= 30000; i++ {
		fmt.Fprintf(&want, "%d\n", i)
	}
	if len(full.Contents) != 1 || full.Contents[0].Text != want.String() {
		t.Fatalf("resources/read returned %d contents, not the whole output", len(full.Contents))
	}
	if link.Size == nil || *link.Size != int64(want.Len()) {
		t.Fatalf("link size = %v, want %d", link.Size, want.Len())
	}
	// Another session's results, and paths out of the results directory,
	// are not found.
	session := strings.Split(strings.TrimPrefix(link.URI, "riot://results/"), "/")[0]
	for _, uri := range []string{
		"riot://results/other-session/" + strings.TrimPrefix(link.URI, "riot://results/"+session+"/"),
		"riot://results/" + session + "/..%2F..%2Fcache%2Fmanifests",
		"riot://results/" + session + "/%2Fetc%2Fpasswd",
		"riot://results/" + session + "/.hidden",
		"riot://results/" + session,
		"file:///etc/passwd",
	} {
		if _, err := s.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri}); err == nil || !strings.Contains(err.Error(), "not found") {
			t.Errorf("resources/read %s: %v, want not found", uri, err)
		}
	}
}
