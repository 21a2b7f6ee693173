package bash

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// Unit tests of the runtime's pure parts, without processes: they run in
// milliseconds, so mutation testing can afford them.

func TestExitOutcome(t *testing.T) {
	tests := []struct {
		name, command string
		code          int
		sig           string
		notes         []string
		ok            bool
		message       string
	}{
		{"zero", "make", 0, "", nil, true, ""},
		{"zero with notes", "make", 0, "", []string{"n1", "n2"}, true, "n1\nn2"},
		{"one", "make", 1, "", nil, false, "Exit status 1."},
		{"grep one", "grep x f", 1, "", nil, true, "(exit status 1: no match)"},
		{"rg one", "rg x", 1, "", []string{"n"}, true, "(exit status 1: no match)\nn"},
		{"diff one", "diff a b", 1, "", nil, true, "(exit status 1: files differ)"},
		{"cmp one", "cmp a b", 1, "", nil, true, "(exit status 1: files differ)"},
		{"test one", "test -f x", 1, "", nil, true, "(exit status 1: false)"},
		{"bracket one", "[ -f x ]", 1, "", nil, true, "(exit status 1: false)"},
		{"grep two", "grep x f", 2, "", nil, false, "Exit status 2."},
		{"grep not last", "grep x f; make", 1, "", nil, false, "Exit status 1."},
		{"128 is no signal", "make", 128, "", nil, false, "Exit status 128."},
		{"129 is SIGHUP", "make", 129, "", nil, false, "Exit status 129.\n(129 is 128 + 1: the command was probably killed by SIGHUP.)"},
		{"137 is SIGKILL", "make", 137, "", []string{"n"}, false, "Exit status 137.\n(137 is 128 + 9: the command was probably killed by SIGKILL.)\nn"},
		{"192 is no known signal", "make", 192, "", nil, false, "Exit status 192."},
		{"255 is no signal", "make", 255, "", nil, false, "Exit status 255."},
		{"signal", "make", -1, "SIGKILL", []string{"n"}, false, "Killed by signal SIGKILL.\nn"},
		{"unknown", "make", -1, "", nil, false, "The command ended with an unknown status.\nIt may have partially run; check its effects before retrying."},
	}
	for _, tt := range tests {
		o := exitOutcome(tt.command, tt.code, tt.sig, tt.notes)
		if o.IsOk() != tt.ok || o.Message() != tt.message {
			t.Errorf("%s: ok=%v %q; want ok=%v %q", tt.name, o.IsOk(), o.Message(), tt.ok, tt.message)
		}
	}
}

func TestExitStatusOfASignal(t *testing.T) {
	err := exec.Command("sh", "-c", "kill -KILL $$").Run()
	if code, sig := exitStatus(err); code != -1 || sig != "SIGKILL" {
		t.Fatalf("killed by SIGKILL: %d %q", code, sig)
	}
	err = exec.Command("sh", "-c", "exit 7").Run()
	if code, sig := exitStatus(err); code != 7 || sig != "" {
		t.Fatalf("exit 7: %d %q", code, sig)
	}
}

func TestExitStatusOfWaitErrors(t *testing.T) {
	if code, sig := exitStatus(nil); code != 0 || sig != "" {
		t.Errorf("nil: %d %q", code, sig)
	}
	if code, sig := exitStatus(errors.New("wait failed")); code != -1 || sig != "" {
		t.Errorf("not an exit error: %d %q", code, sig)
	}
}

func TestSessionDir(t *testing.T) {
	ws := t.TempDir()
	sub := filepath.Join(ws, "sub")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(ws, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		state, dir string
		note       bool
	}{
		{"", ws, false},
		{sub, sub, false},
		{filepath.Join(ws, "gone"), ws, true},
		{file, ws, true},
		{"sub", ws, true}, // never stored relative; not trusted
	}
	for _, tt := range tests {
		dir, note := startDir(ws, tt.state)
		if dir != tt.dir || (note != "") != tt.note {
			t.Errorf("state %q: dir %q note %q", tt.state, dir, note)
		}
		if tt.note && note != "The working directory "+tt.state+" no longer exists, so this command ran in the workspace directory "+ws+"." {
			t.Errorf("note %q", note)
		}
	}
	if got := cwdUpdate(ws, ws); got != "" {
		t.Errorf("the workspace directory should clear the state, got %q", got)
	}
	if got := cwdUpdate(ws, sub); got != sub {
		t.Errorf("cwdUpdate = %q", got)
	}
	if msg := dirProblem(ws); msg != "" {
		t.Errorf("an existing directory: %q", msg)
	}
	if msg := dirProblem(""); msg != "" {
		t.Errorf("no directory means the plugin's: %q", msg)
	}
	for _, bad := range []string{file, filepath.Join(ws, "gone")} {
		if msg := dirProblem(bad); !strings.Contains(msg, bad+": the directory does not exist") {
			t.Errorf("%s: %q", bad, msg)
		}
	}
}

