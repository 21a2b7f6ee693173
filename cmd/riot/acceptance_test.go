package main_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The issues' "done when" checks, through the real CLI without a terminal.

func TestPermissionAcceptance(t *testing.T) {
	e := newEnv(t)
	// In default mode a write is denied, the denial names the rule, and
	// nothing happens.
	e.riot("", "call", "Bash", `{"command":"touch x"}`).want(t, 1, "Bash(touch:*)", "Do not try to get around this")
	if _, err := os.Stat(filepath.Join(e.ws, "x")); !os.IsNotExist(err) {
		t.Fatal("a denied touch created x")
	}
	e.riot("", "call", "Bash", `{"command":"touch x"}`, "--allow", "Bash(touch:*)").want(t, 0)
	if _, err := os.Stat(filepath.Join(e.ws, "x")); err != nil {
		t.Fatal("an allowed touch did not create x")
	}
	// Every part of a compound command must be allowed.
	e.riot("", "call", "Bash", `{"command":"touch a && rm b"}`, "--allow", "Bash(touch:*)").want(t, 1, "Bash(rm:*)")
	if _, err := os.Stat(filepath.Join(e.ws, "a")); !os.IsNotExist(err) {
		t.Fatal("a partly allowed compound command ran")
	}
	// Plan mode denies writes and says why.
	e.riot("", "call", "Bash", `{"command":"touch y"}`, "--mode", "plan").want(t, 1, "plan mode")
	// A deny rule holds under bypassPermissions, and covers what Bash reads.
	e.write("secret.txt", "s3cret\n")
	for _, c := range []struct{ tool, input string }{
		{"Read", `{"file_path":"secret.txt"}`},
		{"Bash", `{"command":"cat secret.txt"}`},
	} {
		r := e.riot("", "call", c.tool, c.input, "--mode", "bypassPermissions", "--deny", "Read(**/secret.txt)")
		r.want(t, 1, "Read(**/secret.txt)")
		if strings.Contains(r.stdout, "s3cret") {
			t.Fatalf("%s read a denied file", c.tool)
		}
	}
	// A read outside the workspace is not allowed silently.
	r := e.riot("", "call", "Read", `{"file_path":"/etc/shadow"}`)
	r.want(t, 1, "outside the workspace")
	// explain shows the fence step.
	e.riot("", "explain", "Read", `{"file_path":"/etc/shadow"}`).want(t, 0, "safety checks", "outside the workspace")
}

