package main_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/riot-tools/riot/internal/fileid"
)

// inits are the packages whose init functions a riot process ran, in
// order, from GODEBUG=inittrace=1's lines on its stderr; rest is the
// stderr without them.
func inits(stderr string) (pkgs []string, rest string) {
	var kept []string
	for _, line := range strings.SplitAfter(stderr, "\n") {
		if f := strings.Fields(line); len(f) > 2 && f[0] == "init" && strings.HasPrefix(f[2], "@") {
			pkgs = append(pkgs, f[1])
			continue
		}
		kept = append(kept, line)
	}
	return pkgs, strings.Join(kept, "")
}

const (
	quickPkg    = "github.com/riot-tools/riot/cmd/riot/internal/quick"
	quickrunPkg = "github.com/riot-tools/riot/cmd/riot/internal/quickrun"
)

// The quick paths' init functions run before any of the libraries that
// make riot's start slow: what they answer never waits for those. (Go
// initialises packages in import-path order as their imports allow:
// package quick's doc.)
func TestQuickRunsBeforeTheLibraries(t *testing.T) {
	e := newEnv(t)
	r := e.riotWith([]string{"GODEBUG=inittrace=1", "RIOT_QUICK=0"}, "", "version")
	r.want(t, 0, "riot ")
	pkgs, _ := inits(r.stderr)
	at := func(pkg string) int {
		i := slices.Index(pkgs, pkg)
		if i < 0 {
			t.Fatalf("no init of %s among %d: %v", pkg, len(pkgs), pkgs)
		}
		return i
	}
	libs := []string{
		"google.golang.org/protobuf/internal/filedesc", "google.golang.org/protobuf/reflect/protodesc",
		"google.golang.org/grpc", "github.com/hashicorp/go-plugin", "github.com/modelcontextprotocol/go-sdk/mcp",
		"github.com/google/jsonschema-go/jsonschema", "github.com/riot-tools/riot/shared/proto/riot/tool/v1",
	}
	for _, lib := range libs {
		for _, quick := range []string{quickPkg, quickrunPkg} {
			if at(quick) > at(lib) {
				t.Errorf("%s initialises after %s", quick, lib)
			}
		}
	}
	// Package quick, which answers version and tools, comes before the
	// standard library's own heavier inits too.
	for _, std := range []string{"encoding/gob", "encoding/json", "crypto/sha256"} {
		if at(quickPkg) > at(std) {
			t.Errorf("%s initialises after %s: %v", quickPkg, std, pkgs[:at(quickPkg)])
		}
	}
}

// The quick paths import only what initialises early: none of riot's
// libraries, and for package quick not even strings, encoding/json or
// crypto, which Go initialises after much else (TestQuickRunsBeforeTheLibraries
// measures the result; this says which import broke it).
func TestQuickImportsStayLight(t *testing.T) {
	deps := func(pkg string) []string {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", pkg, err)
		}
		return strings.Fields(string(out))
	}
	bad := func(dep string) bool {
		switch dep {
		case "path/filepath", "runtime/debug", "net", "regexp", "os/user", "encoding/gob":
			return true
		}
		third := strings.Contains(strings.Split(dep, "/")[0], ".")
		return third && !strings.HasPrefix(dep, "github.com/riot-tools/riot/")
	}
	for _, dep := range deps(quickrunPkg) {
		if bad(dep) {
			t.Errorf("%s imports %s", quickrunPkg, dep)
		}
	}
	for _, dep := range deps(quickPkg) {
		if bad(dep) || dep == "strings" || dep == "encoding/json" || dep == "fmt" || strings.HasPrefix(dep, "crypto/") {
			t.Errorf("%s imports %s", quickPkg, dep)
		}
	}
}

// settle waits until every file at paths changed longer ago than the racy
// window: the memo refuses what changed more recently (package memo). It
// is the semantics under test, not a synchronisation, and costs at most
// the window once.
func settle(t *testing.T, paths ...string) {
	t.Helper()
	newest := int64(0)
	for _, p := range paths {
		if l := fileid.LookAt(p); l.Err == "" {
			newest = max(newest, l.Newest)
		}
	}
	if wait := time.Until(time.Unix(0, newest).Add(fileid.RacyWindow + 10*time.Millisecond)); wait > 0 {
		time.Sleep(wait)
	}
}

