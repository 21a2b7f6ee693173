package diagnostics

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// recRoot is where testdata/record.sh built the projects it recorded.
const recRoot = "/tmp/riotdiag-rec"

type recording struct {
	stdout, stderr []byte
	exit           int
}

func loadRecording(t testing.TB, name string) recording {
	t.Helper()
	read := func(ext string) []byte {
		b, err := os.ReadFile(filepath.Join("testdata", name+ext))
		if err != nil {
			t.Fatalf("recording %s: %v", name, err)
		}
		return b
	}
	code, err := strconv.Atoi(strings.TrimSpace(string(read(".exit"))))
	if err != nil {
		t.Fatalf("recording %s: bad exit file: %v", name, err)
	}
	return recording{stdout: read(".stdout"), stderr: read(".stderr"), exit: code}
}

// parseRecording parses a recording as the tool does, with the workspace
// root at the project's directory.
func parseRecording(t testing.TB, checker, name, dir string) (parsed, recording, error) {
	t.Helper()
	rec := loadRecording(t, name)
	pr, err := parseOutput(checker, rec.stdout, rec.stderr, dir)
	relativize(pr.Diags, "", dir)
	sortDiagnostics(pr.Diags)
	pr.Diags = dedupe(pr.Diags)
	return pr, rec, err
}

func lines(ds []Diagnostic) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = formatDiagnostic(d)
	}
	return out
}