func TestBashAcceptance(t *testing.T) {
	e := newEnv(t)
	// Read-only commands run in default mode without a terminal; the
	// classifier refuses the evasions.
	e.riot("", "call", "Bash", `{"command":"ls -la && git status --short 2>/dev/null; echo ok"}`).want(t, 0, "ok")
	for _, cmd := range []string{"ls; rm x", "echo $(rm x)", "timeout 5 rm -rf ~", "ls | tee f", "FOO=1 ls", `\rm x`} {
		e.riot("", "call", "Bash", fmt.Sprintf(`{"command":%q}`, cmd)).want(t, 1, "Permission denied")
	}
	// The working directory persists with --session.
	if err := os.Mkdir(filepath.Join(e.ws, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.riot("", "call", "--session", "s1", "--allow", "Bash(cd:*)", "Bash", `{"command":"cd sub"}`).want(t, 0)
	e.riot("", "call", "--session", "s1", "Bash", `{"command":"pwd"}`).want(t, 0, filepath.Join(e.ws, "sub"))
	// A timeout comes back promptly and says so.
	start := time.Now()
	e.riot("", "call", "Bash", `{"command":"sleep 30","timeout":1000}`).want(t, 1, "timed out after 1 s")
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("a 1 s timeout took %s", d)
	}
}

func TestTurnAcceptance(t *testing.T) {
	e := newEnv(t)
	// Four one-second sleeps run together: the turn takes about as long
	// as one sleep, not four. (On a quiet machine, under 2.2 s in all; see
	// BENCHMARKS.md. Here it is compared with a turn of one, since other
	// tests load the machine.)
	var uses []string
	for i := range 4 {
		uses = append(uses, fmt.Sprintf(`{"type":"tool_use","id":"s%d","name":"Bash","input":{"command":"sleep 1"}}`, i))
	}
	start := time.Now()
	e.riot("["+uses[0]+"]", "run").want(t, 0)
	one := time.Since(start)
	start = time.Now()
	r := e.riot("["+strings.Join(uses, ",")+"]", "run")
	r.want(t, 0)
	if four := time.Since(start); four > one+time.Second {
		t.Fatalf("four parallel sleep 1 calls took %s, one took %s", four, one)
	}
	var results []struct {
		ToolUseID string `json:"tool_use_id"`
		Content   string `json:"content"`
		IsError   bool   `json:"is_error"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &results); err != nil {
		t.Fatal(err)
	}
	for i, res := range results {
		if res.ToolUseID != fmt.Sprintf("s%d", i) || res.IsError {
			t.Fatalf("result %d: %+v", i, res)
		}
	}
	// A failing Bash call cancels its unfinished siblings, naming it.
	turn := `[
	  {"type":"tool_use","id":"a1","name":"Bash","input":{"command":"sleep 5"}},
	  {"type":"tool_use","id":"a3","name":"Bash","input":{"command":"ls /no-such-dir"}},
	  {"type":"tool_use","id":"a4","name":"Bash","input":{"command":"echo later > f"}}
	]`
	r = e.riot(turn, "run", "--mode", "bypassPermissions")
	r.want(t, 0, "Cancelled while running: Bash call a3 (`ls /no-such-dir`) failed: exit status 2", "Not run: Bash call a3 (`ls /no-such-dir`) failed: exit status 2")
	// A large output is spilled, and the file is the output byte for byte.
	r = e.riot("", "call", "Bash", `{"command":"seq 1 200000"}`, "--json", "--allow", "Bash(seq:*)")
	r.want(t, 0)
	var out struct {
		Content string `json:"content"`
		Spill   struct {
			Path string `json:"path"`
		} `json:"spill"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatal(err)
	}
	if n := len([]rune(out.Content)); n >= 6000 || !strings.Contains(out.Content, out.Spill.Path) {
		t.Fatalf("preview of %d characters, path %q:\n%s", n, out.Spill.Path, out.Content)
	}
	got, err := os.ReadFile(out.Spill.Path)
	if err != nil {
		t.Fatal(err)
	}
	want, err := exec.Command("seq", "1", "200000").Output()
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("spill file differs from the output: %d bytes, want %d", len(got), len(want))
	}
}

func TestDiagnosticsAcceptance(t *testing.T) {
	e := newEnv(t)
	mod := filepath.Join(e.ws, "mod")
	e.write("mod/go.mod", "module example.com/m\n\ngo 1.21\n")
	e.write("mod/main.go", "package main\n\nfunc main() {\n\tvar x int = \"s\"\n\t_ = x\n}\n")
	// Not read-only, so not allowed without a terminal in default mode.
	e.riot("", "call", "Diagnostics", fmt.Sprintf(`{"path":%q}`, mod)).want(t, 1, "Permission denied")
	r := e.riot("", "call", "Diagnostics", fmt.Sprintf(`{"path":%q}`, mod), "--allow", "Diagnostics(go vet:*)", "--json")
	r.want(t, 0, "main.go:4:")
	var out struct {
		Status string `json:"status"`
		UI     struct {
			Diagnostics []map[string]any `json:"diagnostics"`
		} `json:"ui"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatal(err)
	}
	if out.Status != "ok" || len(out.UI.Diagnostics) == 0 {
		t.Fatalf("diagnostics --json: %s", r.stdout)
	}
}

func TestGrepAcceptance(t *testing.T) {
	e := newEnv(t)
	e.write("src/a.go", "package a\n\nfunc NewServer() {}\n")
	e.write("src/b.go", "package b\n")
	e.riot("", "call", "Grep", `{"pattern":"NewServer"}`).want(t, 0, "src/a.go")
	e.riot("", "call", "Grep", `{"pattern":"NewServer","output_mode":"content"}`).want(t, 0, "src/a.go:3:func NewServer() {}")
	e.riot("", "call", "Grep", `{"pattern":"package","output_mode":"count"}`).want(t, 0, "src/a.go:1", "src/b.go:1")
	e.riot("", "call", "Grep", `{"pattern":"(foo"}`).want(t, 1, "Escape a literal `(` as `\\(`")
	e.riot("", "call", "Grep", `{"pattern":"a(?=b)"}`).want(t, 1, "no lookaround")
	e.riot("", "call", "Grep", `{"pattern":"x","-A":2}`).want(t, 1, `output_mode: "content"`)
	e.riot("", "call", "Grep", `{"pattern":"x","path":"nope"}`).want(t, 1, "nope")
}
