package diagnostics

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/riot-tools/riot/plugin"
)

func TestFormatDiagnostic(t *testing.T) {
	tests := []struct {
		d    Diagnostic
		want string
	}{
		{Diagnostic{File: "a.go", Line: 3, Column: 7, Severity: "error", Message: "m", Code: "c"}, "a.go:3:7: error: m [c]"},
		{Diagnostic{File: "a.go", Line: 3, Severity: "warning", Message: "m"}, "a.go:3: warning: m"},
		{Diagnostic{File: "a.go", Column: 9, Severity: "info", Message: "m"}, "a.go: info: m"},
		{Diagnostic{Severity: "error", Message: "no file", Code: "TS1"}, "error: no file [TS1]"},
		{Diagnostic{File: "a.ts", Line: 1, Column: 1, Severity: "error", Message: "first\n  second\n\tthird"}, "a.ts:1:1: error: first second third"},
	}
	for _, tc := range tests {
		if got := formatDiagnostic(tc.d); got != tc.want {
			t.Errorf("formatDiagnostic(%+v) = %q, want %q", tc.d, got, tc.want)
		}
	}
	long := strings.Repeat("é", maxMessageChars+5)
	if got := oneLine(long); got != strings.Repeat("é", maxMessageChars)+"…" {
		t.Errorf("a long message is cut at %d characters, marked: got %d runes", maxMessageChars, len([]rune(got)))
	}
	if got := oneLine(strings.Repeat("x", maxMessageChars)); got != strings.Repeat("x", maxMessageChars) {
		t.Error("a message of exactly the limit is not cut")
	}
}

func TestRenderSummaryAndOrder(t *testing.T) {
	p := &plan{Checker: checkerGo, Display: "go vet ./...", DirShown: ".", Scope: "./..."}
	ds := []Diagnostic{
		{File: "b.go", Line: 1, Column: 1, Severity: "warning", Message: "w1", Source: "go vet"},
		{File: "a.go", Line: 9, Column: 1, Severity: "error", Message: "e2"},
		{File: "a.go", Line: 2, Column: 5, Severity: "error", Message: "e1"},
		{File: "c.go", Line: 1, Column: 1, Severity: "info", Message: "i1"},
		{File: "b.go", Line: 1, Column: 1, Severity: "warning", Message: "w1", Source: "go vet"},
		{Severity: "error", Message: "unlocated"},
	}
	env := &plugin.Env{Cwd: "/w"}
	pr := parsed{Diags: ds}
	finish(&pr, env)
	got := strings.Split(strings.TrimRight(render(p, pr.Diags, []string{"n1"}), "\n"), "\n")
	assertLines(t, got, []string{
		"go vet: 3 errors, 1 warning, 1 info in 3 files (./...)",
		"Note: n1",
		"error: unlocated",
		"a.go:2:5: error: e1",
		"a.go:9:1: error: e2",
		"b.go:1:1: warning: w1",
		"c.go:1:1: info: i1",
	})
}

func TestRenderClean(t *testing.T) {
	for _, tc := range []struct {
		p    plan
		want string
	}{
		{plan{Checker: checkerGo, Display: "go vet ./...", DirShown: "."}, "go vet ./...: no problems found\n"},
		{plan{Checker: checkerCargo, Display: "cargo check", DirShown: "./crates/x"}, "cargo check in ./crates/x: no problems found\n"},
	} {
		if got := render(&tc.p, nil, nil); got != tc.want {
			t.Errorf("render = %q, want %q", got, tc.want)
		}
	}
	p := &plan{Checker: checkerPyright, Display: "pyright ./x", DirShown: "."}
	if got := render(p, nil, []string{notePyrightNoFiles}); got != "pyright ./x: no problems found\nNote: "+notePyrightNoFiles+"\n" {
		t.Errorf("a clean run keeps its notes: %q", got)
	}
}

// TestRenderCap: past 200 diagnostics the text says so, and since errors
// sort first, the warnings are what is left out.
func TestRenderCap(t *testing.T) {
	var ds []Diagnostic
	for i := range 250 {
		ds = append(ds, Diagnostic{File: fmt.Sprintf("w%03d.go", i), Line: 1, Column: 1, Severity: "warning", Message: "w"})
	}
	for i := range 3 {
		ds = append(ds, Diagnostic{File: "z.go", Line: i + 1, Column: 1, Severity: "error", Message: "e"})
	}
	pr := parsed{Diags: ds}
	finish(&pr, &plugin.Env{})
	p := &plan{Checker: checkerGo, Display: "go vet ./...", DirShown: ".", Scope: "./..."}
	lines := strings.Split(strings.TrimRight(render(p, pr.Diags, nil), "\n"), "\n")
	if lines[0] != "go vet: 3 errors, 250 warnings in 251 files (./...)" {
		t.Errorf("the summary counts everything, shown or not: %q", lines[0])
	}
	if lines[1] != "Showing the first 200 of 253 diagnostics, errors first; 53 more are not shown. Fix these, or pass a narrower `path`, to see the rest." {
		t.Errorf("the cap should be announced right after the summary: %q", lines[1])
	}
	if len(lines) != 2+maxShown {
		t.Errorf("%d lines, want the summary, the cap note and %d diagnostics", len(lines), maxShown)
	}
	if lines[2] != "z.go:1:1: error: e" || lines[4] != "z.go:3:1: error: e" || lines[5] != "w000.go:1:1: warning: w" {
		t.Errorf("errors come first: %q", lines[2:6])
	}
	exactly := pr.Diags[:maxShown]
	if strings.Contains(render(p, exactly, nil), "Showing the first") {
		t.Error("exactly 200 diagnostics are not capped")
	}
}