// quick runs riot once with the quick paths off, which stores its output
// in the memo, and once with them on, which must answer without riot's
// libraries and print the same; it returns the second run.
func (e *env) quickAsFull(t *testing.T, hit bool, stdin string, args ...string) result {
	t.Helper()
	full := e.riotWith([]string{"RIOT_QUICK=0"}, stdin, args...)
	quick := e.riotWith([]string{"GODEBUG=inittrace=1"}, stdin, args...)
	pkgs, stderr := inits(quick.stderr)
	if took := !slices.Contains(pkgs, "google.golang.org/grpc"); took != hit {
		t.Errorf("riot %s: answered on the quick path: %v, want %v (%d inits)", strings.Join(args, " "), took, hit, len(pkgs))
	}
	if quick.stdout != full.stdout || stderr != full.stderr || quick.code != full.code {
		t.Errorf("riot %s: the quick path printed\n%s\n%s(exit %d), the full command\n%s\n%s(exit %d)",
			strings.Join(args, " "), quick.stdout, stderr, quick.code, full.stdout, full.stderr, full.code)
	}
	return result{quick.stdout, stderr, quick.code}
}

// watched are the files a tools listing of e comes from that its fixture
// made, and the riot binary and plugins.
func (e *env) watched() []string {
	return []string{bin.riot, bin.testkit, filepath.Dir(bin.testkit), e.ws, e.home,
		filepath.Join(e.home, ".config", "riot", "config.toml"), filepath.Join(e.home, ".config", "riot"), filepath.Join(e.ws, ".riot")}
}

// `riot version` and `riot tools` print from the memo exactly what the
// full commands print, once a full command has run with the same
// arguments, environment and files.
func TestQuickVersionAndToolsPrintAsTheFullCommands(t *testing.T) {
	e := newEnv(t)
	e.enableTestkit()
	settle(t, e.watched()...)
	for _, args := range [][]string{{"version"}, {"--version"}, {"tools"}, {"tools", "--json"},
		{"tools", "--json", "--format", "openai"}, {"--cwd", e.ws, "tools"}} {
		r := e.quickAsFull(t, true, "", args...)
		if args[len(args)-1] == "tools" && !strings.Contains(r.stdout, "Testkit") && !strings.Contains(r.stdout, "testkit") {
			t.Errorf("riot %v lists no testkit tool: %s", args, r.stdout)
		}
	}
	// Arguments the full command refuses are never answered from the
	// memo.
	for _, args := range [][]string{{"version", "x"}, {"tools", "--format", "openai"}, {"tools", "--nope"}} {
		e.quickAsFull(t, false, "", args...)
	}
}

// Any change to a file a listing came from is seen at once: the next
// `riot tools` runs whole and prints the new listing.
func TestQuickToolsIsNeverStale(t *testing.T) {
	e := newEnv(t)
	e.enableTestkit()
	settle(t, e.watched()...)
	e.quickAsFull(t, true, "", "tools")
	for _, tc := range []struct {
		name   string
		change func()
		want   func(string) bool
	}{
		{"a user config that hides a tool", func() {
			e.userConfig(fmt.Sprintf("plugin_dirs = [%q]\n\n[plugins.testkit]\nenabled = true\n\n[permissions]\ndeny = [\"Grep\"]\n", filepath.Dir(bin.testkit)))
		}, func(out string) bool { return !strings.Contains(out, "\nGrep ") }},
		{"the plugin disabled", func() {
			e.userConfig("[permissions]\ndeny = [\"Grep\"]\n")
		}, func(out string) bool { return !strings.Contains(out, "testkit") }},
	} {
		tc.change()
		r := e.quickAsFull(t, false, "", "tools")
		if !tc.want(r.stdout) {
			t.Errorf("%s: the listing did not change: %s", tc.name, r.stdout)
		}
	}
}

// What cannot be told from files is never memoized: a listing with an MCP
// server's tools (the server may change them), and one that printed a
// warning (an untrusted workspace's files ignored).
func TestQuickToolsRemembersOnlyWhatFilesDecide(t *testing.T) {
	t.Run("mcp", func(t *testing.T) {
		e := wrapping(t, "ok")
		settle(t, e.watched()...)
		r := e.quickAsFull(t, false, "", "tools")
		if !strings.Contains(r.stdout, "mcp__srv__") || r.stderr != "" {
			t.Fatalf("want the MCP server's tools listed without a warning: %s%s", r.stdout, r.stderr)
		}
		e.quickAsFull(t, false, "", "tools")
	})
	t.Run("warning", func(t *testing.T) {
		e := newEnv(t)
		e.write(".riot/config.toml", "[permissions]\nmode = \"bypassPermissions\"\n")
		settle(t, append(e.watched(), filepath.Join(e.ws, ".riot", "config.toml"))...)
		r := e.quickAsFull(t, false, "", "tools")
		if !strings.Contains(r.stderr, "not trusted") {
			t.Fatalf("want the untrusted-workspace warning: %q", r.stderr)
		}
		e.quickAsFull(t, false, "", "tools")
	})
}

