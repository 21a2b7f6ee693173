package diagnostics

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/riot-tools/riot/plugin"
	"github.com/riot-tools/riot/plugin/plugintest"
	"github.com/riot-tools/riot/shared"
)

// FuzzNeverReadOnly is the property the issue demands: IsReadOnly is false
// for every input, whatever the fuzzer makes, both called directly and as
// the host sees it through Prepare (rejected or not).
func FuzzNeverReadOnly(f *testing.F) {
	for _, seed := range []string{
		`{}`, `{"path":"."}`, `{"path":"src/lib.rs","checker":"cargo"}`, `{"checker":"go"}`,
		`{"path":"/"}`, `{"path":"~"}`, `{"path":"../.."}`, `{"checker":"mypy"}`, `null`, `[]`, `"x"`,
		`{"path":"-rf"}`, `{"path":"a\u0000b"}`, `{"extra":1}`, `{"path":"pkg/m.py","checker":"ruff"}`,
	} {
		f.Add([]byte(seed))
	}
	// The SDK's server, called directly: the Prepare path the host reaches
	// over gRPC, without a connection per input.
	srv, err := plugin.NewServer(plugin.Runtime{Clock: plugin.SystemClock{}, Proc: plugintest.NullProc{}}, newHandler(options{environ: testEnviron()}))
	if err != nil {
		f.Fatal(err)
	}
	cwd := f.TempDir()
	writeFiles(f, cwd, map[string]string{
		"go.mod": "module example.com/f\n", "pkg/pyproject.toml": "", "pkg/m.py": "",
		"src/Cargo.toml": "", "src/lib.rs": "", "web/tsconfig.json": "{}",
	})
	tool := &Tool{}
	f.Fuzz(func(t *testing.T, raw []byte) {
		resp, err := srv.Prepare(context.Background(), shared.PrepareRequest{
			Tool: toolName, CallID: "fuzz", Input: raw,
			Context: shared.CallContext{Cwd: cwd, WorkspaceRoots: []string{cwd}, PermissionMode: "default"},
		})
		if err != nil {
			t.Fatal(err)
		}
		if resp.ReadOnly {
			t.Fatalf("Prepare(%q) says read-only: %+v", raw, resp)
		}
		in := &Input{Path: string(raw), Checker: string(raw)}
		if tool.IsReadOnly(in) || tool.IsReadOnly(nil) || tool.IsReadOnly(&Input{}) {
			t.Fatal("IsReadOnly returned true")
		}
	})
}

// FuzzCommandPathsNeverFlags: whatever path the model passes, every
// argument derived from it starts with "." and so is never taken for a flag
// by the checker, and stays inside the project directory.
func FuzzCommandPathsNeverFlags(f *testing.F) {
	for _, seed := range []string{"", "-rf", "a/-x.py", "--help", "a b/c", "./x", "x/../y", "-", "...", "a/...", "\n-x"} {
		f.Add(seed, true)
		f.Add(seed, false)
	}
	dir := "/proj"
	fixed := map[string]int{checkerGo: 2, checkerCargo: 2, checkerTsc: 3, checkerRuff: 3, checkerPyright: 1}
	f.Fuzz(func(t *testing.T, rel string, isDir bool) {
		target := filepath.Join(dir, rel)
		if !within(target, dir) {
			// makePlan only ever asks about a target under the project dir.
			return
		}
		for _, checker := range checkerNames {
			args, display := command(checker, dir, target, isDir)
			if len(args) < fixed[checker] {
				t.Fatalf("%s: args %q lost their fixed flags", checker, args)
			}
			for _, a := range args[fixed[checker]:] {
				if !strings.HasPrefix(a, ".") || strings.HasPrefix(a, "..") {
					t.Fatalf("%s: path argument %q for %q could be read as a flag or leaves the project", checker, a, rel)
				}
				if !strings.Contains(display, a) {
					t.Fatalf("%s: display %q hides argument %q", checker, display, a)
				}
			}
		}
	})
}

// FuzzParsers: no checker output makes a parser panic, and whatever parses
// is in range: a known severity, no negative position, no empty message
// where a file is named.
func FuzzParsers(f *testing.F) {
	for _, name := range []string{"go/mixed", "go/typecheck", "go/missingdep-default", "cargo/errors", "cargo/workspace", "tsc/errors", "tsc/config", "pyright/errors", "ruff/errors"} {
		rec := loadRecording(f, name)
		f.Add(rec.stdout, rec.stderr)
	}
	f.Add([]byte("{\n"), []byte("# x\nvet: a.go:1:1: m\n\tmore\n"))
	f.Add([]byte(`{"reason":"compiler-message","message":{"spans":[{"file_name":"<macro>","expansion":{"span":{"file_name":"a.rs","line_start":1}}}]}}`), []byte{})
	f.Fuzz(func(t *testing.T, stdout, stderr []byte) {
		for _, checker := range checkerNames {
			pr, err := parseOutput(checker, stdout, stderr, "/nonexistent/p")
			if err != nil {
				continue
			}
			finish(&pr, &plugin.Env{Cwd: "/nonexistent/p"})
			for _, d := range pr.Diags {
				if !slices.Contains([]string{SeverityError, SeverityWarning, SeverityInfo}, d.Severity) {
					t.Fatalf("%s: severity %q", checker, d.Severity)
				}
				if d.Line < 0 || d.Column < 0 || d.EndLine < 0 || d.EndColumn < 0 {
					t.Fatalf("%s: negative position %+v", checker, d)
				}
			}
			_ = render(&plan{Checker: checker, Display: "x", DirShown: ".", Scope: "."}, pr.Diags, pr.Notes)
			failedRun(checker, 1, &pr)
		}
	})
}
