//go:build !mutation

// These tests build real crates and run npm-installed checkers, which takes
// seconds each; mutation testing (-tags mutation) leaves them out.

package diagnostics

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// requireNodeTool finds a checker installed with npm: the path in envVar
// (which .ci/run sets after installing it into a cache), or name on PATH.
// Without either the test is skipped, saying how to run it.
func requireNodeTool(t *testing.T, envVar, name, pkg string) string {
	t.Helper()
	if p := os.Getenv(envVar); p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("%s=%s does not exist: %v", envVar, p, err)
		}
		return p
	}
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	t.Skipf("%s is not installed: set %s to its binary (npm install --prefix DIR %s; %s=DIR/node_modules/.bin/%s) or put it on PATH", name, envVar, pkg, envVar, name)
	return ""
}

// TestTscRealProject runs the real tsc, found through PATH and through the
// project's own node_modules/.bin.
func TestTscRealProject(t *testing.T) {
	tsc := requireNodeTool(t, "RIOT_TEST_TSC", "tsc", "typescript")
	t.Parallel()
	project := map[string]string{
		"tsconfig.json": `{"compilerOptions": {"strict": true, "noEmit": true, "noUnusedLocals": true}, "include": ["src"]}`,
		"src/a.ts":      "const n: number = \"x\";\nexport { n };\n",
		"src/c.ts":      "const fn: (x: number) => string = (x: string) => x;\nexport { fn };\n",
		"src/ok.ts":     "export const ok = 1;\n",
	}
	want := []string{
		"tsc: 2 errors in 2 files (the workspace root)",
		"src/a.ts:1:7: error: Type 'string' is not assignable to type 'number'. [TS2322]",
		"src/c.ts:1:7: error: Type '(x: string) => string' is not assignable to type '(x: number) => string'. Types of parameters 'x' and 'x' are incompatible. Type 'number' is not assignable to type 'string'. [TS2322]",
	}

	t.Run("on PATH", func(t *testing.T) {
		t.Parallel()
		c := serve(t, options{environ: fakeEnviron(filepath.Dir(tsc))})
		writeFiles(t, c.Cwd, project)
		res := c.Call(toolName, map[string]any{"path": "src/ok.ts"})
		if !res.Ok {
			t.Fatalf("failed: %s", res.Message)
		}
		assertLines(t, strings.Split(strings.TrimRight(res.Text, "\n"), "\n"), want)
	})
	t.Run("in node_modules/.bin, found from a subdirectory project", func(t *testing.T) {
		t.Parallel()
		c := serve(t, options{environ: fakeEnviron()})
		writeFiles(t, c.Cwd, map[string]string{"package.json": "{}"})
		for name, content := range project {
			writeFiles(t, c.Cwd, map[string]string{"web/" + name: content})
		}
		if err := os.MkdirAll(filepath.Join(c.Cwd, "node_modules", ".bin"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(tsc, filepath.Join(c.Cwd, "node_modules", ".bin", "tsc")); err != nil {
			t.Fatal(err)
		}
		res := c.Call(toolName, map[string]any{"path": "web"})
		if !res.Ok {
			t.Fatalf("failed: %s", res.Message)
		}
		got := strings.Split(strings.TrimRight(res.Text, "\n"), "\n")
		assertLines(t, got[:1], []string{"tsc: 2 errors in 2 files (./web)"})
		if ui := decodeUI(t, res); ui.Command[0] != filepath.Join(c.Cwd, "node_modules", ".bin", "tsc") {
			t.Errorf("the project's own tsc should run, not %s", ui.Command[0])
		}
	})
	t.Run("clean", func(t *testing.T) {
		t.Parallel()
		c := serve(t, options{environ: fakeEnviron(filepath.Dir(tsc))})
		writeFiles(t, c.Cwd, map[string]string{"tsconfig.json": project["tsconfig.json"], "src/ok.ts": project["src/ok.ts"]})
		res := c.Call(toolName, map[string]any{})
		if !res.Ok || strings.TrimSpace(res.Text) != "tsc --noEmit: no problems found" {
			t.Fatalf("ok=%v text=%q message=%q", res.Ok, res.Text, res.Message)
		}
	})
}

// TestPyrightRealProject runs the real pyright where ruff is absent.
func TestPyrightRealProject(t *testing.T) {
	pyright := requireNodeTool(t, "RIOT_TEST_PYRIGHT", "pyright", "pyright")
	t.Parallel()
	c := serve(t, options{environ: fakeEnviron(filepath.Dir(pyright))})
	writeFiles(t, c.Cwd, map[string]string{
		"pyproject.toml": "[project]\nname = \"demo\"\nversion = \"0.1.0\"\n",
		"pkg/mod.py":     "x: int = \"not an int\"\n",
		"pkg/ok.py":      "def fine() -> int:\n    return 1\n",
	})
	res := c.Call(toolName, map[string]any{"path": "pkg/mod.py"})
	if !res.Ok {
		t.Fatalf("failed: %s", res.Message)
	}
	got := strings.Split(strings.TrimRight(res.Text, "\n"), "\n")
	if len(got) != 2 || got[0] != "pyright: 1 error in 1 file (./pkg/mod.py)" || !strings.HasPrefix(got[1], "pkg/mod.py:1:10: error: Type \"Literal['not an int']\"") {
		t.Fatalf("text = %q", res.Text)
	}
	res = c.Call(toolName, map[string]any{"path": "pkg/ok.py"})
	if !res.Ok || strings.TrimSpace(res.Text) != "pyright ./pkg/ok.py: no problems found" {
		t.Fatalf("ok=%v text=%q message=%q", res.Ok, res.Text, res.Message)
	}
}
