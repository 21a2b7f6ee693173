package hello_test

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// TestReadmeIsTheExample keeps the README's plugin snippets identical to
// this example, which compiles and whose tests pass: every Go block of
// the README that starts with a "// examples/…" line is that file.
func TestReadmeIsTheExample(t *testing.T) {
	root := filepath.Join("..", "..")
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```go\n// (examples/[^\n]+\\.go)\n(.*?)```\n").FindAllSubmatch(readme, -1)
	seen := map[string]bool{}
	for _, b := range blocks {
		name, body := string(b[1]), string(b[2])
		file, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Errorf("the README shows %s, which does not exist", name)
			continue
		}
		if body != string(file) {
			t.Errorf("the README's %s differs from the file; copy the file into the README", name)
		}
		seen[name] = true
	}
	for _, want := range []string{"examples/hello-tool/hello.go", "examples/hello-tool/cmd/riot-tool-hello/main.go", "examples/hello-tool/hello_test.go"} {
		if !seen[want] {
			t.Errorf("the README does not show %s", want)
		}
	}
}
