package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The path classes of the permission chain (issue 11), through the real
// CLI and the real Read and Grep plugins, without a terminal.

// TestResultsDirIsThisSessions: Read may read this session's spilled
// results without asking, and not another session's.
func TestResultsDirIsThisSessions(t *testing.T) {
	e := newEnv(t)
	results := filepath.Join(e.state, "riot", "results")
	for _, f := range []struct{ session, body string }{{"mine", "my result\n"}, {"other", "their result\n"}} {
		p := filepath.Join(results, f.session, "toolu_1.txt")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f.body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func(session string) string {
		return `{"file_path":"` + filepath.Join(results, session, "toolu_1.txt") + `"}`
	}
	e.riot("", "call", "Read", read("mine"), "--session", "mine").want(t, 0, "my result")
	r := e.riot("", "call", "Read", read("other"), "--session", "mine")
	r.want(t, 1, "outside the workspace roots")
	if strings.Contains(r.stdout, "their result") {
		t.Fatal("Read showed another session's result")
	}
	r = e.riot("", "call", "Grep", `{"pattern":"result","path":"`+results+`","output_mode":"content"}`, "--session", "mine")
	r.want(t, 1, "outside the workspace roots")
	if strings.Contains(r.stdout, "their result") {
		t.Fatal("Grep showed another session's result")
	}
}

// TestGrepSkipsDeniedFiles: the host hands the Read deny rules to Grep,
// which skips what they cover while it walks and says so.
func TestGrepSkipsDeniedFiles(t *testing.T) {
	e := newEnv(t)
	e.write("secret.txt", "SECRET=hunter2\n")
	e.write("sub/secret.txt", "SECRET=deeper\n")
	e.write("notes.txt", "SECRET is a word\n")
	for _, mode := range []string{"default", "bypassPermissions"} {
		r := e.riot("", "call", "Grep", `{"pattern":"SECRET","output_mode":"content"}`, "--mode", mode, "--deny", "Read(**/secret.txt)")
		r.want(t, 0, "notes.txt:1:SECRET is a word", "Skipped 2 files that the user's Read deny rules cover")
		if strings.Contains(r.stdout, "hunter2") || strings.Contains(r.stdout, "deeper") {
			t.Fatalf("%s: Grep showed a denied file:\n%s", mode, r.stdout)
		}
	}
}

// TestReadNeverSuggestsADeniedFile: Read's "Did you mean" names no file a
// deny rule covers.
func TestReadNeverSuggestsADeniedFile(t *testing.T) {
	e := newEnv(t)
	e.write("secret.txt", "SECRET=hunter2\n")
	e.riot("", "call", "Read", `{"file_path":"secret.txx"}`).want(t, 1, "Did you mean secret.txt?")
	r := e.riot("", "call", "Read", `{"file_path":"secret.txx"}`, "--deny", "Read(**/secret.txt)")
	r.want(t, 1, "File does not exist: secret.txx.")
	if strings.Contains(r.stdout+r.stderr, "secret.txt") {
		t.Fatalf("Read suggested a denied file:\n%s%s", r.stdout, r.stderr)
	}
}