func TestParseRecordedOutputs(t *testing.T) {
	const (
		vetFinding   = "vetfinding/v.go:6:14: warning: fmt.Printf format %d has arg \"x\" of wrong type string [printf]"
		tsAssign     = "src/a.ts:1:7: error: Type 'string' is not assignable to type 'number'. [TS2322]"
		tsMissing    = "src/a.ts:3:7: error: Property 'b' is missing in type '{ a: number; }' but required in type 'P'. [TS2741]"
		tsUnused     = "src/a.ts:4:31: error: 'unused' is declared but its value is never read. [TS6133]"
		tsChain      = "src/c.ts:1:7: error: Type '(x: string) => string' is not assignable to type '(x: number) => string'. Types of parameters 'x' and 'x' are incompatible. Type 'number' is not assignable to type 'string'. [TS2322]"
		pyAssign     = `pkg/mod.py:8:10: error: Type "Literal['not an int']" is not assignable to declared type "int" "Literal['not an int']" is not assignable to "int" [reportAssignmentType]`
		pyArg        = `pkg/mod.py:9:8: error: Argument of type "Literal['2']" cannot be assigned to parameter "b" of type "int" in function "add" "Literal['2']" is not assignable to "int" [reportArgumentType]`
		pyUndefined  = `pkg/mod.py:10:1: error: "undefined_name" is not defined [reportUndefinedVariable]`
		pyUnusedExpr = "pkg/mod.py:10:1: warning: Expression value is unused [reportUnusedExpression]"
	)
	tests := []struct {
		name, checker, recording, dir string
		want                          []string
		notes                         []string
		failed                        bool
	}{
		{
			name: "go vet type checker stops at the first error", checker: checkerGo, recording: "go/typecheck", dir: recRoot + "/gomod",
			want: []string{
				"typeerr/t.go:4:17: error: cannot use 1 (untyped int constant) as string value in variable declaration",
				vetFinding,
			},
			notes: []string{noteVetFirstTypeError},
		},
		{
			name: "compiler errors of a dependency are all listed", checker: checkerGo, recording: "go/mixed", dir: recRoot + "/gomod",
			want: []string{
				"typeerr/t.go:4:17: error: cannot use 1 (untyped int constant) as string value in variable declaration",
				"typeerr/t.go:5:9: error: cannot use s (variable of type string) as int value in return statement",
				"typeerr/t.go:8:12: error: undefined: undefinedThing",
				vetFinding,
			},
		},
		{name: "a clean package with an excluded file", checker: checkerGo, recording: "go/clean", dir: recRoot + "/gomod"},
		{
			name: "a missing dependency is a diagnostic (-mod=readonly)", checker: checkerGo, recording: "go/missingdep", dir: recRoot + "/missing",
			want: []string{"d/d.go:3:8: error: cannot find module providing package example.com/nope: import lookup disabled by -mod=readonly"},
		},
		{
			name: "a missing dependency is a diagnostic, continuation kept", checker: checkerGo, recording: "go/missingdep-default", dir: recRoot + "/missing",
			want: []string{"d/d.go:3:8: error: no required module provides package example.com/nope; to add it: go get example.com/nope"},
		},
		{
			name: "a pattern with no packages is go failing", checker: checkerGo, recording: "go/nopackages", dir: recRoot + "/gomod",
			want:   []string{"error: pattern ./nothing/...: lstat ./nothing/: no such file or directory"},
			failed: true,
		},
		{
			name: "cargo error, error in a macro, warning", checker: checkerCargo, recording: "cargo/errors", dir: recRoot + "/crate",
			want: []string{
				"src/lib.rs:8:5: error: mismatched types: expected `i32`, found `&str` [E0308]",
				"src/lib.rs:13:21: error: mismatched types: expected `u8`, found `&str` [E0308]",
				"src/lib.rs:2:9: warning: unused variable: `unused` [unused_variables]",
			},
		},
		{name: "a build script that panics is cargo failing", checker: checkerCargo, recording: "cargo/buildpanic", dir: recRoot + "/buildpanic", failed: true},
		{name: "a clean crate", checker: checkerCargo, recording: "cargo/clean", dir: recRoot + "/cleancrate"},
		{name: "tsc 7", checker: checkerTsc, recording: "tsc/errors", dir: recRoot + "/tsproj", want: []string{tsAssign, tsMissing, tsUnused, tsChain}},
		{name: "tsc 5 prints the same", checker: checkerTsc, recording: "tsc/errors5", dir: recRoot + "/tsproj", want: []string{tsAssign, tsMissing, tsUnused, tsChain}},
		{
			name: "tsc config errors, one with no file", checker: checkerTsc, recording: "tsc/config", dir: recRoot + "/tsbad",
			want: []string{
				"error: File '/tmp/riotdiag-rec/tsbad/missing.ts' not found. The file is in the program because: Part of 'files' list in tsconfig.json [TS6053]",
				"tsconfig.json:1:22: error: Unknown compiler option 'bogusOption'. [TS5023]",
			},
		},
		{name: "a clean tsc project", checker: checkerTsc, recording: "tsc/clean", dir: recRoot + "/tsclean"},
		{name: "pyright, 0-based positions", checker: checkerPyright, recording: "pyright/errors", dir: recRoot + "/py", want: []string{pyAssign, pyArg, pyUndefined, pyUnusedExpr}},
		{name: "a clean pyright run", checker: checkerPyright, recording: "pyright/clean", dir: recRoot + "/py"},
		{
			name: "ruff: syntax errors and F82 are errors, other lints warnings", checker: checkerRuff, recording: "ruff/errors", dir: recRoot + "/py",
			want: []string{
				"pkg/broken.py:3:1: error: Cannot use `match` statement on Python 3.9 (syntax was added in Python 3.10) [invalid-syntax]",
				"pkg/mod.py:10:1: error: Undefined name `undefined_name` [F821]",
				"pkg/old.py:4:12: error: SyntaxError: Expected ')', found newline",
				"pkg/mod.py:1:8: warning: `os` imported but unused [F401]",
			},
		},
		{name: "a clean ruff run", checker: checkerRuff, recording: "ruff/clean", dir: recRoot + "/py"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pr, rec, err := parseRecording(t, tc.checker, tc.recording, tc.dir)
			if err != nil {
				t.Fatalf("the recorded output should parse: %v", err)
			}
			assertLines(t, lines(pr.Diags), tc.want)
			assertLines(t, pr.Notes, tc.notes)
			if got := failedRun(tc.checker, rec.exit, &pr); got != tc.failed {
				t.Errorf("failedRun(exit %d) = %v, want %v: the run should count as %s", rec.exit, got, tc.failed, map[bool]string{true: "the checker failing", false: "a report on the code"}[tc.failed])
			}
		})
	}
}

// TestParseCargoWorkspaceMember checks that a member crate's spans, which
// rustc reports relative to the workspace root, resolve to real files.
func TestParseCargoWorkspaceMember(t *testing.T) {
	root := t.TempDir()
	member := filepath.Join(root, "crates", "member")
	mustWrite(t, filepath.Join(member, "src", "lib.rs"), "pub fn f() -> u32 {\n    \"not a number\"\n}\n")
	rec := loadRecording(t, "cargo/workspace")
	stdout := []byte(strings.ReplaceAll(string(rec.stdout), recRoot+"/ws", root))

	pr, err := parseCargo(stdout, member)
	if err != nil {
		t.Fatal(err)
	}
	relativize(pr.Diags, "", root)
	assertLines(t, lines(pr.Diags), []string{"crates/member/src/lib.rs:2:5: error: mismatched types: expected `u32`, found `&str` [E0308]"})
	if _, err := os.Stat(filepath.Join(root, pr.Diags[0].File)); err != nil {
		t.Errorf("the diagnostic should name a file that exists: %v", err)
	}
}

