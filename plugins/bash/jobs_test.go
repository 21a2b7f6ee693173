//go:build linux

package bash

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func (f *fixture) job(t *testing.T, id string) *job {
	t.Helper()
	f.jobs.mu.Lock()
	defer f.jobs.mu.Unlock()
	j := f.jobs.byID[id]
	if j == nil {
		t.Fatalf("no job %s", id)
	}
	return j
}

func (f *fixture) waitJob(t *testing.T, id string) {
	t.Helper()
	select {
	case <-f.job(t, id).done:
	case <-time.After(10 * time.Second):
		t.Fatalf("job %s did not end", id)
	}
}

func TestBackgroundJobLifecycle(t *testing.T) {
	f := newFixture(t, nil)
	c := f.c
	step1, step2 := mkfifo(t, "step1"), mkfifo(t, "step2")
	cmd := "echo one; cat " + shellQuote(step1) + "; echo two; echo skipped; cat " + shellQuote(step2) + "; echo three"

	start := time.Now()
	res := c.Call("Bash", background(cmd))
	if !res.Ok || !strings.HasPrefix(res.Text, "Started background job bash_1.\n") {
		t.Fatalf("start: ok=%v text=%q msg=%q", res.Ok, res.Text, res.Message)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatal("a background start should return at once")
	}
	var ui jobUI
	if err := json.Unmarshal(res.UI, &ui); err != nil || ui.JobID != "bash_1" {
		t.Fatalf("ui = %s", res.UI)
	}
	if !strings.HasPrefix(ui.OutputPath, f.tmp) || !strings.Contains(res.Text, "Output file: "+ui.OutputPath) {
		t.Fatalf("the output file %q should be named and under %s: %q", ui.OutputPath, f.tmp, res.Text)
	}
	if !strings.Contains(res.Text, "It runs until it exits, KillShell stops it, or riot's host of this session ends.") {
		t.Fatalf("the result should say the job dies with the plugin's host: %q", res.Text)
	}

	// The job has printed "one" once it opens step1, and waits there.
	hold := reach(t, step1)
	res = c.Call("BashOutput", map[string]any{"bash_id": "bash_1"})
	if !res.Ok || res.Text != "one\n" || !strings.HasPrefix(res.Message, "Job bash_1 is running.") {
		t.Fatalf("first read: ok=%v text=%q msg=%q", res.Ok, res.Text, res.Message)
	}

	// Only new output, filtered: the lines that do not match are gone.
	_ = hold.Close()
	hold = reach(t, step2)
	res = c.Call("BashOutput", map[string]any{"bash_id": "bash_1", "filter": "^t"})
	if res.Text != "two\n" || !strings.Contains(res.Message, "1 new lines matched the filter; 1 did not") {
		t.Fatalf("filtered read: text=%q msg=%q", res.Text, res.Message)
	}

	_ = hold.Close()
	f.waitJob(t, "bash_1")
	res = c.Call("BashOutput", map[string]any{"bash_id": "bash_1"})
	if res.Text != "three\n" || !strings.HasPrefix(res.Message, "Job bash_1 exited with status 0.") {
		t.Fatalf("read after exit: text=%q msg=%q", res.Text, res.Message)
	}
	res = c.Call("BashOutput", map[string]any{"bash_id": "bash_1"})
	if res.Text != "" || !strings.Contains(res.Message, "(No new output.)") {
		t.Fatalf("read with nothing new: text=%q msg=%q", res.Text, res.Message)
	}

	// The whole output stays in the file.
	all, err := os.ReadFile(ui.OutputPath)
	if err != nil || string(all) != "one\ntwo\nskipped\nthree\n" {
		t.Fatalf("output file: %q (%v)", all, err)
	}
}

func TestBackgroundJobStartsInSessionDir(t *testing.T) {
	f := newFixture(t, nil)
	sub := filepath.Join(f.c.Cwd, "sub")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	f.c.State[cwdStateKey] = sub
	f.c.Call("Bash", background("pwd; cd /"))
	f.waitJob(t, "bash_1")
	res := f.c.Call("BashOutput", map[string]any{"bash_id": "bash_1"})
	if res.Text != sub+"\n" {
		t.Fatalf("the job should start in the session directory: %q", res.Text)
	}
	if f.c.State[cwdStateKey] != sub {
		t.Fatalf("a background job's cd must not move the session: %v", f.c.State)
	}
}

