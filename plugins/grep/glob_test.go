package grep

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/riot-tools/riot/plugin"
	"github.com/riot-tools/riot/plugin/plugintest"
)

func serveGlob(t *testing.T, limit int) *plugintest.Client {
	t.Helper()
	gl := NewGlob(testGrep(nil))
	if limit > 0 {
		gl.limit = limit
	}
	return plugintest.Serve(t, []plugin.Handler{plugin.New[GlobInput](gl)})
}

// touch makes files with modification times a minute apart, in order.
func touch(t *testing.T, dir string, names ...string) {
	t.Helper()
	base := time.Now().Add(-time.Hour)
	for i, n := range names {
		p := filepath.Join(dir, n)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		at := base.Add(time.Duration(i) * time.Minute)
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
}

// Newest first; a pattern relative to path; the bound said in the content.
func TestGlobOrderAndBound(t *testing.T) {
	c := serveGlob(t, 2)
	touch(t, c.Cwd, "src/old.go", "src/mid.go", "src/new.go", "src/x.txt", "top.go")
	res := c.Call("Glob", map[string]any{"pattern": "**/*.go", "path": "src"})
	if !res.Ok {
		t.Fatal(res.Message)
	}
	want := "src/new.go\nsrc/mid.go\n… and 1 more; narrow the pattern or the path to see them (listed newest first, 2 shown).\n"
	if res.Text != want {
		t.Errorf("text %q, want %q", res.Text, want)
	}
	var ui GlobUI
	_ = json.Unmarshal(res.UI, &ui)
	if ui.Total != 3 || !ui.Truncated || len(ui.Files) != 2 {
		t.Errorf("UI %+v", ui)
	}
	// Without a slash a pattern matches names at any depth.
	res = c.Call("Glob", map[string]any{"pattern": "*.txt"})
	if res.Text != "src/x.txt\n" {
		t.Errorf("*.txt listed %q", res.Text)
	}
}

// No match says what was not looked at; bad input is refused with a fix.
func TestGlobNoMatchAndRefusals(t *testing.T) {
	c := serveGlob(t, 0)
	touch(t, c.Cwd, ".hidden/a.go", "b.txt")
	res := c.Call("Glob", map[string]any{"pattern": "**/*.go"})
	if !res.Ok || !strings.HasPrefix(res.Text, "No files match **/*.go in .; ignored and hidden files are not listed (0 ignored, 1 hidden here).") {
		t.Errorf("no match: %q", res.Text)
	}
	for _, tc := range []struct {
		input map[string]any
		want  string
	}{
		{map[string]any{"pattern": ""}, "`pattern` is empty"},
		{map[string]any{"pattern": "src/{a,b"}, "is not a valid glob"},
		{map[string]any{"pattern": "!*.go"}, "starts with !"},
		{map[string]any{"pattern": "*.go", "path": "b.txt"}, "is a file, not a directory"},
		{map[string]any{"pattern": "*.go", "path": "nope"}, "does not exist"},
	} {
		p := c.Prepare("Glob", tc.input)
		if !strings.Contains(p.Rejected, tc.want) {
			t.Errorf("%v: rejected %q, want %q", tc.input, p.Rejected, tc.want)
		}
	}
	p := c.Prepare("Glob", map[string]any{"pattern": "*.go", "path": "undefined"})
	if p.Rejected != "" || !p.ReadOnly || !p.ConcurrencySafe || len(p.Subjects) != 1 || p.Subjects[0].Value != c.Cwd || p.Subjects[0].Access != plugin.Read {
		t.Errorf("prepared %+v", p)
	}
}

// Glob is served by the grep plugin, after Grep in its manifest.
func TestGlobServedAfterGrep(t *testing.T) {
	var names []string
	for _, h := range Tools() {
		names = append(names, h.Name())
	}
	if fmt.Sprint(names) != "[Grep Glob]" {
		t.Errorf("grep serves %v", names)
	}
}
