package hello_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeModuleSteps runs the README's steps for a plugin in its own
// module, as printed, with this example as the plugin's code: the module
// must build. Running `go mod tidy` before the code existed dropped the
// riot requirement, which only running the steps shows.
func TestReadmeModuleSteps(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module of its own")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile("(?s)```sh\n(go mod init example.com/riot-tool-greet\n.*?)```\n").FindSubmatch(readme)
	if block == nil {
		t.Fatal("the README has no sh block that starts a plugin's own module with go mod init")
	}
	// The module sits beside a checkout of riot, as the README's ../riot says.
	parent := t.TempDir()
	if err := os.Symlink(root, filepath.Join(parent, "riot")); err != nil {
		t.Fatal(err)
	}
	mod := filepath.Join(parent, "riot-tool-greet")
	if err := os.Mkdir(mod, 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command(goBin, args...)
		cmd.Dir = mod
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	wroteCode := false
	for _, line := range strings.Split(string(block[1]), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "#") && !wroteCode {
			// The README's "now write the tool" step.
			writeGreet(t, root, mod)
			wroteCode = true
			continue
		}
		cmd, _, _ := strings.Cut(line, "#")
		words := strings.Fields(cmd)
		if len(words) == 0 || words[0] != "go" {
			continue
		}
		if words[1] == "mod" && words[2] == "tidy" && !wroteCode {
			t.Fatal("the README runs go mod tidy before the code exists, which drops the riot requirement")
		}
		run(words[1:]...)
	}
	if !wroteCode {
		t.Fatal("the README's steps never say where the code is written")
	}
	run("build", "-o", filepath.Join(t.TempDir(), "riot-tool-greet"), "./cmd/riot-tool-greet")
}

// writeGreet lays out the example as the README's module: the tool at the
// root, its main under cmd/riot-tool-greet.
func writeGreet(t *testing.T, root, mod string) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(root, "examples", "hello-tool", "hello.go"))
	if err != nil {
		t.Fatal(err)
	}
	main := "package main\n\nimport (\n\tgreet \"example.com/riot-tool-greet\"\n\t\"github.com/riot-tools/riot/plugin\"\n)\n\nfunc main() { plugin.Serve(greet.Tool()) }\n"
	files := map[string]string{"greet.go": string(src), filepath.Join("cmd", "riot-tool-greet", "main.go"): main}
	for name, body := range files {
		p := filepath.Join(mod, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