func TestKillShell(t *testing.T) {
	f := newFixture(t, nil)
	c := f.c
	fifo := mkfifo(t, "pids")
	got := make(chan string, 1)
	go func() {
		line, _ := readFifoLine(fifo)
		got <- line
	}()
	res := c.Call("Bash", background(`sleep 300 & echo "$! $$" > `+shellQuote(fifo)+`; wait`))
	if !res.Ok {
		t.Fatal(res.Message)
	}
	p := pids(t, <-got)
	watch := watchExit(t, p...)

	res = c.Call("KillShell", map[string]any{"shell_id": "bash_1"})
	if !res.Ok || !strings.HasPrefix(res.Text, "Stopped background job bash_1") {
		t.Fatalf("kill: ok=%v text=%q msg=%q", res.Ok, res.Text, res.Message)
	}
	if left := watch.wait(time.Now().Add(3 * time.Second)); len(left) > 0 {
		t.Fatalf("still running after KillShell: %v", left)
	}
	res = c.Call("BashOutput", map[string]any{"bash_id": "bash_1"})
	if !strings.HasPrefix(res.Message, "Job bash_1 was stopped with KillShell.") {
		t.Fatalf("status after kill: %q", res.Message)
	}
	res = c.Call("KillShell", map[string]any{"shell_id": "bash_1"})
	if !res.Ok || !strings.Contains(res.Text, "Nothing to stop") {
		t.Fatalf("killing a stopped job: %q", res.Text)
	}
}

func TestKillShellEscalatesToSIGKILL(t *testing.T) {
	f := newFixture(t, func(c *config) { c.killGrace = 200 * time.Millisecond })
	fifo := mkfifo(t, "pids")
	got := make(chan string, 1)
	go func() {
		line, _ := readFifoLine(fifo)
		got <- line
	}()
	f.c.Call("Bash", background(`trap '' TERM; sleep 300 & echo "$! $$" > `+shellQuote(fifo)+`; wait`))
	watch := watchExit(t, pids(t, <-got)...)
	res := f.c.Call("KillShell", map[string]any{"shell_id": "bash_1"})
	if !res.Ok {
		t.Fatal(res.Message)
	}
	if left := watch.wait(time.Now().Add(3 * time.Second)); len(left) > 0 {
		t.Fatalf("processes ignoring SIGTERM survived KillShell: %v", left)
	}
}

func TestUnknownJobListsRunningJobs(t *testing.T) {
	f := newFixture(t, nil)
	c := f.c
	for _, tool := range []string{"BashOutput", "KillShell"} {
		field := map[string]string{"BashOutput": "bash_id", "KillShell": "shell_id"}[tool]
		res := c.Call(tool, map[string]any{field: "bash_9"})
		if res.Ok || !strings.Contains(res.Message, `There is no background job "bash_9" in this session.`) ||
			!strings.Contains(res.Message, "No background jobs are running in this session") {
			t.Fatalf("%s with no jobs: %q", tool, res.Message)
		}
	}

	c.Call("Bash", background("sleep 300"))
	c.Call("Bash", background("true"))
	f.waitJob(t, "bash_2")
	for _, tool := range []string{"BashOutput", "KillShell"} {
		field := map[string]string{"BashOutput": "bash_id", "KillShell": "shell_id"}[tool]
		res := c.Call(tool, map[string]any{field: "bash_9"})
		if res.Ok || !strings.Contains(res.Message, "Running jobs: bash_1 (`sleep 300`). Use one of these ids.") {
			t.Fatalf("%s should list only the running job: %q", tool, res.Message)
		}
	}

	// Another session sees none of them.
	c.SessionID = "another"
	res := c.Call("BashOutput", map[string]any{"bash_id": "bash_1"})
	if res.Ok || !strings.Contains(res.Message, "No background jobs are running in this session") {
		t.Fatalf("another session read a job: %q", res.Message)
	}
}

func TestBackgroundJobIsNotReadOnly(t *testing.T) {
	f := newFixture(t, nil)
	p := f.c.Prepare("Bash", background("ls"))
	if p.ReadOnly || p.ConcurrencySafe {
		t.Fatalf("a background job outlives its call and must not be read-only: %+v", p)
	}
	p = f.c.Prepare("Bash", run("ls"))
	if !p.ReadOnly || !p.ConcurrencySafe {
		t.Fatalf("ls in the foreground should be read-only: %+v", p)
	}
}

// TestJobLifetimeUnderASessionHost checks that a job started in a session
// host says it outlives the invocation, and outside one says it does not.
func TestJobLifetimeUnderASessionHost(t *testing.T) {
	for _, tc := range []struct{ lifetime, want string }{
		{"session-host", "It keeps running across riot invocations of this session"},
		{"", "or riot's host of this session ends"},
		{"something-else", "or riot's host of this session ends"},
	} {
		jt := &jobTable{cfg: config{lifetime: tc.lifetime}}
		if got := jt.lifetimeNote(); !strings.Contains(got, tc.want) {
			t.Errorf("lifetime %q: %q should say %q", tc.lifetime, got, tc.want)
		}
	}
}