func TestRelPath(t *testing.T) {
	for _, tc := range []struct{ file, base, cwd, want string }{
		{"/w/a/b.go", "", "/w", "a/b.go"},
		{"b.go", "/w/a", "/w", "a/b.go"},
		{"/elsewhere/x.go", "", "/w", "/elsewhere/x.go"},
		{"/w/../w2/x.go", "", "/w", "/w2/x.go"},
		{"/w", "", "/w", "."},
		{"", "/w", "/w", ""},
		{"/w/a.go", "", "", "/w/a.go"},
	} {
		if got := relPath(tc.file, tc.base, tc.cwd); got != tc.want {
			t.Errorf("relPath(%q, %q, %q) = %q, want %q", tc.file, tc.base, tc.cwd, got, tc.want)
		}
	}
}

func TestNormalizeSeverity(t *testing.T) {
	for level, want := range map[string]string{
		"error": "error", "ERROR": "error", "warning": "warning", "warn": "warning",
		"information": "info", "note": "info", "help": "info", "message": "info",
		"failure-note": "error", "error: internal compiler error": "error", "": "error",
	} {
		if got := normalizeSeverity(level); got != want {
			t.Errorf("normalizeSeverity(%q) = %q, want %q (unknown levels count as errors)", level, got, want)
		}
	}
}

func TestFailedRun(t *testing.T) {
	located := &parsed{Diags: []Diagnostic{{File: "a", Severity: "warning"}}}
	unlocated := &parsed{Diags: []Diagnostic{{Severity: "error"}}}
	anError := &parsed{Diags: []Diagnostic{{File: "a", Severity: "error"}}}
	none := &parsed{}
	tests := []struct {
		checker string
		code    int
		p       *parsed
		want    bool
	}{
		{checkerGo, 0, none, false},
		{checkerGo, 1, located, false},
		{checkerGo, 1, unlocated, true},
		{checkerGo, 2, none, true},
		{checkerCargo, 101, anError, false},
		{checkerCargo, 101, located, true},
		{checkerCargo, 0, located, false},
		{checkerTsc, 2, anError, false},
		{checkerTsc, 1, none, true},
		{checkerRuff, 1, located, false},
		{checkerRuff, 1, none, true},
		{checkerRuff, 2, located, true},
		{checkerPyright, 1, anError, false},
		{checkerPyright, 1, located, true},
		{checkerPyright, 3, anError, true},
	}
	for _, tc := range tests {
		if got := failedRun(tc.checker, tc.code, tc.p); got != tc.want {
			t.Errorf("failedRun(%s, exit %d, %+v) = %v, want %v", tc.checker, tc.code, tc.p.Diags, got, tc.want)
		}
	}
}

func TestShellJoin(t *testing.T) {
	got := shellJoin([]string{"/usr/bin/go", "vet", "-json", "./a b", "it's", "", "./x=y,z@1%", "azAZ09", "a`z", "~"})
	if want := `/usr/bin/go vet -json './a b' 'it'\''s' '' ./x=y,z@1% azAZ09 'a` + "`" + `z' '~'`; got != want {
		t.Errorf("shellJoin = %s, want %s", got, want)
	}
}

func TestExcerpt(t *testing.T) {
	if excerpt("stderr of x", []byte(" \n\n")) != "" {
		t.Error("blank output has no excerpt")
	}
	got := excerpt("stderr of x", []byte("a\r\n"+strings.Repeat("y", maxOutputLine+1)+"\n"))
	if want := "stderr of x:\n  a\n  " + strings.Repeat("y", maxOutputLine) + "…\n"; got != want {
		t.Errorf("excerpt = %q, want %q", got, want)
	}
}

