package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/riot-tools/riot/internal/proctest"
)

// sessionFile is the state file of session id in e's state dir.
func sessionFile(e *env, id string) string {
	return filepath.Join(e.state, "riot", "sessions", id+".json")
}

// movedAside is the one corrupt state file set aside for path, and what
// it holds.
func movedAside(t *testing.T, path string) (string, string) {
	t.Helper()
	moved, _ := filepath.Glob(path + ".corrupt-*")
	if len(moved) != 1 {
		t.Fatalf("want the corrupt file set aside once beside %s, found %v", path, moved)
	}
	data, err := os.ReadFile(moved[0])
	if err != nil {
		t.Fatal(err)
	}
	return moved[0], string(data)
}

// noRawError fails if a library's error text reached the model (stdout),
// or, with user, the user's stderr, where riot's words come first and the
// system's, if any, follow them in parentheses.
func noRawError(t *testing.T, r result, user bool) {
	t.Helper()
	out := r.stdout
	if user {
		out += r.stderr
	}
	for _, raw := range []string{"invalid character", "is a directory", "json:", "unexpected end of JSON"} {
		if strings.Contains(out, raw) {
			t.Fatalf("a raw error (%q) reached the output:\nstdout: %s\nstderr: %s", raw, r.stdout, r.stderr)
		}
	}
}

// A corrupt session file, without a session host: the call runs, in a
// session started afresh; the file is set aside whole, its new name on
// stderr; the model is told in the result what was lost. The next
// invocation loads the new session. Before, every call exited 2 with the
// JSON parser's error.
func TestCorruptSessionFileWithoutAHost(t *testing.T) {
	e := newEnv(t)
	e.write("f.txt", "one\n")
	path := sessionFile(e, "S")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := e.riot("", "call", "--session", "S", "Read", `{"file_path":"f.txt"}`)
	r.want(t, 0, "one", "riot could not read this session's saved state (its file was corrupt) and started the session afresh: Read again any file you read earlier before you Edit it")
	noRawError(t, r, true)
	moved, data := movedAside(t, path)
	if data != "{not json" || !strings.Contains(r.stderr, "the state file of session S was corrupt and was moved to "+moved) {
		t.Fatalf("the set-aside file holds %q; stderr:\n%s", data, r.stderr)
	}
	// The fresh session saved the Read, and says nothing more.
	r = e.riot("", "call", "--session", "S", "--mode", "acceptEdits", "Edit", `{"file_path":"f.txt","old_string":"one","new_string":"two"}`)
	r.want(t, 0)
	if strings.Contains(r.stdout+r.stderr, "corrupt") {
		t.Fatalf("the loss was told twice:\n%s%s", r.stdout, r.stderr)
	}
	if got, _ := os.ReadFile(filepath.Join(e.ws, "f.txt")); string(got) != "two\n" {
		t.Fatalf("f.txt = %q after the Edit", got)
	}
}

