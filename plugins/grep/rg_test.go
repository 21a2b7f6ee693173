package grep

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// generatedTree writes a tree with every kind of entry rg's rules treat
// specially, filled with pseudo-random (but fixed) text.
func generatedTree(t *testing.T, dir string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(6, 6))
	words := []string{"foo", "bar", "barrel", "baz", "hello world", "Hello World", "HELLO WORLD", "ParseError", "IOError",
		"import os", "the end", "alphagamma", "betagamma", "gammaalpha", "555-1234", "12-345", "TODO", "FIXME", "xyz", "xxyyzz",
		"    return x", "  return y", "ABC", "Ab", "\u212aelvin", "kelvin", "lorem", "ipsum", "dolor", "sit", "amet", "end"}
	line := func() string {
		n := 1 + rng.IntN(5)
		parts := make([]string, n)
		for i := range parts {
			parts[i] = words[rng.IntN(len(words))]
		}
		return strings.Join(parts, " ")
	}
	text := func() string {
		var b strings.Builder
		for range 1 + rng.IntN(12) {
			b.WriteString(line())
			b.WriteByte('\n')
		}
		return b.String()
	}
	var files []fixtureFile
	add := func(path, content string) { files = append(files, fixtureFile{path: path, content: content}) }
	add(".git/HEAD", "ref: refs/heads/main\n")
	add(".git/info/exclude", "excluded.txt\n")
	add(".gitignore", strings.Join([]string{
		"# comment", "*.log", "!important.log", "build/", "/anchored.txt", "**/cache/**", "docs/*.tmp",
		`\#literal.txt`, "trailing.txt   ", "!.whitelisted", "!.wdir/", "out/", "gen-*", "[Tt]emp?.txt",
	}, "\n")+"\n")
	add(".ignore", "secret*\n")
	add("sub/.gitignore", "!*.log\n/local.txt\n*.py\n!keep.py\n")
	add("sub/deeper/.ignore", "!secret-ok.txt\n")
	add("nested/.git/HEAD", "ref: refs/heads/main\n")
	add("nested/.gitignore", "inner-ignored.txt\n")
	names := []string{"a.go", "b.py", "c.ts", "d.md", "e.json", "f.txt", "Makefile", "Dockerfile", "g.log", "important.log",
		"anchored.txt", "#literal.txt", "trailing.txt", "excluded.txt", "secret.txt", "secret-ok.txt", "keep.py", "local.txt",
		"gen-x.go", "Temp1.txt", "temp22.txt", "inner-ignored.txt", "app.test.ts", ".hidden.txt", ".whitelisted", "x.tmp"}
	dirs := []string{"", "sub", "sub/deeper", "sub/deeper/deepest", "docs", "build", "src/cache/v1", "src/out", "nested",
		"nested/pkg", ".hdir", ".wdir", "docs/api"}
	for _, d := range dirs {
		for _, n := range names {
			if rng.IntN(3) == 0 {
				continue
			}
			add(filepath.Join(d, n), text())
		}
	}
	add("bin/blob.bin", "foo bar\x00\x01binary")
	add("bin/late.dat", "foo\n"+strings.Repeat("plain text\n", 200)+"\x00")
	// Directories whose first entries in name order come before their
	// ignore files' names, or are not plain files: the walk must still
	// find each ignore file.
	for _, f := range [][2]string{
		{"order/.editorconfig", "foo\n"}, {"order/.gitignore", "*.skip\n"}, {"order/.ignore", "*.nope\n"},
		{"order/-dash.txt", "foo\n"}, {"order/a.skip", "foo\n"}, {"order/b.nope", "foo\n"}, {"order/c.txt", "foo\n"},
		{"order/aa/a.skip", "foo\n"}, {"order/aa/z.txt", "foo\n"},
		{"order/.rgignore/x.txt", "foo\n"}, {"order/.rgignore.txt", "foo\n"},
		{"linked/b.skip", "foo\n"}, {"linked/c.txt", "foo\n"},
	} {
		add(f[0], f[1])
	}
	files = append(files, fixtureFile{path: "linked/.gitignore", link: "../order/.gitignore"})
	writeFixture(t, dir, files)
	for _, l := range [][2]string{{"link.go", "a.go"}, {"linkdir", "sub"}, {"sub/up", ".."}} {
		if err := os.Symlink(l[1], filepath.Join(dir, l[0])); err != nil {
			t.Fatal(err)
		}
	}
}

type rgCase struct {
	pattern, glob, typ, path string
	ignoreCase               bool
}

