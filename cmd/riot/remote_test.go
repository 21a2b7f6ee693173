package main_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"
)

// remoteTurn is a turn of each kind of call: Read, Grep, Edit after Read,
// Bash, a call denied for want of someone to ask, a spilled output, and a
// failed Bash that cascades onto the Write after it. The failing Bash call
// runs alone in both: a local turn runs a read-only Bash call beside the
// concurrency-safe calls next to it, and what its failure does to them is
// a race.
const remoteTurn = `[
 {"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"a.txt"}},
 {"type":"tool_use","id":"t2","name":"Grep","input":{"pattern":"beta","output_mode":"content"}},
 {"type":"tool_use","id":"t3","name":"Edit","input":{"file_path":"a.txt","old_string":"beta","new_string":"BETA"}},
 {"type":"tool_use","id":"t4","name":"Bash","input":{"command":"cat a.txt && echo done"}},
 {"type":"tool_use","id":"t5","name":"Bash","input":{"command":"touch x"}},
 {"type":"tool_use","id":"t6","name":"Bash","input":{"command":"seq 1 20000"}},
 {"type":"tool_use","id":"t7","name":"Write","input":{"file_path":"c.txt","content":"c"}},
 {"type":"tool_use","id":"t8","name":"Bash","input":{"command":"false"}},
 {"type":"tool_use","id":"t9","name":"Write","input":{"file_path":"d.txt","content":"d"}}
]`

// remoteTurnOpenAI is the same turn in OpenAI's shape.
func remoteTurnOpenAI(t *testing.T) string {
	t.Helper()
	var uses []struct {
		ID    string          `json:"id"`
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	}
	if err := json.Unmarshal([]byte(remoteTurn), &uses); err != nil {
		t.Fatal(err)
	}
	calls := make([]map[string]any, len(uses))
	for i, u := range uses {
		calls[i] = map[string]any{"id": u.ID, "type": "function", "function": map[string]any{"name": u.Name, "arguments": string(u.Input)}}
	}
	b, _ := json.Marshal(calls)
	return string(b)
}

// twin writes the same workspace and user config into e.
func twin(e *env) {
	e.write("a.txt", "alpha\nbeta\ngamma\n")
	e.userConfig("[permissions]\nmode = \"acceptEdits\"\n")
}