// A session file corrupted while a session host serves it: the host sets
// it aside and writes the state it holds in its place, and tells the user;
// after the host stops, the session loads, with nothing lost. Before, the
// host could not save and nobody was told, and the session would not load
// once it stopped.
func TestCorruptSessionFileUnderAHost(t *testing.T) {
	e := newEnv(t)
	allowBash(e, "")
	e.write("f.txt", "one\n")
	e.write("g.txt", "gee\n")
	m := startHost(t, e, "S")
	e.riot("", "call", "--session", "S", "Read", `{"file_path":"f.txt"}`).want(t, 0, "one")
	// The host writes a turn's state before it takes the next turn: after
	// this one, the first Read is on disk.
	e.riot("", "call", "--session", "S", "Glob", `{"pattern":"*.txt"}`).want(t, 0, "f.txt")
	path := sessionFile(e, "S")
	if data, err := os.ReadFile(path); err != nil || !strings.Contains(string(data), "f.txt") {
		t.Fatalf("the host did not save the Read: %q, %v", data, err)
	}
	if err := os.WriteFile(path, []byte("\x00garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	// The host notices at its next look at the file, and has set it aside
	// before it takes the turn after: it is told by then.
	r1 := e.riot("", "call", "--session", "S", "Read", `{"file_path":"g.txt"}`)
	r1.want(t, 0, "gee")
	r2 := e.riot("", "call", "--session", "S", "Glob", `{"pattern":"*.txt"}`)
	r2.want(t, 0, "g.txt")
	moved, data := movedAside(t, path)
	told := "the state file of session S was corrupt; riot moved it to " + moved + " and saved the state it held in its place, so nothing was lost"
	if data != "\x00garbage" || !strings.Contains(r1.stderr+r2.stderr, told) {
		t.Fatalf("the set-aside file holds %q; want the user told %q; stderr:\n%s%s", data, told, r1.stderr, r2.stderr)
	}
	noRawError(t, r1, true)
	noRawError(t, r2, true)
	e.riot("", "serve", "--stop", "--session", "S").want(t, 0, "Stopped the session host of S")
	if !proctest.WaitExit(m.Pid, 10*time.Second) {
		t.Fatal("the host outlived --stop")
	}
	// Without the host, the session loads with both Reads.
	for f, word := range map[string]string{"f.txt": "one", "g.txt": "gee"} {
		r := e.riot("", "call", "--session", "S", "Edit", `{"file_path":"`+f+`","old_string":"`+word+`","new_string":"`+strings.ToUpper(word)+`"}`)
		r.want(t, 0)
		noRawError(t, r, true)
	}
}

// blockSessionLock puts a directory where the session's lock file goes:
// its state can then be read but not saved, for root too.
func blockSessionLock(t *testing.T, e *env, id string) string {
	t.Helper()
	lock := sessionFile(e, id) + ".lock"
	if err := os.MkdirAll(lock, 0o700); err != nil {
		t.Fatal(err)
	}
	return lock
}

// A state that cannot be saved, without a session host: the Read runs,
// and its result tells the model that it was not recorded and what that
// means for an Edit, and the user, on stderr, why and what to do. Before,
// only a warning on stderr said so.
func TestUnsaveableSessionStateWithoutAHost(t *testing.T) {
	e := newEnv(t)
	e.write("f.txt", "one\n")
	lock := blockSessionLock(t, e, "S")
	r := e.riot("", "call", "--session", "S", "Read", `{"file_path":"f.txt"}`)
	r.want(t, 0, "one",
		"riot could not save what this call recorded in the session (a directory stands where a file should be), such as that a file was read: it holds only while this riot process runs, so in a later invocation Edit will ask you to Read the file again. Tell the user to check "+filepath.Dir(lock),
		"cannot save the state of session S (a directory stands where a file should be): check "+filepath.Dir(lock))
	noRawError(t, r, false)
	// As the model was told: a later Edit asks for the Read.
	e.riot("", "call", "--session", "S", "--mode", "acceptEdits", "Edit", `{"file_path":"f.txt","old_string":"one","new_string":"two"}`).want(t, 1, "Read")
}

// A state a session host cannot save: it keeps serving from memory (the
// Edit after the Read works), and the model and the user are told, once,
// that the state is lost when the host stops, and what to do.
func TestUnsaveableSessionStateUnderAHost(t *testing.T) {
	e := newEnv(t)
	allowBash(e, "")
	e.write("f.txt", "one\n")
	startHost(t, e, "S")
	blockSessionLock(t, e, "S")
	e.riot("", "call", "--session", "S", "Read", `{"file_path":"f.txt"}`).want(t, 0, "one")
	// The host wrote behind the Read, and failed, before this turn.
	r := e.riot("", "call", "--session", "S", "Edit", `{"file_path":"f.txt","old_string":"one","new_string":"two"}`)
	r.want(t, 0, "riot cannot save this session's state (a directory stands where a file should be). This session host keeps it in memory, but loses it when it stops",
		"riot: cannot save the state of session S (a directory stands where a file should be)")
	noRawError(t, r, false)
	if got, _ := os.ReadFile(filepath.Join(e.ws, "f.txt")); string(got) != "two\n" {
		t.Fatalf("f.txt = %q: the host did not serve the Read from memory", got)
	}
	// Told once, not in every turn.
	r = e.riot("", "call", "--session", "S", "Glob", `{"pattern":"*.txt"}`)
	r.want(t, 0, "f.txt")
	if strings.Contains(r.stdout+r.stderr, "cannot save") {
		t.Fatalf("told again:\n%s%s", r.stdout, r.stderr)
	}
}