// TestInputSchema: the model sees two optional fields, the checker an enum.
func TestInputSchema(t *testing.T) {
	c := serve(t, options{})
	var schema struct {
		Properties map[string]struct {
			Type string   `json:"type"`
			Enum []string `json:"enum"`
		} `json:"properties"`
		Required             []string `json:"required"`
		AdditionalProperties *bool    `json:"additionalProperties"`
	}
	if err := json.Unmarshal(c.Manifest()[0].InputSchema, &schema); err != nil {
		t.Fatal(err)
	}
	if len(schema.Properties) != 2 || schema.Properties["path"].Type != "string" || len(schema.Required) != 0 {
		t.Errorf("schema = %+v: want optional path and checker only", schema)
	}
	if !slices.Equal(schema.Properties["checker"].Enum, checkerNames) {
		t.Errorf("checker enum = %q, want %q", schema.Properties["checker"].Enum, checkerNames)
	}
	if schema.AdditionalProperties == nil || *schema.AdditionalProperties {
		t.Error("the schema must be closed")
	}
	if p := c.Manifest()[0].Prompt; !strings.Contains(p, "never read-only") || !strings.Contains(p, "build scripts and proc macros") {
		t.Errorf("the prompt must say why the tool is not read-only:\n%s", p)
	}
}

// TestCaptureLimit: past its limit a stream is drained and dropped, the
// writer is never blocked or failed, and progress stops with it. Lines are
// observed whole across writes, except one longer than 1 MiB, which is
// dropped rather than held.
func TestCaptureLimit(t *testing.T) {
	var seen []string
	c := &capture{limit: 10, observe: func(_ bool, l []byte) { seen = append(seen, string(l)) }}
	for _, w := range []string{"ab\ncd\n", "efghijk\n", "more\n"} {
		if n, err := c.Write([]byte(w)); n != len(w) || err != nil {
			t.Fatalf("Write(%q) = %d, %v: a capture must accept everything", w, n, err)
		}
	}
	if got := string(c.bytes()); got != "ab\ncd\nefgh" || !c.cut {
		t.Errorf("kept %q (cut=%v), want the first 10 bytes and cut", got, c.cut)
	}
	assertLines(t, seen, []string{"ab", "cd"})

	seen = nil
	split := &capture{limit: 1 << 30, observe: func(_ bool, l []byte) { seen = append(seen, string(l)) }}
	for _, w := range []string{"ab", "c\nd", "e\n\nf\n", strings.Repeat("x", 1<<20+1), "tail\n"} {
		_, _ = split.Write([]byte(w))
	}
	assertLines(t, seen, []string{"abc", "de", "", "f", "tail"})
	if split.cut {
		t.Error("under the limit nothing is cut")
	}

	exact := &capture{limit: 3}
	_, _ = exact.Write([]byte("abc"))
	if exact.cut || string(exact.bytes()) != "abc" {
		t.Errorf("exactly the limit is not cut: %q cut=%v", exact.bytes(), exact.cut)
	}
}

// TestToolWithoutTheSDK: the tool's methods are safe to call directly,
// without the SDK's validation first, and stay fail-closed.
func TestToolWithoutTheSDK(t *testing.T) {
	tool := &Tool{opts: options{timeout: time.Second, environ: []string{"PATH="}}}
	if d := tool.Describe(nil); d != "Check the project with its checker" {
		t.Errorf("describe = %q", d)
	}
	if c := tool.ClassifierInput(&Input{}); c != "Run the project's checker (go vet, cargo check, tsc, ruff or pyright) (build tooling may execute project code such as build scripts)" {
		t.Errorf("classifier input without a plan = %q; it must never be empty", c)
	}
	if s := tool.PermissionSubjects(nil, nil); s != nil {
		t.Errorf("subjects = %+v", s)
	}
	if out := tool.Call(context.Background(), nil, &plugin.Env{}); out.IsOk() || out.Message() != "Send a JSON object, with optional `path` and `checker`." {
		t.Errorf("Call(nil) = %q", out.Message())
	}
	dir := t.TempDir()
	mustWrite(t, dir+"/go.mod", "module m\n")
	out := tool.Call(context.Background(), &Input{}, &plugin.Env{Cwd: dir})
	if out.IsOk() || firstLine(out.Message()) != "go is not installed." {
		t.Errorf("Call without Prepare should detect the project itself: %q", out.Message())
	}
}

func TestUnreadablePath(t *testing.T) {
	c := serve(t, options{})
	writeFiles(t, c.Cwd, map[string]string{"go.mod": "module m\n"})
	for input, want := range map[string]string{
		`{"path":"a\u0000b"}`: "`path` ./a\x00b cannot be read (it could not be accessed).",
		`{"path":"go.mod/x"}`: "`path` ./go.mod/x does not exist.",
	} {
		if got := c.Prepare(toolName, input).Rejected; !strings.HasPrefix(got, want) {
			t.Errorf("Prepare(%s) rejected %q, want it to start %q", input, got, want)
		}
	}
}