// An attached `riot run` without a terminal goes on the quick path, and
// prints what the full client prints, for either API, from a file or
// stdin.
func TestQuickRunAsTheFullClient(t *testing.T) {
	e := newEnv(t)
	allowBash(e, "")
	startHost(t, e, "S")
	e.write("a.txt", "one\ntwo\n")
	anthropic := `[{"type":"tool_use","id":"r","name":"Read","input":{"file_path":"a.txt"}},{"type":"tool_use","id":"b","name":"Bash","input":{"command":"echo hi"}}]`
	openai := `[{"id":"r","type":"function","function":{"name":"Read","arguments":"{\"file_path\":\"a.txt\"}"}}]`
	turn := e.write("turn.json", anthropic)
	for _, tc := range []struct {
		stdin string
		args  []string
	}{
		{"", []string{"run", "--session", "S", turn}},
		{anthropic, []string{"run", "--session=S", "-q"}},
		{anthropic, []string{"run", "-", "--session", "S"}},
		{openai, []string{"run", "--format", "openai", "--session", "S"}},
	} {
		r := e.quickAsFull(t, true, tc.stdin, tc.args...)
		r.want(t, 0, `"r"`, "one")
	}
	// A malformed turn is the full command's to report, the same way.
	e.quickAsFull(t, false, "[{", "run", "--session", "S")
	e.quickAsFull(t, false, "", "run", "--session", "S", filepath.Join(e.ws, "missing.json"))
	// `riot call` too, its exit status the call's.
	e.quickAsFull(t, true, "", "call", "--session", "S", "Read", `{"file_path":"a.txt"}`).want(t, 0, "one")
	e.quickAsFull(t, true, `{"file_path":"a.txt"}`, "call", "--json", "--session", "S", "Read", "-").want(t, 0, `"status": "ok"`)
	e.quickAsFull(t, true, "", "call", "--session", "S", "Bash", `{"command":"exit 3"}`).want(t, 1, "3")
	e.quickAsFull(t, true, "", "call", "--session", "S", "Read").want(t, 1)
	e.quickAsFull(t, false, "", "call", "--session", "S", "Nope", "{}").want(t, 2, "Nope")
	e.quickAsFull(t, false, "[1]", "call", "--session", "S", "Read", "-").want(t, 2, "JSON object")
}

// A host that refuses a turn the quick path read from stdin: the full
// command warns once and runs that turn itself, from what was read.
func TestQuickRunHandsTheTurnOverWhenRefused(t *testing.T) {
	e := newEnv(t)
	allowBash(e, "")
	startHost(t, e, "S")
	// Another build of riot: its build id differs, so the host refuses it.
	other := filepath.Join(t.TempDir(), "riot")
	data, err := os.ReadFile(bin.riot)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, data, 0o755); err != nil {
		t.Fatal(err)
	}
	e.exe = other
	turn := `[{"type":"tool_use","id":"b","name":"Bash","input":{"command":"echo from-stdin"}}]`
	r := e.riotWith([]string{"GODEBUG=inittrace=1"}, turn, "run", "--session", "S")
	pkgs, stderr := inits(r.stderr)
	r.want(t, 0, "from-stdin")
	if !slices.Contains(pkgs, quickrunPkg) || !slices.Contains(pkgs, "google.golang.org/grpc") {
		t.Fatalf("want the quick path tried, then the full command: %v", pkgs)
	}
	if strings.Count(stderr, "warning") != 1 || !strings.Contains(stderr, "runs another riot build") || !strings.Contains(stderr, "running this turn here") {
		t.Fatalf("want one warning saying the turn ran here: %q", stderr)
	}
}

// A client interrupted on the quick path cancels its turn in the host,
// which ends it Cancelled and goes on serving.
func TestQuickRunInterrupted(t *testing.T) {
	e := newEnv(t)
	allowBash(e, "")
	startHost(t, e, "S")
	fifo := filepath.Join(e.tmp, "started")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := e.command(fmt.Sprintf(`[{"type":"tool_use","id":"b","name":"Bash","input":{"command":"echo > %s; sleep 60"}}]`, fifo), "run", "--session", "S")
	var out strings.Builder
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(fifo) // returns once the command runs
	if err != nil {
		t.Fatal(err)
	}
	_ = f.Close()
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the interrupted client: %v", err)
	}
	if !strings.Contains(out.String(), `"is_error": true`) || !strings.Contains(strings.ToLower(out.String()), "cancel") {
		t.Fatalf("want the call cancelled: %s", out.String())
	}
	e.riot(`[{"type":"tool_use","id":"b","name":"Bash","input":{"command":"echo still"}}]`, "run", "--session", "S").want(t, 0, "still")
}