func TestParseCwd(t *testing.T) {
	tests := []struct {
		content string
		want    string
		ok      bool
	}{
		{"", "", false},
		{"/a/b\n", "/a/b", true},
		{"/a/b", "", false},        // cut short
		{"rel\n", "", false},       // not absolute
		{"/a\nb\n", "/a\nb", true}, // a name with a newline
		{"\n", "", false},
	}
	for _, tt := range tests {
		got, ok := parseCwd([]byte(tt.content))
		if got != tt.want || ok != tt.ok {
			t.Errorf("%q: %q %v", tt.content, got, ok)
		}
	}
}

func TestChildEnv(t *testing.T) {
	in := []string{"HOME=/h", "PWD=/old", "PLUGIN_MIN_PORT=1", "RIOT_PROC_GUARD=1", "X=PWD=1"}
	got := childEnv(in, "/new")
	want := []string{"HOME=/h", "X=PWD=1", "PWD=/new"}
	if !slices.Equal(got, want) {
		t.Errorf("childEnv = %v, want %v", got, want)
	}
	if got := childEnv([]string{"PWD=/old", "A=1"}, ""); !slices.Equal(got, []string{"A=1"}) {
		t.Errorf("no directory: %v", got)
	}
}

func TestShellCommand(t *testing.T) {
	report, err := newCwdReport(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer report.close()
	cmd := shellCommand("/bin/bash", "echo 'hi'", "/w", report)
	want := []string{"/bin/bash", "-c", "trap " + shellQuote("pwd "+report.target()+" 2>/dev/null") + " EXIT; echo 'hi'"}
	if !slices.Equal(cmd.Args, want) || cmd.Dir != "/w" {
		t.Errorf("args %q dir %q", cmd.Args, cmd.Dir)
	}
	if !slices.Contains(cmd.Env, "PWD=/w") {
		t.Errorf("env lacks PWD: %v", cmd.Env)
	}
	bg := shellCommand("/bin/bash", "sleep 1", "/w", nil)
	if !slices.Equal(bg.Args, []string{"/bin/bash", "-c", "sleep 1"}) {
		t.Errorf("background args %q", bg.Args)
	}
}

func TestSupervisedNotes(t *testing.T) {
	if n := (supervised{}).notes(); len(n) != 0 {
		t.Errorf("no notes expected: %v", n)
	}
	n := supervised{strays: true, survivors: true, abandoned: true}.notes()
	if len(n) != 3 || !strings.Contains(n[0], "so they were stopped") || !strings.Contains(n[1], "still running") || !strings.Contains(n[2], "left the command's process group") {
		t.Errorf("notes %q", n)
	}
}

func TestFormatSeconds(t *testing.T) {
	for ms, want := range map[int]string{1000: "1", 1500: "1.5", 120_000: "120", 600_000: "600", 1: "0.001"} {
		if got := formatSeconds(time.Duration(ms) * time.Millisecond); got != want {
			t.Errorf("%d ms: %q, want %q", ms, got, want)
		}
	}
}

func TestTrackingWriter(t *testing.T) {
	tests := []struct{ written, want string }{
		{"", "(end)\n"},
		{"a\n", "a\n(end)\n"},
		{"a", "a\n(end)\n"},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		w := &trackingWriter{w: &buf}
		_, _ = w.Write([]byte(tt.written))
		w.trailer("(end)")
		if buf.String() != tt.want || w.n != int64(len(tt.want)) {
			t.Errorf("%q: %q (n=%d)", tt.written, buf.String(), w.n)
		}
	}
	// A failed stream is dropped, not fatal: the command must not block.
	w := &trackingWriter{w: failingWriter{}}
	if n, err := w.Write([]byte("abc")); n != 3 || err != nil {
		t.Errorf("write to a dead stream: %d %v", n, err)
	}
	if n, err := w.Write([]byte("de")); n != 2 || err != nil || w.n != 5 {
		t.Errorf("second write: %d %v n=%d", n, err, w.n)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("stream closed") }

func TestJobStatusAndLookup(t *testing.T) {
	table := newJobTable(defaultConfig())
	running := &job{id: "bash_1", command: "npm run dev", session: "s", done: make(chan struct{})}
	exited := &job{id: "bash_2", command: "make", session: "s", done: make(chan struct{}), code: 2}
	close(exited.done)
	signalled := &job{id: "bash_3", command: "x", session: "s", done: make(chan struct{}), sig: "SIGTERM"}
	close(signalled.done)
	killed := &job{id: "bash_4", command: "y", session: "s", done: make(chan struct{}), sig: "SIGTERM"}
	killed.killed.Store(true)
	close(killed.done)
	other := &job{id: "bash_5", command: "z", session: "other", done: make(chan struct{})}
	for _, j := range []*job{running, exited, signalled, killed, other} {
		table.byID[j.id] = j
		table.order = append(table.order, j)
	}
	for j, want := range map[*job]string{
		running:   "Job bash_1 is running.",
		exited:    "Job bash_2 exited with status 2.",
		signalled: "Job bash_3 was killed by signal SIGTERM.",
		killed:    "Job bash_4 was stopped with KillShell.",
	} {
		if got := j.status(); got != want {
			t.Errorf("status %q, want %q", got, want)
		}
	}
	if j, _ := table.lookup("bash_2", "s"); j != exited {
		t.Error("lookup of a finished job of the session failed")
	}
	j, msg := table.lookup("bash_5", "s")
	if j != nil || msg != "There is no background job \"bash_5\" in this session. Running jobs: bash_1 (`npm run dev`). Use one of these ids. Jobs do not survive a restart of the plugin." {
		t.Errorf("another session's job: %v %q", j, msg)
	}
	if _, msg := table.lookup("bash_1", "nobody"); !strings.Contains(msg, "No background jobs are running in this session; start one with Bash and `run_in_background`.") {
		t.Errorf("a session with no jobs: %q", msg)
	}
}

// A read returns what the file held when it started, even if the job
// writes more meanwhile: a fast writer cannot keep BashOutput reading.
func TestJobReadStopsAtSizeAtStart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bash_1.log")
	if err := os.WriteFile(path, []byte("x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	j := &job{id: "bash_1", path: path, done: make(chan struct{})}
	var first bytes.Buffer
	if res, err := j.read(&first, nil); err != nil || first.String() != "x\n" || res.bytes != 2 {
		t.Fatalf("first read: %q %+v %v", first.String(), res, err)
	}
	chunk := bytes.Repeat([]byte("a"), 100<<10)
	appendTo(t, path, chunk)
	out := &appendingWriter{t: t, path: path, extra: []byte("more\n")}
	res, err := j.read(out, nil)
	if err != nil || out.buf.Len() != len(chunk) || res.bytes != int64(len(chunk)) || j.offset != int64(2+len(chunk)) {
		t.Fatalf("second read: %d bytes, res %+v, offset %d, %v", out.buf.Len(), res, j.offset, err)
	}
	var third bytes.Buffer
	if _, err := j.read(&third, nil); err != nil || third.String() != "more\n" {
		t.Fatalf("third read: %q %v", third.String(), err)
	}
}

func appendTo(t *testing.T, path string, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	if _, err := f.Write(b); err != nil {
		t.Fatal(err)
	}
}

// appendingWriter appends to the job's file on its first write, as a job
// still running would.
type appendingWriter struct {
	t     *testing.T
	path  string
	extra []byte
	buf   bytes.Buffer
}

func (w *appendingWriter) Write(p []byte) (int, error) {
	if w.extra != nil {
		appendTo(w.t, w.path, w.extra)
		w.extra = nil
	}
	return w.buf.Write(p)
}
