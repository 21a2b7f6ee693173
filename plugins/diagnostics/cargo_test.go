//go:build !mutation

// These tests build real crates and run npm-installed checkers, which takes
// seconds each; mutation testing (-tags mutation) leaves them out.

package diagnostics

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// cargoEnviron shares one target directory between a test's crates, under
// the test's own temporary directory.
func cargoEnviron(t *testing.T) []string {
	return testEnviron("CARGO_TARGET_DIR=" + filepath.Join(t.TempDir(), "target"))
}

// TestCargoErrorAndWarning runs the real cargo check on a crate with an
// error and a warning.
func TestCargoErrorAndWarning(t *testing.T) {
	requireCargo(t)
	t.Parallel()
	c := serve(t, options{environ: cargoEnviron(t)})
	writeFiles(t, c.Cwd, map[string]string{
		"Cargo.toml": "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
		"src/lib.rs": `pub fn add(a: i32, b: i32) -> i32 {
    let unused = 5;
    a + b
}

pub fn bad() -> i32 {
    let s: &str = "x";
    s
}
`,
	})
	res := c.Call(toolName, map[string]any{"path": "src/lib.rs"})
	if !res.Ok {
		t.Fatalf("a crate with a type error is information, Ok: %s", res.Message)
	}
	assertLines(t, strings.Split(strings.TrimRight(res.Text, "\n"), "\n"), []string{
		"cargo check: 1 error, 1 warning in 1 file (the workspace root)",
		"src/lib.rs:8:5: error: mismatched types: expected `i32`, found `&str` [E0308]",
		"src/lib.rs:2:9: warning: unused variable: `unused` [unused_variables]",
	})
	ui := decodeUI(t, res)
	if ui.Checker != "cargo" || ui.ExitCode != 101 || !slices.Equal(ui.Command[1:], []string{"check", "--message-format=json"}) {
		t.Errorf("ui = %+v", ui)
	}
}

// TestCargoRunsBuildScripts is the executable evidence of why Diagnostics
// is not read-only: checking a crate runs its build.rs, which here writes a
// file outside the crate. Prepare says, for the same input, not read-only.
func TestCargoRunsBuildScripts(t *testing.T) {
	requireCargo(t)
	t.Parallel()
	c := serve(t, options{environ: cargoEnviron(t)})
	marker := filepath.Join(t.TempDir(), "build-rs-ran")
	writeFiles(t, c.Cwd, map[string]string{
		"Cargo.toml": "[package]\nname = \"withbuild\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
		"src/lib.rs": "pub fn f() -> u32 { 1 }\n",
		"build.rs":   "fn main() { std::fs::write(" + strconvQuote(marker) + ", \"code ran\").unwrap(); }\n",
	})
	input := map[string]any{}

	if p := c.Prepare(toolName, input); p.ReadOnly || p.Describe != "Check the workspace root with cargo check" {
		t.Fatalf("prepare = %+v: a call that runs build.rs must not be read-only", p)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the marker exists before the call; the test proves nothing")
	}
	res := c.Call(toolName, input)
	if !res.Ok || strings.TrimSpace(res.Text) != "cargo check: no problems found" {
		t.Fatalf("ok=%v text=%q message=%q", res.Ok, res.Text, res.Message)
	}
	got, err := os.ReadFile(marker)
	if err != nil || string(got) != "code ran" {
		t.Fatalf("build.rs should have run and written %s: %v", marker, err)
	}
	if !slices.ContainsFunc(res.Progress, func(p string) bool {
		return strings.HasPrefix(p, "cargo check: ") && strings.Contains(p, "(withbuild)")
	}) {
		t.Errorf("progress should report crates checked: %q", res.Progress)
	}
}

// TestCargoBuildScriptPanics: a build script that fails is cargo failing,
// with the panic in the message.
func TestCargoBuildScriptPanics(t *testing.T) {
	requireCargo(t)
	t.Parallel()
	c := serve(t, options{environ: cargoEnviron(t)})
	writeFiles(t, c.Cwd, map[string]string{
		"Cargo.toml": "[package]\nname = \"buildpanic\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
		"src/lib.rs": "pub fn f() {}\n",
		"build.rs":   "fn main() { panic!(\"boom from build.rs\"); }\n",
	})
	res := c.Call(toolName, map[string]any{})
	if res.Ok || firstLine(res.Message) != "cargo check failed (exit status 101) without reporting problems in the code." {
		t.Fatalf("ok=%v message=%q", res.Ok, res.Message)
	}
	if !strings.Contains(res.Message, "failed to run custom build command for `buildpanic") {
		t.Errorf("the message should quote cargo's stderr: %s", res.Message)
	}
}

func strconvQuote(s string) string {
	return `"` + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`) + `"`
}
