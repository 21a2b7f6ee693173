package diagnostics

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/riot-tools/riot/plugin"
)

// goModule is a module with one package of each kind the issue names: a
// type error, a vet finding, a clean package, and a build constraint that
// excludes a file with an error (which must not be reported).
var goModule = map[string]string{
	"go.mod": "module example.com/m\n\ngo 1.26\n",
	"typeerr/t.go": `package typeerr

func G() int {
	var s string = 1
	return s
}
`,
	"vetfinding/v.go": `package vetfinding

import "fmt"

func F() {
	fmt.Printf("%d\n", "x")
}
`,
	"clean/c.go": "package clean\n\nfunc H() int { return 1 }\n",
	"clean/c_never.go": `//go:build never

package clean

func bad() int { return "excluded by the build constraint" }
`,
}

// TestGoVetRealModule runs the real go vet on a temporary module.
func TestGoVetRealModule(t *testing.T) {
	t.Parallel()
	c := serve(t, options{})
	writeFiles(t, c.Cwd, goModule)

	tests := []struct {
		name, path string
		ok         bool
		text       []string // the lines of the model's text, in order
	}{
		{
			name: "the whole module: errors first, then the vet finding", path: "", ok: true,
			text: []string{
				"go vet: 1 error, 1 warning in 2 files (./...)",
				"Note: " + noteVetFirstTypeError,
				"typeerr/t.go:4:17: error: cannot use 1 (untyped int constant) as string value in variable declaration",
				"vetfinding/v.go:6:14: warning: fmt.Printf format %d has arg \"x\" of wrong type string [printf]",
			},
		},
		{
			name: "a clean package whose excluded file has an error", path: "clean", ok: true,
			text: []string{"go vet ./clean/...: no problems found"},
		},
		{
			name: "a file checks its package", path: "clean/c.go", ok: true,
			text: []string{"go vet ./clean: no problems found"},
		},
		{
			name: "a file with only a vet finding", path: "vetfinding/v.go", ok: true,
			text: []string{
				"go vet: 1 warning in 1 file (./vetfinding)",
				"vetfinding/v.go:6:14: warning: fmt.Printf format %d has arg \"x\" of wrong type string [printf]",
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := c.Call(toolName, map[string]any{"path": tc.path})
			if res.Ok != tc.ok {
				t.Fatalf("ok = %v, want %v; message: %s", res.Ok, tc.ok, res.Message)
			}
			assertLines(t, strings.Split(strings.TrimRight(res.Text, "\n"), "\n"), tc.text)
		})
	}
}

func TestGoVetUIPayloadAndProgress(t *testing.T) {
	t.Parallel()
	c := serve(t, options{})
	writeFiles(t, c.Cwd, goModule)

	res := c.Call(toolName, map[string]any{})
	if !res.Ok {
		t.Fatalf("a run that finds problems is Ok (information), not Failed: %s", res.Message)
	}
	ui := decodeUI(t, res)
	if ui.Checker != "go" || ui.Status != statusOK || ui.ExitCode != 1 || ui.Dir != c.Cwd || ui.Marker != filepath.Join(c.Cwd, "go.mod") {
		t.Errorf("ui = %+v", ui)
	}
	if !filepath.IsAbs(ui.Command[0]) || !slices.Equal(ui.Command[1:], []string{"vet", "-json", "./..."}) || !strings.HasSuffix(ui.CommandLine, " vet -json ./...") {
		t.Errorf("the UI should carry the exact command run: %q / %q", ui.Command, ui.CommandLine)
	}
	if len(ui.Diagnostics) != 2 || ui.Counts != (counts{Errors: 1, Warnings: 1, Files: 2}) || ui.DurationMS < 0 {
		t.Errorf("the UI should carry every diagnostic and the counts: %+v", ui)
	}
	if d := ui.Diagnostics[1]; d != (Diagnostic{File: "vetfinding/v.go", Line: 6, Column: 14, EndLine: 6, EndColumn: 16, Severity: "warning", Code: "printf", Message: `fmt.Printf format %d has arg "x" of wrong type string`, Source: "go vet"}) {
		t.Errorf("structured diagnostic = %+v", d)
	}
	if len(res.Progress) < 2 || res.Progress[0] != "Running go vet ./..." || !slices.ContainsFunc(res.Progress, func(p string) bool { return strings.HasPrefix(p, "go vet: ") && strings.Contains(p, "checked") }) {
		t.Errorf("progress should say what runs, then packages checked: %q", res.Progress)
	}
}

// TestGoVetMissingDependency: an import no module provides is reported as
// a diagnostic at the import, not as a crash. GOPROXY=off keeps go from
// trying the network.
func TestGoVetMissingDependency(t *testing.T) {
	t.Parallel()
	for _, goflags := range []string{"GOFLAGS=-mod=readonly", "GOFLAGS="} {
		t.Run(goflags, func(t *testing.T) {
			c := serve(t, options{environ: testEnviron(goflags)})
			writeFiles(t, c.Cwd, map[string]string{
				"go.mod": "module example.com/missing\n\ngo 1.26\n",
				"d/d.go": "package d\n\nimport \"example.com/nope\"\n\nvar _ = nope.X\n",
			})
			res := c.Call(toolName, map[string]any{"path": "."})
			if !res.Ok {
				t.Fatalf("a missing dependency should be a diagnostic, not a failure: %s", res.Message)
			}
			lines := strings.Split(strings.TrimRight(res.Text, "\n"), "\n")
			if len(lines) != 2 || lines[0] != "go vet: 1 error in 1 file (./...)" ||
				!strings.HasPrefix(lines[1], "d/d.go:3:8: error: ") || !strings.Contains(lines[1], "example.com/nope") {
				t.Fatalf("text = %q", res.Text)
			}
		})
	}
}