func TestParseRejectsWhatIsNotTheCheckersOutput(t *testing.T) {
	tests := []struct {
		checker, stdout, want string
	}{
		{checkerGo, "{\"example.com/x\": [1, 2\n", "go vet printed JSON that does not parse"},
		{checkerGo, "{\"example.com/x\": {\"printf\": 7}}\n", "go vet printed analyzer findings that do not parse"},
		{checkerGo, "{\"example.com/x\": {\"printf\": {\"error\": 7}}}\n", "go vet printed an analyzer result that does not parse"},
		{checkerCargo, "{\"reason\": \"compiler-message\", \"message\": 3}\n{}\n", "cargo printed a JSON line that does not parse"},
		{checkerTsc, "Segmentation fault\n", "tsc printed 1 lines that are not diagnostics"},
		{checkerRuff, "ruff: error: unexpected argument\n", "ruff printed output that is not its JSON"},
		{checkerPyright, "", "pyright printed output that is not its JSON"},
		{checkerPyright, "No configuration file found.\n", "pyright printed output that is not its JSON"},
	}
	for _, tc := range tests {
		t.Run(tc.checker+"/"+tc.want, func(t *testing.T) {
			_, err := parseOutput(tc.checker, []byte(tc.stdout), nil, "/p")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one saying %q", err, tc.want)
			}
		})
	}
}

func TestParseGoEdgeCases(t *testing.T) {
	tests := []struct {
		name, stderr string
		want, notes  []string
	}{
		{
			name:   "an analyzer that failed",
			stderr: "{\n\t\"example.com/x\": {\n\t\t\"printf\": {\"error\": \"boom\"}\n\t}\n}\n",
			want:   []string{"error: analyzer failed: boom [printf]"},
		},
		{
			name:   "the compiler's cap on errors",
			stderr: "# example.com/x\nx.go:1:1: a\ntoo many errors\n",
			want:   []string{"x.go:1:1: error: a"},
			notes:  []string{noteGoTooManyErrors},
		},
		{
			name:   "cgo passes on C compiler warnings and errors",
			stderr: "# example.com/x\nx.c:3:5: warning: unused variable 'y'\nx.c:4:1: error: expected ';'\n",
			want:   []string{"x.c:4:1: error: expected ';'", "x.c:3:5: warning: unused variable 'y'"},
		},
		{
			name:   "a position without a column",
			stderr: "go.mod:3: unknown directive: bogus\n",
			want:   []string{"go.mod:3: error: unknown directive: bogus"},
		},
		{
			name:   "the go command's chatter is not a problem",
			stderr: "go: downloading example.com/y v1.0.0\ngo: finding module for package example.com/z\ngo: found example.com/z in example.com/z v1.2.3\ngo: extracting example.com/y v1.0.0\n",
		},
		{
			name:   "go's warnings stay warnings",
			stderr: "go: warning: \"./x/...\" matched no packages\nno packages to vet\n",
			want:   []string{"error: no packages to vet", "warning: go: warning: \"./x/...\" matched no packages"},
		},
		{
			name:   "a continuation with nothing before it is kept",
			stderr: "\tsomething odd\n",
			want:   []string{"error: something odd"},
		},
		{
			name:   "a package header ends a continuation",
			stderr: "x.go:1:1: a\n# example.com/y\n\tstray\n",
			want:   []string{"error: stray", "x.go:1:1: error: a"},
		},
		{
			name:   "continuations with nothing before them stay together",
			stderr: "\tone\n\ttwo\n",
			want:   []string{"error: one two"},
		},
		{
			name:   "the last line has no newline",
			stderr: "x.go:1:1: a\nx.go:2:2: b",
			want:   []string{"x.go:1:1: error: a", "x.go:2:2: error: b"},
		},
		{
			name:   "a JSON object ends a continuation; blank lines are skipped",
			stderr: "x.go:1:1: a\n{\"p\": {\"printf\": [{\"posn\": \"/p/y.go:3:4\", \"message\": \"m\"}]}}\n \n\tstray\n",
			want:   []string{"error: stray", "x.go:1:1: error: a", "y.go:3:4: warning: m [printf]"},
		},
		{
			name:   "a vet position with a line only, and an end in another file",
			stderr: "{\"p\": {\"a\": [{\"posn\": \"/p/x.go:7\", \"end\": \"/p/y.go:9:1\", \"message\": \"m\"}]}}\n",
			want:   []string{"x.go:7: warning: m [a]"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pr, err := parseGoVet(nil, []byte(tc.stderr), "/p")
			if err != nil {
				t.Fatal(err)
			}
			relativize(pr.Diags, "", "/p")
			sortDiagnostics(pr.Diags)
			assertLines(t, lines(pr.Diags), tc.want)
			assertLines(t, pr.Notes, tc.notes)
		})
	}
}

