package main_test

import (
	"fmt"
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

// TestSwappedSymlinkRace: through the whole host (Prepare, the chain, then
// Call), a turn of Read and Grep calls on a symlink that a goroutine flips
// between an inside file and an outside one never shows the outside one.
func TestSwappedSymlinkRace(t *testing.T) {
	e := newEnv(t)
	outside := filepath.Join(filepath.Dir(e.ws), "outside")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(outside, "osecret.txt")
	if err := os.WriteFile(secret, []byte("needle OUTSIDE-SECRET\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	inside := e.write("inside.txt", "needle inside\n")
	link := filepath.Join(e.ws, "link.txt")
	if err := os.Symlink(inside, link); err != nil {
		t.Fatal(err)
	}
	var turn []string
	for i := range 100 {
		input := `{"file_path":"link.txt"}`
		name := "Read"
		if i%2 == 1 {
			name, input = "Grep", `{"pattern":"needle","path":"link.txt","output_mode":"content"}`
		}
		turn = append(turn, fmt.Sprintf(`{"type":"tool_use","id":"toolu_%d","name":%q,"input":%s}`, i, name, input))
	}
	stop := make(chan struct{})
	flips := make(chan int, 1)
	go func() {
		n := 0
		defer func() { flips <- n }()
		tmp := link + ".swap"
		for {
			select {
			case <-stop:
				return
			default:
			}
			_ = os.Remove(tmp)
			if os.Symlink([2]string{inside, secret}[n%2], tmp) != nil || os.Rename(tmp, link) != nil {
				return
			}
			n++
		}
	}()
	r := e.riot("["+strings.Join(turn, ",")+"]", "run")
	close(stop)
	n := <-flips
	r.want(t, 0)
	if strings.Contains(r.stdout, "OUTSIDE-SECRET") {
		t.Fatalf("a call showed the outside file while the link flipped (%d flips):\n%s", n, r.stdout)
	}
	t.Logf("%d flips; %d calls read the inside file", n, strings.Count(r.stdout, "needle inside"))
}

// TestDotDotAfterSymlinkAndProcPaths: `lnk/../x` is checked as the file
// the kernel opens (class 4), and /proc/self paths are outside (class 13).
func TestDotDotAfterSymlinkAndProcPaths(t *testing.T) {
	e := newEnv(t)
	outside := filepath.Join(filepath.Dir(e.ws), "outside")
	if err := os.MkdirAll(filepath.Join(outside, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "osecret.txt"), []byte("OUTSIDE-SECRET\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.write("osecret.txt", "inside decoy\n")
	if err := os.Symlink(filepath.Join(outside, "sub"), filepath.Join(e.ws, "lnk")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ tool, input, want string }{
		{"Read", `{"file_path":"lnk/../osecret.txt"}`, "outside the workspace roots"},
		{"Grep", `{"pattern":"SECRET","path":"lnk/../osecret.txt","output_mode":"content"}`, "outside the workspace roots"},
		{"Read", `{"file_path":"/proc/self/cwd/osecret.txt"}`, "goes through /proc/self, /proc/thread-self or /proc/<pid>"},
		{"Grep", `{"pattern":"SECRET","path":"/proc/self/cwd"}`, "goes through /proc/self, /proc/thread-self or /proc/<pid>"},
	} {
		r := e.riot("", "call", c.tool, c.input)
		r.want(t, 1, c.want)
		if strings.Contains(r.stdout, "OUTSIDE-SECRET") || strings.Contains(r.stdout, "decoy") {
			t.Fatalf("%s %s read a file:\n%s", c.tool, c.input, r.stdout)
		}
	}
	// Allowed, lnk/../osecret.txt reads the outside file, as the kernel has it.
	e.riot("", "call", "Read", `{"file_path":"lnk/../osecret.txt"}`, "--mode", "bypassPermissions").want(t, 0, "OUTSIDE-SECRET")
}
