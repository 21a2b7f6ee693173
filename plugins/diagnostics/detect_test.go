package diagnostics

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestDetection checks which checker runs where, through Prepare: the
// nearest marker wins, ties in one directory go by the table's order, and
// an explicit checker looks only for its own markers.
func TestDetection(t *testing.T) {
	t.Parallel()
	// ruff and pyright are fakes: detection only has to find them.
	ruffDir := fakeChecker(t, "ruff", "exit 0")
	pyrightDir := fakeChecker(t, "pyright", "exit 0")
	files := map[string]string{
		"go.mod":                         "module example.com/w\n",
		"root.go":                        "package w\n",
		"rust/Cargo.toml":                "[package]\nname = \"r\"\n",
		"rust/src/lib.rs":                "",
		"rust/web/tsconfig.json":         "{}",
		"rust/web/src/a.ts":              "",
		"both/go.mod":                    "module example.com/both\n",
		"both/Cargo.toml":                "[package]\nname = \"b\"\n",
		"py/pyproject.toml":              "",
		"py/pkg/m.py":                    "",
		"setup/setup.py":                 "",
		"-flag/pyproject.toml":           "",
		"-flag/-rf.py":                   "",
		"onlyruff/ruff.toml":             "",
		"onlypyright/pyrightconfig.json": "",
	}
	tests := []struct {
		name, path, checker, environPath string
		describe, command, dir           string
	}{
		{name: "the workspace root", path: "", describe: "Check the workspace root with go vet", command: "go vet ./...", dir: "."},
		{name: "a file in the module root checks the root package", path: "root.go", describe: "Check ./root.go with go vet", command: "go vet .", dir: "."},
		{name: "a nested crate beats the root go.mod", path: "rust/src/lib.rs", describe: "Check ./rust/src/lib.rs with cargo check", command: "cargo check", dir: "rust"},
		{name: "a tsconfig.json nearer still", path: "rust/web/src", describe: "Check ./rust/web/src with tsc", command: "tsc --noEmit", dir: "rust/web"},
		{name: "go.mod before Cargo.toml in one directory", path: "both", describe: "Check ./both with go vet", command: "go vet ./...", dir: "both"},
		{name: "an explicit checker skips nearer markers", path: "rust/web/src", checker: "cargo", describe: "Check ./rust/web/src with cargo check", command: "cargo check", dir: "rust"},
		{name: "an explicit go finds the root module", path: "rust/src", checker: "go", describe: "Check ./rust/src with go vet", command: "go vet ./rust/src/...", dir: "."},
		{name: "python prefers ruff", path: "py/pkg", environPath: ruffDir + ":" + pyrightDir, describe: "Check ./py/pkg with ruff", command: "ruff check ./pkg", dir: "py"},
		{name: "python falls back to pyright", path: "py/pkg/m.py", environPath: pyrightDir, describe: "Check ./py/pkg/m.py with pyright", command: "pyright ./pkg/m.py", dir: "py"},
		{name: "setup.py marks a python project", path: "setup", environPath: ruffDir, describe: "Check ./setup with ruff", command: "ruff check", dir: "setup"},
		{name: "a file named like a flag stays a path", path: "-flag/-rf.py", environPath: ruffDir, describe: "Check ./-flag/-rf.py with ruff", command: "ruff check ./-rf.py", dir: "-flag"},
		{name: "ruff.toml counts for an explicit ruff", path: "onlyruff", checker: "ruff", environPath: ruffDir, describe: "Check ./onlyruff with ruff", command: "ruff check", dir: "onlyruff"},
		{name: "pyrightconfig.json counts for an explicit pyright", path: "onlypyright", checker: "pyright", environPath: pyrightDir, describe: "Check ./onlypyright with pyright", command: "pyright", dir: "onlypyright"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := options{}
			if tc.environPath != "" {
				o.environ = fakeEnviron(tc.environPath)
			}
			c := serve(t, o)
			writeFiles(t, c.Cwd, files)
			p := c.Prepare(toolName, map[string]any{"path": tc.path, "checker": tc.checker})
			if p.Rejected != "" {
				t.Fatalf("rejected: %s", p.Rejected)
			}
			if p.Describe != tc.describe {
				t.Errorf("describe = %q, want %q", p.Describe, tc.describe)
			}
			if len(p.Subjects) != 2 || p.Subjects[1].Value != tc.command {
				t.Fatalf("subjects = %+v, want the command %q", p.Subjects, tc.command)
			}
			if want := filepath.Join(c.Cwd, tc.dir); p.Subjects[0].Value != want {
				t.Errorf("the project directory subject = %q, want %q", p.Subjects[0].Value, want)
			}
		})
	}
}

