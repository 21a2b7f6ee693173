package grep

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/riot-tools/riot/plugin"
	"github.com/riot-tools/riot/plugin/plugintest"
)

// serve serves a Grep with test settings: no global git excludes (HOME
// points nowhere) unless env says otherwise.
func serve(t *testing.T, g *Grep, opts ...plugintest.Option) *plugintest.Client {
	t.Helper()
	if g == nil {
		g = testGrep(nil)
	}
	return plugintest.Serve(t, []plugin.Handler{plugin.New[Input](g)}, opts...)
}

func testGrep(env map[string]string) *Grep {
	g := New()
	g.getenv = func(k string) string { return env[k] }
	return g
}

// fixtureFile is one entry of the fixture tree. Files get modification
// times in list order, a minute apart, so the newest-first order of
// files_with_matches is the reverse of this list.
type fixtureFile struct {
	path    string
	content string
	link    string // a symlink to this target instead
}

// fixture is a small repository with every case the golden tests need.
var fixture = []fixtureFile{
	{path: ".git/HEAD", content: "ref: refs/heads/main\n"},
	{path: ".git/info/exclude", content: "# local excludes\nexcluded-locally.txt\n"},
	{path: ".git/config", content: "hello from .git, never searched\n"},
	{path: ".gitignore", content: "*.log\n!keep.log\nbuild/\n/root-only.txt\n**/generated/**\n"},
	{path: ".ignore", content: "ignored-by-dotignore.txt\n"},
	{path: "README.md", content: "# Demo\n\nSay hello to the demo.\n"},
	{path: "main.go", content: "package main\n\nimport \"fmt\"\n\n// hello prints a greeting.\nfunc hello() {\n\tfmt.Println(\"Hello, world\")\n}\n\nfunc main() {\n\thello()\n}\n"},
	{path: "util.go", content: "package main\n\nfunc add(a, b int) int { return a + b }\n"},
	{path: "keep.log", content: "hello from keep.log (re-included by !keep.log)\n"},
	{path: "debug.log", content: "hello from debug.log (ignored by *.log)\n"},
	{path: "root-only.txt", content: "hello from /root-only.txt (anchored, ignored)\n"},
	{path: "ignored-by-dotignore.txt", content: "hello from .ignore\n"},
	{path: "excluded-locally.txt", content: "hello from .git/info/exclude\n"},
	{path: ".hidden.go", content: "package main // hello from a hidden file\n"},
	{path: ".config/settings.json", content: "{\"hello\": true}\n"},
	{path: "build/out.txt", content: "hello from build/ (ignored directory)\n"},
	{path: "src/generated/api.go", content: "package api // hello, generated\n"},
	{path: "src/root-only.txt", content: "hello from src/root-only.txt (the anchor is at the root)\n"},
	{path: "src/app.ts", content: "export function hello(name: string) {\n  return `Hello, ${name}`;\n}\n"},
	{path: "src/app.test.ts", content: "import { hello } from './app';\ntest('hello', () => expect(hello('x')).toBe('Hello, x'));\n"},
	{path: "src/lib/.gitignore", content: "!debug.log\n*.tmp\n"},
	{path: "src/lib/debug.log", content: "hello from src/lib/debug.log (re-included by a nested !debug.log)\n"},
	{path: "src/lib/scratch.tmp", content: "hello from scratch.tmp (ignored by a nested *.tmp)\n"},
	{path: "src/lib/util.py", content: "def hello():\n    return 'HELLO'\n"},
	{path: "docs/guide.md", content: "Guide\n=====\n\nStep one.\nStep two: say hello.\nStep three.\n\nStep four.\nStep five: hello again.\nStep six.\n"},
	{path: "bin/blob.bin", content: "hello\x00\x01\x02binary"},
	{path: "multi.txt", content: "start of a block\nmiddle of the block\nend of the block\nafter the block\n"},
	{path: "crlf.txt", content: "hello from a CRLF file\r\nsecond line\r\n"},
	{path: "long.txt", content: "hello " + strings.Repeat("0123456789", 60) + "\n"},
	{path: "many.txt", content: manyLines(300)},
	{path: "link.go", link: "main.go"},
	{path: "linkdir", link: "src"},
}

func manyLines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString("item ")
		b.WriteString(strings.Repeat("#", i%5))
		b.WriteString(" hello\n")
	}
	return b.String()
}

// writeFixture writes files under dir, in order, with modification times
// a minute apart.
func writeFixture(t testing.TB, dir string, files []fixtureFile) {
	t.Helper()
	base := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	for i, f := range files {
		p := filepath.Join(dir, f.path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if f.link != "" {
			if err := os.Symlink(f.link, p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(p, []byte(f.content), 0o644); err != nil {
			t.Fatal(err)
		}
		mt := base.Add(time.Duration(i) * time.Minute)
		if err := os.Chtimes(p, mt, mt); err != nil {
			t.Fatal(err)
		}
	}
}

func fixtureRepo(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "repo")
	writeFixture(t, dir, fixture)
	return dir
}

func uiOf(t *testing.T, raw json.RawMessage) UI {
	t.Helper()
	var ui UI
	if err := json.Unmarshal(raw, &ui); err != nil {
		t.Fatalf("UI payload %s: %v", raw, err)
	}
	return ui
}
