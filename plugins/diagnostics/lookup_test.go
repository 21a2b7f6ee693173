package diagnostics

import (
	"os"
	"path/filepath"
	"testing"
)

// TestProjectBinaries: a checker installed in the project is found from the
// project directory up to the workspace root that holds it, nearest first,
// and never above that root; a project outside every root is searched
// alone. The tsc binaries are fakes that report nothing.
func TestProjectBinaries(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// cwd and roots are relative to a fresh directory; roots default
		// to [cwd].
		cwd   string
		roots []string
		// bins are directories (relative) that get a node_modules/.bin/tsc.
		bins []string
		// path is the input path, relative to cwd; the project is
		// wherever a tsconfig.json sits at projectDir.
		path, projectDir string
		// want is the directory whose tsc runs, or "" for none.
		want string
	}{
		{name: "the workspace root's, from a nested project", cwd: "w", bins: []string{"w"}, projectDir: "w/web", path: "web", want: "w"},
		{name: "the project's own before the root's", cwd: "w", bins: []string{"w", "w/web"}, projectDir: "w/web", path: "web", want: "w/web"},
		{name: "in between", cwd: "w", bins: []string{"w/apps"}, projectDir: "w/apps/web", path: "apps/web", want: "w/apps"},
		{name: "never above the workspace root", cwd: "w/inner", bins: []string{"w"}, projectDir: "w/inner/web", path: "web", want: ""},
		{name: "a project outside the workspace: only its own directory", cwd: "w/a", bins: []string{"w/b"}, projectDir: "w/b/web", path: "../b/web", want: ""},
		{name: "a project outside the workspace with its own", cwd: "w/a", bins: []string{"w/b/web"}, projectDir: "w/b/web", path: "../b/web", want: "w/b/web"},
		{name: "a workspace inside the project: only the project directory", cwd: "w/inner", bins: []string{""}, projectDir: "w", path: "..", want: ""},
		{name: "a second workspace root counts", cwd: "w/a", roots: []string{"w/a", "w/b"}, bins: []string{"w/b"}, projectDir: "w/b/web", path: "../b/web", want: "w/b"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := serve(t, options{environ: fakeEnviron()})
			base := c.Cwd
			for _, b := range tc.bins {
				dir := filepath.Join(base, b, "node_modules", ".bin")
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, "tsc"), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			writeFiles(t, base, map[string]string{tc.projectDir + "/tsconfig.json": "{}"})
			if err := os.MkdirAll(filepath.Join(base, tc.cwd), 0o755); err != nil {
				t.Fatal(err)
			}
			c.Cwd = filepath.Join(base, tc.cwd)
			c.Roots = nil
			for _, r := range tc.roots {
				c.Roots = append(c.Roots, filepath.Join(base, r))
			}

			res := c.Call(toolName, map[string]any{"path": tc.path})
			ui := decodeUI(t, res)
			if tc.want == "" {
				if res.Ok || ui.Status != statusNotInstalled {
					t.Fatalf("no tsc should be found; got ok=%v status=%s command=%q", res.Ok, ui.Status, ui.Command)
				}
				return
			}
			if want := filepath.Join(base, tc.want, "node_modules", ".bin", "tsc"); !res.Ok || ui.Command[0] != want {
				t.Fatalf("ran %q (ok=%v %s), want %q", ui.Command[0], res.Ok, res.Message, want)
			}
		})
	}
}

// TestPathLookup: PATH is searched in order, and a relative or empty entry,
// which would mean the plugin's own directory, never is.
func TestPathLookup(t *testing.T) {
	first := fakeChecker(t, "go", "exit 0")
	second := fakeChecker(t, "go", "exit 0")
	plain := t.TempDir()
	if err := os.WriteFile(filepath.Join(plain, "go"), []byte("not executable"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(plain, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(wd, first)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path, want string
	}{
		{"the first match wins", first + ":" + second, filepath.Join(first, "go")},
		{"a file that is not executable is skipped", plain + ":" + second, filepath.Join(second, "go")},
		{"a relative entry is never searched", rel + "::" + second, filepath.Join(second, "go")},
		{"nothing found", plain + ":" + filepath.Join(plain, "sub"), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := (lookup{path: tc.path}).find(checkerGo, "/nonexistent", nil); got != tc.want {
				t.Errorf("find = %q, want %q", got, tc.want)
			}
		})
	}
}
