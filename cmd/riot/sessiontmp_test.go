package main_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A named one-shot session keeps its /tmp between invocations, and the
// file tools find there what its commands left, by the /tmp names the
// commands use: `riot run --session` writes with Bash, then a later
// invocation reads and edits with Read and Edit, and a third sees the
// change with Bash and Grep. No result names the host's directory.
func TestFileToolsFindTheSessionTmpAcrossInvocations(t *testing.T) {
	requireSandbox(t)
	e := newEnv(t)
	e.trust()
	e.write(".riot/config.toml", "[permissions]\nallow = [\"Bash\"]\n\n[sandbox]\nmode = \"required\"\n\n[sandbox.network]\nmode = \"none\"\n")
	d := fmt.Sprintf("/tmp/riot-test-%x", rand.Uint64())
	if _, err := os.Lstat(d); err == nil {
		t.Fatalf("%s exists on the host", d)
	}
	run := func(turn string, want ...string) string {
		t.Helper()
		r := e.riot(turn, "run", "--session", "T", "--mode", "acceptEdits")
		r.want(t, 0, want...)
		if strings.Contains(r.stdout, `"is_error": true`) || strings.Contains(r.stdout, "riot-tmp-") {
			t.Fatalf("stdout: %s\nstderr: %s", r.stdout, r.stderr)
		}
		return r.stdout
	}
	run(`[{"type":"tool_use","id":"b","name":"Bash","input":{"command":"mkdir `+d+` && echo 'one from bash' > `+d+`/f.txt"}}]`, `"tool_use_id": "b"`)
	run(`[{"type":"tool_use","id":"r","name":"Read","input":{"file_path":"`+d+`/f.txt"}},`+
		`{"type":"tool_use","id":"e","name":"Edit","input":{"file_path":"`+d+`/f.txt","old_string":"one","new_string":"two"}}]`,
		"one from bash", `"tool_use_id": "e"`)
	run(`[{"type":"tool_use","id":"c","name":"Bash","input":{"command":"cat `+d+`/f.txt"}},`+
		`{"type":"tool_use","id":"g","name":"Grep","input":{"pattern":"two","path":"`+d+`"}}]`,
		"two from bash", d+"/f.txt")
	if _, err := os.Lstat(d); err == nil {
		t.Fatalf("a tool wrote the host's %s", d)
	}
	// The session's directory is in riot's TMPDIR, the test's own; a
	// session host of it removes it as it exits, which this test does not
	// start, so the test's cleanup does.
	if m, _ := filepath.Glob(filepath.Join(e.tmp, "riot-tmp-*-T")); len(m) != 1 {
		t.Fatalf("the named session's /tmp is not in riot's TMPDIR: %v", m)
	}
}

// A rule names a file of the session's /tmp by its /tmp name, as the
// model and the user know it: the suggestion a denial prints names it so,
// never the host's directory, and works as printed in the next invocation
// (an ephemeral session, whose directory's name is new).
func TestSessionTmpRulesUseTmpNames(t *testing.T) {
	requireSandbox(t)
	e := newEnv(t)
	e.trust()
	e.write(".riot/config.toml", "[sandbox]\nmode = \"required\"\n\n[sandbox.network]\nmode = \"none\"\n")
	f := fmt.Sprintf("/tmp/riot-test-%x.txt", rand.Uint64())
	in := `{"command":"echo hi > ` + f + `"}`
	r := e.riot("", "call", "Bash", in)
	r.want(t, 1, "--allow 'Bash(echo:*)' --allow 'Edit(/"+f+")'")
	if strings.Contains(r.stdout+r.stderr, "riot-tmp-") {
		t.Fatalf("the denial names the host's directory: %s", r.stdout)
	}
	e.riot("", "call", "--allow", "Bash(echo:*)", "--allow", "Edit(/"+f+")", "Bash", in).want(t, 0)
	if _, err := os.Lstat(f); err == nil {
		t.Fatalf("the command wrote the host's %s", f)
	}
	// riot explain judges a /tmp path as the call does: the session's file,
	// read without asking.
	if ex := e.explainBash("cat " + f); ex.Decision != "allow" {
		t.Fatalf("explain of a read of the session's /tmp: %s (%s)", ex.Decision, ex.Reason)
	}
	// Each call here is a session of its own, with a /tmp of its own: the
	// file is missing there, and the result does not blame the sandbox.
	r = e.riot("", "call", "Bash", `{"command":"cat `+f+`"}`)
	r.want(t, 1, "No such file or directory")
	if strings.Contains(r.stdout, "not in the sandbox") {
		t.Fatalf("a file missing from the session's /tmp is called hidden: %s", r.stdout)
	}
	// A deny rule on the /tmp name holds for the session's file too.
	e.riot("", "call", "--allow", "Write", "--deny", "Edit(/"+f+")", "Write", `{"file_path":"`+f+`","content":"x"}`).want(t, 1, "denied by the rule `Edit(/"+f+")`")
}
