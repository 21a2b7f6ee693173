package main_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// jobRunning is a call that only the session host holding the background
// job bash_1 answers with "Job bash_1 is running": a client that ran its
// turn itself would say there is no such job.
const jobRunning = `{"type":"tool_use","id":"o","name":"BashOutput","input":{"bash_id":"bash_1"}}`

// `riot run --session` and `riot call --session` attached to a host take
// every spelling of their command line, print their results as without a
// host, and exit as without one: 0 for a turn that ran, 1 for a call that
// did not end ok, 2 for a command line or an input riot cannot take.
func TestAttachedRunAndCallKeepTheCLIContract(t *testing.T) {
	e := newEnv(t)
	allowBash(e, "")
	startHost(t, e, "S")
	jobPID, _ := bgJob(t, e, "S", "exec sleep 600")
	defer syscall.Kill(jobPID, syscall.SIGKILL)
	e.write("a.txt", "one\ntwo\n")
	anthropic := `[{"type":"tool_use","id":"r","name":"Read","input":{"file_path":"a.txt"}},` + jobRunning + `]`
	openai := `[{"id":"r","type":"function","function":{"name":"Read","arguments":"{\"file_path\":\"a.txt\"}"}},` +
		`{"id":"o","type":"function","function":{"name":"BashOutput","arguments":"{\"bash_id\":\"bash_1\"}"}}]`
	turn := e.write("turn.json", anthropic)
	for _, tc := range []struct {
		stdin string
		args  []string
		want  []string
	}{
		{"", []string{"run", "--session", "S", turn}, []string{`"tool_use_id": "r"`, "one"}},
		{anthropic, []string{"run", "--session=S", "-q"}, []string{`"tool_use_id": "r"`, "one"}},
		{anthropic, []string{"run", "-", "--session", "S"}, []string{`"tool_use_id": "r"`, "one"}},
		{openai, []string{"run", "--format", "openai", "--session", "S"}, []string{`"tool_call_id": "r"`, "one"}},
		{"", []string{"call", "--session", "S", "BashOutput", `{"bash_id":"bash_1"}`}, nil},
		{`{"bash_id":"bash_1"}`, []string{"call", "--json", "--session", "S", "BashOutput", "-"}, []string{`"status": "ok"`}},
	} {
		r := e.riot(tc.stdin, tc.args...)
		r.want(t, 0, append(tc.want, "Job bash_1 is running")...)
		if r.stderr != "" {
			t.Errorf("riot %s: stderr %q", strings.Join(tc.args, " "), r.stderr)
		}
	}
	// A call that does not end ok exits 1, attached or not.
	e.riot("", "call", "--session", "S", "Bash", `{"command":"exit 3"}`).want(t, 1, "3")
	e.riot("", "call", "--session", "S", "Read").want(t, 1, "file_path")
	// What riot cannot take is said before any host is asked, and exits 2.
	e.riot("[{", "run", "--session", "S").want(t, 2, "malformed turn")
	e.riot("", "run", "--session", "S", filepath.Join(e.ws, "missing.json")).want(t, 2, "it does not exist")
	e.riot("", "call", "--session", "S", "Nope", "{}").want(t, 2, "Nope")
	e.riot("[1]", "call", "--session", "S", "Read", "-").want(t, 2, "JSON object")
	e.riot("", "run", "--session", "S", "--format", "xml").want(t, 2, "use anthropic or openai")
}

// A host that refuses a client (here, one of another build) leaves the turn
// to the client: it warns once and runs the turn it read from stdin itself,
// reading stdin once.
func TestAttachedRunRefusedRunsTheTurnFromStdinHere(t *testing.T) {
	e := newEnv(t)
	allowBash(e, "")
	startHost(t, e, "S")
	// A copy of riot is another build to the host: the build id names the
	// executable's inode.
	other := filepath.Join(t.TempDir(), "riot")
	data, err := os.ReadFile(bin.riot)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, data, 0o755); err != nil {
		t.Fatal(err)
	}
	e.exe = other
	r := e.riot(`[{"type":"tool_use","id":"b","name":"Bash","input":{"command":"echo from-stdin"}}]`, "run", "--session", "S")
	r.want(t, 0, "from-stdin")
	if strings.Count(r.stderr, "warning") != 1 || !strings.Contains(r.stderr, "runs another riot build") || !strings.Contains(r.stderr, "running this turn here") {
		t.Fatalf("want one warning saying the turn ran here: %q", r.stderr)
	}
}

// An interrupted `riot run --session` cancels its turn in the host, prints
// the call as cancelled and exits 0, as the turn ran; the host goes on
// serving.
func TestAttachedRunInterrupted(t *testing.T) {
	e := newEnv(t)
	allowBash(e, "")
	startHost(t, e, "S")
	fifo := makeFifo(t, filepath.Join(t.TempDir(), "started"))
	cmd := e.command(fmt.Sprintf(`[{"type":"tool_use","id":"b","name":"Bash","input":{"command":"echo started > %s; exec sleep 60"}}]`, fifo), "run", "--session", "S")
	var out strings.Builder
	cmd.Stdout = &out
	client := startProc(t, cmd)
	if got := client.readFifo(t, fifo, out.String); got != "started\n" {
		t.Fatalf("the command's signal that it runs: %q", got)
	}
	if err := client.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := client.wait(); err != nil {
		t.Fatalf("the interrupted client: %v (stdout %s)", err, out.String())
	}
	if !strings.Contains(out.String(), `"is_error": true`) || !strings.Contains(strings.ToLower(out.String()), "cancel") {
		t.Fatalf("want the call cancelled: %s", out.String())
	}
	e.riot(`[{"type":"tool_use","id":"b","name":"Bash","input":{"command":"echo still"}}]`, "run", "--session", "S").want(t, 0, "still")
}