var rgCases = []rgCase{
	{pattern: `foo`},
	{pattern: `\bbar\w*`},
	{pattern: `(?i)hello world`},
	{pattern: `[A-Z][a-z]+Error`},
	{pattern: `^import`},
	{pattern: `end$`},
	{pattern: `(alpha|beta)gamma`},
	{pattern: `\d{3}-\d{4}`},
	{pattern: `TODO|FIXME`},
	{pattern: `x+y+z`},
	{pattern: `\s{4}return`},
	{pattern: `[[:upper:]]{3,}`},
	{pattern: `kelvin`, ignoreCase: true},
	{pattern: `foo`, glob: `*.go`},
	{pattern: `foo`, glob: `!*.txt`},
	{pattern: `foo`, glob: `**/*.{md,json}`},
	{pattern: `foo`, glob: `sub/**`},
	{pattern: `foo`, typ: `py`},
	{pattern: `foo`, typ: `make`},
	{pattern: `bar`, path: `sub`},
	{pattern: `bar`, path: `sub/deeper`},
	{pattern: `bar`, path: `nested`},
	{pattern: `bar`, path: `.hdir`},
}

// TestMatchesRipgrep compares the files found with rg -l's over the
// generated tree, for a dozen patterns and the filters.
func TestMatchesRipgrep(t *testing.T) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		t.Skip("rg (ripgrep) is not installed, so there is nothing to compare with; install ripgrep to run this test")
	}
	dir := filepath.Join(t.TempDir(), "tree")
	generatedTree(t, dir)
	home := t.TempDir() // no global excludes for either
	compareWithRg(t, rg, dir, map[string]string{"HOME": home}, rgCases)
}

// TestGlobalExcludesMatchRipgrep gives both a core.excludesFile.
func TestGlobalExcludesMatchRipgrep(t *testing.T) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		t.Skip("rg (ripgrep) is not installed, so there is nothing to compare with; install ripgrep to run this test")
	}
	dir := filepath.Join(t.TempDir(), "tree")
	generatedTree(t, dir)
	home := t.TempDir()
	writeFixture(t, home, []fixtureFile{
		{path: ".gitconfig", content: "[user]\n\tname = x\n[core]\n\texcludesFile = ~/global-ignore\n"},
		{path: "global-ignore", content: "*.md\n*.json\n"},
	})
	env := map[string]string{"HOME": home}
	compareWithRg(t, rg, dir, env, []rgCase{{pattern: `foo`}, {pattern: `bar`, path: `nested`}})
	// The excludes apply: no .md file is found.
	got := grepFiles(t, dir, env, rgCase{pattern: "foo"})
	for _, f := range got {
		if strings.HasSuffix(f, ".md") || strings.HasSuffix(f, ".json") {
			t.Errorf("%s found, though the global excludes file ignores it", f)
		}
	}
}

func compareWithRg(t *testing.T, rg, dir string, env map[string]string, cases []rgCase) {
	t.Helper()
	for _, tc := range cases {
		args := []string{"--no-config", "-l"}
		if tc.ignoreCase {
			args = append(args, "-i")
		}
		if tc.glob != "" {
			args = append(args, "-g", tc.glob)
		}
		if tc.typ != "" {
			args = append(args, "-t", tc.typ)
		}
		args = append(args, "--", tc.pattern)
		if tc.path != "" {
			args = append(args, tc.path)
		}
		cmd := exec.Command(rg, args...)
		cmd.Dir = dir
		cmd.Env = []string{"HOME=" + env["HOME"], "PATH=" + os.Getenv("PATH")}
		out, err := cmd.Output()
		var ee *exec.ExitError
		if err != nil && (!errors.As(err, &ee) || ee.ExitCode() != 1) {
			t.Fatalf("rg %v: %v", args, err)
		}
		want := strings.Fields(string(out))
		got := grepFiles(t, dir, env, tc)
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%+v: Grep finds %d files, rg %d\nonly Grep: %v\nonly rg:   %v", tc, len(got), len(want), minus(got, want), minus(want, got))
		}
	}
}

// grepFiles runs Grep in files_with_matches mode with no head limit.
func grepFiles(t *testing.T, dir string, env map[string]string, tc rgCase) []string {
	t.Helper()
	c := serve(t, testGrep(env))
	c.Cwd = dir
	in := map[string]any{"pattern": tc.pattern, "head_limit": 0}
	if tc.ignoreCase {
		in["-i"] = true
	}
	for k, v := range map[string]string{"glob": tc.glob, "type": tc.typ, "path": tc.path} {
		if v != "" {
			in[k] = v
		}
	}
	res := c.Call("Grep", in)
	if !res.Ok {
		t.Fatalf("%+v: %s", tc, res.Message)
	}
	var ui UI
	if err := json.Unmarshal(res.UI, &ui); err != nil {
		t.Fatal(err)
	}
	if ui.FilesMatched == 0 {
		return nil
	}
	return strings.Split(res.Text, "\n")
}

func minus(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}