// TestGoVetNestedModule: the nearest go.mod wins, the command runs in its
// directory, and paths and scope are relative to the workspace root.
func TestGoVetNestedModule(t *testing.T) {
	t.Parallel()
	c := serve(t, options{})
	writeFiles(t, c.Cwd, map[string]string{
		"go.mod":                   "module example.com/outer\n\ngo 1.26\n",
		"svc/go.mod":               "module example.com/svc\n\ngo 1.26\n",
		"svc/internal/x/x.go":      "package x\n\nfunc F() int { return \"s\" }\n",
		"svc/internal/clean/ok.go": "package clean\n",
	})
	res := c.Call(toolName, map[string]any{"path": "svc/internal"})
	want := []string{
		"go vet: 1 error in 1 file (./svc/internal/...)",
		"Note: " + noteVetFirstTypeError,
		`svc/internal/x/x.go:3:23: error: cannot use "s" (untyped string constant) as int value in return statement`,
	}
	assertLines(t, strings.Split(strings.TrimRight(res.Text, "\n"), "\n"), want)
	res = c.Call(toolName, map[string]any{"path": "svc/internal/clean"})
	assertLines(t, []string{strings.TrimRight(res.Text, "\n")}, []string{"go vet ./internal/clean/... in ./svc: no problems found"})
	if ui := decodeUI(t, res); ui.Dir != filepath.Join(c.Cwd, "svc") {
		t.Errorf("go should run in the nested module's root, not %s", ui.Dir)
	}
}

// TestGoFailsWithoutPackages: go itself failing is Failed with its stderr.
func TestGoFailsWithoutPackages(t *testing.T) {
	t.Parallel()
	c := serve(t, options{})
	writeFiles(t, c.Cwd, map[string]string{
		"go.mod":          "module example.com/m\n\ngo 1.26\n",
		"docs/README.txt": "no Go here\n",
	})
	res := c.Call(toolName, map[string]any{"path": "docs"})
	if res.Ok {
		t.Fatalf("a pattern with no packages is go failing, not a clean run: %s", res.Text)
	}
	if firstLine(res.Message) != "go vet failed (exit status 1) without reporting problems in the code." {
		t.Errorf("first line = %q", firstLine(res.Message))
	}
	if !strings.Contains(res.Message, "stderr of go vet:\n") || !strings.Contains(res.Message, "matched no packages") {
		t.Errorf("the message should quote go's stderr, labelled: %s", res.Message)
	}
	if ui := decodeUI(t, res); ui.Status != statusFailed || !strings.Contains(ui.Stderr, "no packages to vet") {
		t.Errorf("ui = %+v", ui)
	}
}

func TestPrepareProperties(t *testing.T) {
	t.Parallel()
	c := serve(t, options{})
	writeFiles(t, c.Cwd, goModule)
	writeFiles(t, c.Cwd, map[string]string{"internal/a/a.go": "package a\n"})

	p := c.Prepare(toolName, map[string]any{"path": "internal"})
	if p.Rejected != "" {
		t.Fatal(p.Rejected)
	}
	if p.ReadOnly || p.ConcurrencySafe {
		t.Errorf("Diagnostics runs build tooling: it must be neither read-only nor concurrency-safe: %+v", p)
	}
	if p.Describe != "Check ./internal with go vet" {
		t.Errorf("describe = %q", p.Describe)
	}
	wantClassifier := "Run `go vet ./internal/...` in " + c.Cwd + " (build tooling may execute project code such as build scripts)"
	if p.ClassifierInput != wantClassifier {
		t.Errorf("classifier input = %q, want %q", p.ClassifierInput, wantClassifier)
	}
	wantSubjects := []plugin.Subject{plugin.ReadPath(c.Cwd), plugin.Command("go vet ./internal/...")}
	if !slices.Equal(p.Subjects, wantSubjects) {
		t.Errorf("subjects = %+v, want the project directory and the command %+v", p.Subjects, wantSubjects)
	}
	if p.Permission != plugin.Passthrough {
		t.Errorf("the tool takes no position in the permission chain; got %v", p.Permission)
	}
	if d := c.Prepare(toolName, map[string]any{}).Describe; d != "Check the workspace root with go vet" {
		t.Errorf("describe of the root = %q", d)
	}

	m := c.Manifest()
	if len(m) != 1 || m[0].Name != toolName || m[0].CascadesOnFailure {
		t.Errorf("manifest = %+v: one tool, Diagnostics, that does not cascade", m)
	}
	if b := m[0].ResultBudget; b.Unlimited || b.LimitChars != plugin.DefaultBudgetChars {
		t.Errorf("budget = %+v", b)
	}
}