// TestRejections: what cannot be checked is refused before anything runs,
// and Call says the same (as Failed) when a host skips Prepare.
func TestRejections(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		files map[string]string
		input string
		want  []string // fragments of the message, the first its start
	}{
		{
			name: "no marker", files: map[string]string{"notes/a.txt": "x"}, input: `{"path":"notes"}`,
			want: []string{"No project marker found in ./notes or any directory above it.", "go.mod (go vet)", "Cargo.toml (cargo check)", "tsconfig.json (tsc)", "pyproject.toml or setup.py (ruff or pyright)"},
		},
		{
			name: "no marker of the named checker", files: map[string]string{"go.mod": "module m\n"}, input: `{"checker":"cargo"}`,
			want: []string{"No Cargo.toml found in . or any directory above it, so `checker: cargo` has no project to check."},
		},
		{
			name: "a python checker names all its markers", files: map[string]string{"a.txt": ""}, input: `{"checker":"ruff"}`,
			want: []string{"No pyproject.toml, setup.py, ruff.toml or .ruff.toml found in ."},
		},
		{
			name: "a path that does not exist", input: `{"path":"nope/x.go"}`,
			want: []string{"`path` ./nope/x.go does not exist.", "omit `path` to check the workspace root"},
		},
		{
			name: "an unknown checker", input: `{"checker":"mypy"}`,
			want: []string{"`checker` must be one of go, cargo, tsc, ruff, pyright", `got "mypy"`},
		},
		{
			name: "not an object", input: `null`,
			want: []string{"Send a JSON object, with optional `path` and `checker`."},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := serve(t, options{})
			writeFiles(t, c.Cwd, tc.files)
			for _, msg := range []string{c.Prepare(toolName, tc.input).Rejected, c.Call(toolName, tc.input).Message} {
				if !strings.HasPrefix(msg, tc.want[0]) {
					t.Errorf("message = %q, want it to start %q", msg, tc.want[0])
				}
				for _, w := range tc.want[1:] {
					if !strings.Contains(msg, w) {
						t.Errorf("message = %q, want it to say %q", msg, w)
					}
				}
			}
		})
	}
}

// TestRelativePathWithoutAWorkspace: a host that sends no working
// directory gets a correction, not a check of the plugin's own directory.
func TestRelativePathWithoutAWorkspace(t *testing.T) {
	t.Parallel()
	c := serve(t, options{})
	c.Cwd = ""
	if got := c.Prepare(toolName, `{"path":"x"}`).Rejected; got != "The workspace directory is unknown, so a relative `path` cannot be resolved. Pass an absolute `path`." {
		t.Errorf("rejected = %q", got)
	}
}

// TestMarkerAboveTheWorkspaceRoot: detection walks up past the workspace
// root, since a workspace may be a subdirectory of a module.
func TestMarkerAboveTheWorkspaceRoot(t *testing.T) {
	t.Parallel()
	c := serve(t, options{})
	writeFiles(t, c.Cwd, map[string]string{"go.mod": "module example.com/up\n\ngo 1.26\n", "sub/a/a.go": "package a\n"})
	c.Cwd = filepath.Join(c.Cwd, "sub")
	res := c.Call(toolName, `{"path":"a"}`)
	if !res.Ok || strings.TrimSpace(res.Text) != "go vet ./sub/a/... in "+filepath.Dir(c.Cwd)+": no problems found" {
		t.Fatalf("ok=%v text=%q message=%q", res.Ok, res.Text, res.Message)
	}
	if ui := decodeUI(t, res); ui.Scope != filepath.Dir(c.Cwd)+"/sub/a/..." {
		t.Errorf("scope outside the workspace is absolute: %q", ui.Scope)
	}
}

// TestLanguageFirst: a file's language picks the checker before the
// markers do, and a call above several projects names them.
func TestLanguageFirst(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"both/go.mod":            "module example.com/both\n",
		"both/Cargo.toml":        "[package]\nname = \"b\"\n",
		"both/src/lib.rs":        "",
		"both/main.go":           "package main\n",
		"gomod/go.mod":           "module example.com/g\n",
		"gomod/x.rs":             "",
		"gomod/notes.md":         "",
		"mono/svc/go.mod":        "module example.com/svc\n",
		"mono/web/tsconfig.json": "{}",
		"mono/.hidden/go.mod":    "module example.com/h\n",
		"mono/deep/a/b/c/go.mod": "module example.com/deep\n",
	}
	c := serve(t, options{})
	writeFiles(t, c.Cwd, files)
	for _, tc := range []struct{ path, describe string }{
		{"both/src/lib.rs", "Check ./both/src/lib.rs with cargo check"},
		{"both/main.go", "Check ./both/main.go with go vet"},
		{"gomod/notes.md", "Check ./gomod/notes.md with go vet"}, // no language: the markers decide
	} {
		if p := c.Prepare(toolName, map[string]any{"path": tc.path}); p.Rejected != "" || p.Describe != tc.describe {
			t.Errorf("%s: describe %q rejected %q, want %q", tc.path, p.Describe, p.Rejected, tc.describe)
		}
	}
	if got := c.Prepare(toolName, `{"path":"gomod/x.rs"}`).Rejected; got != "./gomod/x.rs is checked by cargo check, but no Cargo.toml was found in ./gomod or any directory above it. Pass a `path` inside that project, or pass `checker` to check this directory with another checker." {
		t.Errorf("a .rs file without a crate: %q", got)
	}
	got := c.Prepare(toolName, `{"path":"mono"}`).Rejected
	if !strings.HasPrefix(got, "No project marker found in ./mono or any directory above it.") ||
		!strings.HasSuffix(got, " Projects below it: ./mono/svc (go.mod), ./mono/web (tsconfig.json). Pass one of them as `path`.") {
		t.Errorf("above several projects: %q", got)
	}
}