// tokenFile writes a token file outside the workspaces.
func tokenFile(t *testing.T, token string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(p, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// spillPath is a spilled output's path in its note; it differs by state
// dir and call id (riot mcp names its calls mcp_...).
var spillPath = regexp.MustCompile(`saved at (/[^ ]+\.txt)\.`)

// normalise replaces what must differ between a local run and a remote
// one: the workspace's absolute path and the spill files' paths.
func normalise(out, ws string) string {
	out = strings.ReplaceAll(out, ws, "$WS")
	return spillPath.ReplaceAllString(out, "saved at $SPILL.")
}

// riot run --remote prints, byte for byte, what a local riot run prints
// for the same turn in a twin workspace, in both formats, but for the
// workspace's path and the spill file's path. The spill's note names a
// path in the session, which a Read through the session reads.
func TestRemoteRunMatchesLocal(t *testing.T) {
	for _, format := range []string{"anthropic", "openai"} {
		t.Run(format, func(t *testing.T) {
			turn := remoteTurn
			if format == "openai" {
				turn = remoteTurnOpenAI(t)
			}
			local, srv, client := newEnv(t), newEnv(t), newEnv(t)
			twin(local)
			twin(srv)
			tok := tokenFile(t, "s3cret-remote")
			h := srv.listen(t, nil, "--token-file", tok)

			want := local.riot(turn, "run", "--format", format)
			want.want(t, 0)
			got := client.riot(turn, "run", "--format", format, "--remote", h.url, "--token-file", tok)
			got.want(t, 0)
			if n := len(spillPath.FindAllString(got.stdout, -1)); n != 1 {
				t.Fatalf("%d spill notes in the remote output, want 1:\n%s", n, got.stdout)
			}
			if w, g := normalise(want.stdout, local.ws), normalise(got.stdout, srv.ws); w != g {
				wl, gl := strings.Split(w, "\n"), strings.Split(g, "\n")
				for i := range min(len(wl), len(gl)) {
					if wl[i] != gl[i] {
						t.Fatalf("remote output differs from local at line %d:\nlocal:  %s\nremote: %s", i+1, wl[i], gl[i])
					}
				}
				t.Fatalf("remote output differs from local in length: %d lines locally, %d remotely", len(wl), len(gl))
			}
			if _, err := os.Stat(filepath.Join(srv.ws, "x")); !os.IsNotExist(err) {
				t.Fatal("the denied call ran in the session")
			}
			if b, _ := os.ReadFile(filepath.Join(srv.ws, "a.txt")); string(b) != "alpha\nBETA\ngamma\n" {
				t.Fatalf("the Edit did not reach the session's workspace: %q", b)
			}
			if format != "anthropic" {
				return
			}
			spill := spillPath.FindStringSubmatch(got.stdout)[1]
			read := client.riot(`[{"type":"tool_use","id":"r1","name":"Read","input":{"file_path":"`+spill+`","offset":19999,"limit":2}}]`,
				"run", "--remote", h.url, "--token-file", tok)
			read.want(t, 0, `19999\t19999\n`, `20000\t20000\n`)
		})
	}
}

// A wrong, empty or missing token is a clear error and exit 2, and runs
// nothing.
func TestRemoteRunToken(t *testing.T) {
	srv, client := newEnv(t), newEnv(t)
	h := srv.listen(t, nil, "--token-file", tokenFile(t, "right"))
	turn := `[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"echo hi"}}]`
	client.riot(turn, "run", "--remote", h.url, "--token-file", tokenFile(t, "wrong")).
		want(t, 2, "refused the token (HTTP 401)")
	client.riot(turn, "run", "--remote", h.url).want(t, 2, "needs its bearer token: give --token-file")
	client.riot(turn, "run", "--remote", h.url, "--token-file", filepath.Join(t.TempDir(), "none")).
		want(t, 2, "cannot read the token file", "it does not exist")
	client.riot(turn, "run", "--remote", h.url, "--token-file", tokenFile(t, "")).want(t, 2, "is empty")
	client.riot(turn, "run", "--remote", "ftp://x", "--token-file", tokenFile(t, "right")).want(t, 1, "not an http(s) URL")
}

// [remote] in the user's config sends riot run's turns there; a call that
// runs longer than [remote] timeout lives on the session's progress
// heartbeat. An untrusted workspace's own [remote] is ignored.
func TestRemoteRunConfig(t *testing.T) {
	srv, client := newEnv(t), newEnv(t)
	srv.userConfig("[permissions]\nallow = [\"Bash\"]\n\n[mcp]\nprogress_interval = \"100ms\"\n")
	tok := tokenFile(t, "cfg-token")
	h := srv.listen(t, nil, "--token-file", tok)
	client.userConfig("[remote]\nurl = \"" + h.url + "\"\ntoken_file = \"" + tok + "\"\ntimeout = \"1s\"\n")
	r := client.riot(`[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"sleep 2; echo slept > here.txt; cat here.txt"}}]`, "run")
	r.want(t, 0, `"content": "slept\n"`, `"is_error": false`)
	if _, err := os.Stat(filepath.Join(srv.ws, "here.txt")); err != nil {
		t.Fatalf("the call did not run in the session's workspace: %v", err)
	}

	untrusted := newEnv(t)
	untrusted.write("b.txt", "local\n")
	untrusted.write(".riot/config.toml", "[remote]\nurl = \""+h.url+"\"\ntoken_file = \""+tok+"\"\n")
	untrusted.riot(`[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"b.txt"}}]`, "run").
		want(t, 0, `1\tlocal`)
}

// The session killed mid-call: the running call and the one after it are
// Failed, naming the session and the cause, promptly and well within
// [remote] timeout's default.
func TestRemoteRunSessionKilled(t *testing.T) {
	srv, client := newEnv(t), newEnv(t)
	srv.userConfig("[permissions]\nallow = [\"Bash\"]\n")
	fifo := makeFifo(t, filepath.Join(srv.ws, "ready.fifo"))
	tok := tokenFile(t, "kill-token")
	h := srv.listen(t, nil, "--token-file", tok)
	turn := `[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"echo go > ready.fifo; sleep 120"}},
	 {"type":"tool_use","id":"t2","name":"Write","input":{"file_path":"after.txt","content":"x"}}]`
	cmd := client.command(turn, "run", "--remote", h.url, "--token-file", tok)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	run := startProc(t, cmd)
	// The call runs once it writes to the fifo.
	if line := run.readFifo(t, fifo, func() string { return out.String() + errb.String() }); line != "go\n" {
		t.Fatalf("the call wrote %q", line)
	}
	killed := time.Now()
	if err := h.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := run.wait(); err != nil {
		t.Fatalf("riot run: %v\n%s", err, errb.String())
	}
	if d := time.Since(killed); d > 10*time.Second {
		t.Fatalf("riot run took %s after the session was killed", d)
	}
	var results []struct {
		ID      string `json:"tool_use_id"`
		Content string `json:"content"`
		IsError bool   `json:"is_error"`
	}
	if err := json.Unmarshal(out.Bytes(), &results); err != nil || len(results) != 2 {
		t.Fatalf("results: %v\n%s", err, out.String())
	}
	for i, prefix := range []string{"The remote session at " + h.url + " stopped answering: ", "Not run: the remote session at " + h.url + " stopped answering: "} {
		if !results[i].IsError || !strings.HasPrefix(results[i].Content, prefix) {
			t.Errorf("%s: %q, want an error starting %q", results[i].ID, results[i].Content, prefix)
		}
	}
	if _, err := os.Stat(filepath.Join(srv.ws, "after.txt")); !os.IsNotExist(err) {
		t.Error("the call after the lost one ran")
	}
}

// Two remote turns at once against one session, with the same call ids,
// each get their own results.
func TestRemoteRunConcurrentTurns(t *testing.T) {
	srv, client := newEnv(t), newEnv(t)
	srv.userConfig("[permissions]\nallow = [\"Bash\"]\n")
	tok := tokenFile(t, "two-token")
	h := srv.listen(t, nil, "--token-file", tok)
	turnOf := func(who string) string {
		srv.write(who+".txt", who+"\n")
		return `[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"for i in 1 2 3; do echo ` + who + `$i; sleep 0.1; done"}},
		 {"type":"tool_use","id":"t2","name":"Read","input":{"file_path":"` + who + `.txt"}},
		 {"type":"tool_use","id":"t3","name":"Bash","input":{"command":"echo ` + who + ` > ` + who + `.out && cat ` + who + `.out"}}]`
	}
	whos := []string{"left", "right"}
	turns := map[string]string{}
	for _, who := range whos {
		turns[who] = turnOf(who)
	}
	outs := make(map[string]result)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, who := range whos {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := client.command(turns[who], "run", "--remote", h.url, "--token-file", tok)
			var o, e bytes.Buffer
			cmd.Stdout, cmd.Stderr = &o, &e
			err := cmd.Run()
			mu.Lock()
			defer mu.Unlock()
			code := 0
			if err != nil {
				code = -1
			}
			outs[who] = result{o.String(), e.String(), code}
		}()
	}
	wg.Wait()
	for _, who := range whos {
		var results []struct {
			Content string `json:"content"`
			IsError bool   `json:"is_error"`
		}
		r := outs[who]
		if err := json.Unmarshal([]byte(r.stdout), &results); err != nil || r.code != 0 || len(results) != 3 {
			t.Fatalf("%s: %v %d\n%s%s", who, err, r.code, r.stdout, r.stderr)
		}
		want := []string{who + "1\n" + who + "2\n" + who + "3\n", "     1\t" + who + "\n", who + "\n"}
		for i, w := range want {
			if results[i].IsError || results[i].Content != w {
				t.Errorf("%s call %d: error %v %q, want %q", who, i+1, results[i].IsError, results[i].Content, w)
			}
		}
	}
}

// A remote turn is held to the client's turn budget as a local one is:
// the session runs each call as a turn of its own, so the client cuts the
// largest outputs, largest first, until the turn fits, and each cut one
// says how to see all of it; the rest arrive whole.
func TestRemoteRunTurnBudget(t *testing.T) {
	srv, client := newEnv(t), newEnv(t)
	srv.userConfig("[permissions]\nmode = \"bypassPermissions\"\n")
	client.userConfig("[limits]\nturn_budget_chars = 20000\n")
	tok := tokenFile(t, "s3cret-budget")
	h := srv.listen(t, nil, "--token-file", tok)
	var uses []string
	for i := 1; i <= 4; i++ {
		uses = append(uses, fmt.Sprintf(`{"type":"tool_use","id":"b%d","name":"Bash","input":{"command":"seq 1 1500"}}`, i))
	}
	got := client.riot("["+strings.Join(uses, ",")+"]", "run", "--remote", h.url, "--token-file", tok)
	got.want(t, 0)
	var results []struct {
		ID      string `json:"tool_use_id"`
		Content string `json:"content"`
	}
	if err := json.Unmarshal([]byte(got.stdout), &results); err != nil {
		t.Fatalf("%v\n%s", err, got.stdout)
	}
	total := 0
	for i, r := range results {
		total += utf8.RuneCountInString(r.Content)
		cut := strings.Contains(r.Content, "Output cut to keep this turn within its budget (limits.turn_budget_chars): 6,393 characters in 1,500 lines") &&
			strings.Contains(r.Content, "Run this call again alone to see all of it")
		whole := strings.HasPrefix(r.Content, "1\n2\n") && strings.Contains(r.Content, "\n750\n") && strings.HasSuffix(strings.TrimSpace(r.Content), "\n1500")
		if i < 2 && !cut || i >= 2 && (cut || !whole) {
			t.Errorf("%s: cut %v, whole %v:\n%.300s", r.ID, cut, whole, r.Content)
		}
	}
	if total > 20000 {
		t.Fatalf("the turn holds %d characters, over its budget of 20,000", total)
	}
}