func TestParseVetEndPosition(t *testing.T) {
	pr, _, err := parseRecording(t, checkerGo, "go/clean", recRoot+"/gomod")
	if err != nil || len(pr.Diags) != 0 {
		t.Fatalf("clean: %v %v", err, pr.Diags)
	}
	pr, _, err = parseRecording(t, checkerGo, "go/mixed", recRoot+"/gomod")
	if err != nil {
		t.Fatal(err)
	}
	d := pr.Diags[len(pr.Diags)-1]
	if d.Source != "go vet" || d.EndLine != 6 || d.EndColumn != 16 || d.Code != "printf" {
		t.Errorf("the vet finding should carry its end position, analyzer and source: %+v", d)
	}
	if e := pr.Diags[0]; e.Source != "go" || e.EndLine != 0 {
		t.Errorf("a compiler error has source go and no end: %+v", e)
	}
}

func TestParsePythonFields(t *testing.T) {
	pr, _, err := parseRecording(t, checkerPyright, "pyright/errors", recRoot+"/py")
	if err != nil {
		t.Fatal(err)
	}
	if d := pr.Diags[0]; d.EndLine != 8 || d.EndColumn != 22 || d.Source != "pyright" {
		t.Errorf("pyright's 0-based end should be made 1-based: %+v", d)
	}
	pr, _, err = parseRecording(t, checkerRuff, "ruff/errors", recRoot+"/py")
	if err != nil {
		t.Fatal(err)
	}
	if d := pr.Diags[len(pr.Diags)-1]; d.EndLine != 1 || d.EndColumn != 10 || d.Source != "ruff" {
		t.Errorf("ruff's end position is kept as is: %+v", d)
	}
	out, err := parsePyright([]byte(`{"generalDiagnostics": [{"file": "/p/a.py", "severity": "unusedCode", "message": "m"}], "summary": {"filesAnalyzed": 0}}`), "/p")
	if err != nil {
		t.Fatal(err)
	}
	if d := out.Diags[0]; d.Severity != SeverityInfo || d.Line != 0 {
		t.Errorf("unusedCode is info, and no range means no position: %+v", d)
	}
	assertLines(t, out.Notes, []string{notePyrightNoFiles})
	if out, err := parseRuff([]byte(`[{"code": "X1", "filename": "/p/a.py", "message": "m", "severity": "info", "location": {"row": 1, "column": 1}}]`), "/p"); err != nil || out.Diags[0].Severity != SeverityInfo {
		t.Errorf("a severity ruff states is used: %+v %v", out.Diags, err)
	}
}

func TestCrateName(t *testing.T) {
	for id, want := range map[string]string{
		"path+file:///tmp/exp/crate#demo@0.1.0":                             "demo",
		"path+file:///tmp/riotdiag-rec/ws/crates/member#0.1.0":              "member",
		"registry+https://github.com/rust-lang/crates.io-index#serde@1.0.0": "serde",
		"demo 0.1.0 (path+file:///tmp/exp/crate)":                           "demo",
	} {
		if got := crateName(id); got != want {
			t.Errorf("crateName(%q) = %q, want %q", id, got, want)
		}
	}
}

func assertLines(t *testing.T, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got %d lines:\n  %s\nwant %d:\n  %s", len(got), strings.Join(got, "\n  "), len(want), strings.Join(want, "\n  "))
	}
}

func mustWrite(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestProgressLines(t *testing.T) {
	var got []string
	report := func(s string) { got = append(got, s) }
	goObs := newProgress(checkerGo, report)
	for _, l := range []string{"{", "\t\"example.com/a\": {", "\t}", "}", "{}", "# example.com/b", "vet: b.go:1:1: x"} {
		goObs(true, []byte(l))
	}
	assertLines(t, got, []string{
		"go vet: 1 package checked (example.com/a)",
		"go vet: 2 packages checked",
		"go vet: 3 packages checked (example.com/b)",
	})

	got = nil
	cargoObs := newProgress(checkerCargo, report)
	cargoObs(true, []byte(`{"reason":"compiler-artifact","package_id":"path+file:///p#demo@0.1.0"}`))
	cargoObs(false, []byte(`{"reason":"compiler-artifact","package_id":"path+file:///p#stderr@0.1.0"}`))
	cargoObs(true, []byte(`{"reason":"compiler-message","package_id":"path+file:///p#demo@0.1.0"}`))
	cargoObs(true, []byte(`{"reason":"compiler-artifact",`))
	cargoObs(true, []byte(`{"reason":"compiler-artifact","package_id":"registry+https://x#serde@1.0.0"}`))
	assertLines(t, got, []string{"cargo check: 1 crate checked (demo)", "cargo check: 2 crates checked (serde)"})

	for _, c := range []string{checkerTsc, checkerRuff, checkerPyright} {
		if newProgress(c, report) != nil {
			t.Errorf("%s reports nothing until the end; it has no progress observer", c)
		}
	}
}
