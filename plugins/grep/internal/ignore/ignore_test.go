package ignore

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestParseRule(t *testing.T) {
	for _, tc := range []struct {
		line                  string
		ok                    bool
		negate, dirOnly, base bool
		matches, doesNotMatch string
	}{
		{line: "", ok: false},
		{line: "# comment", ok: false},
		{line: `\#file`, ok: true, base: true, matches: "#file"},
		{line: `\!file`, ok: true, base: true, matches: "!file"},
		{line: "!keep.log", ok: true, negate: true, base: true, matches: "keep.log"},
		{line: "build/", ok: true, dirOnly: true, base: true, matches: "build"},
		{line: "/root.txt", ok: true, matches: "root.txt", doesNotMatch: "sub/root.txt"},
		{line: "doc/*.txt", ok: true, matches: "doc/a.txt", doesNotMatch: "x/doc/a.txt"},
		{line: "trailing   ", ok: true, base: true, matches: "trailing", doesNotMatch: "trailing   "},
		{line: `escaped\ `, ok: true, base: true, matches: "escaped "},
		{line: "crlf\r", ok: true, base: true, matches: "crlf"},
		{line: "/", ok: false},
		{line: "   ", ok: false},
		{line: `\ `, ok: true, base: true, matches: " "},
		{line: "[bad", ok: false},
	} {
		r, ok, _ := ParseRule(tc.line)
		if ok != tc.ok {
			t.Errorf("ParseRule(%q) ok = %v, want %v", tc.line, ok, tc.ok)
			continue
		}
		if !ok {
			continue
		}
		if r.negate != tc.negate || r.dirOnly != tc.dirOnly || r.base != tc.base {
			t.Errorf("ParseRule(%q) = negate %v dirOnly %v base %v", tc.line, r.negate, r.dirOnly, r.base)
		}
		if tc.matches != "" && !r.glob.Match(tc.matches) {
			t.Errorf("ParseRule(%q) does not match %q", tc.line, tc.matches)
		}
		if tc.doesNotMatch != "" && r.glob.Match(tc.doesNotMatch) {
			t.Errorf("ParseRule(%q) matches %q", tc.line, tc.doesNotMatch)
		}
	}
}

func TestRulesLastMatchWins(t *testing.T) {
	rs := ParseRules([]byte("\xef\xbb\xbf*.log\n!keep.log\nout/\nfoo/**\n!foo/bar\n"))
	for _, tc := range []struct {
		rel   string
		isDir bool
		want  Match
	}{
		{"a.log", false, Ignore},
		{"sub/a.log", false, Ignore},
		{"keep.log", false, Whitelist},
		{"out", true, Ignore},
		{"out", false, None}, // a file named out: the rule is for directories
		{"foo", true, None},  // foo/** matches what is inside foo, not foo
		{"foo/x", false, Ignore},
		{"foo/bar", false, Whitelist},
		{"a.txt", false, None},
	} {
		if got := rs.Match(tc.rel, tc.isDir); got != tc.want {
			t.Errorf("Match(%q, dir %v) = %v, want %v", tc.rel, tc.isDir, got, tc.want)
		}
	}
	if (*Rules)(nil).Match("x", false) != None {
		t.Error("nil rules match")
	}
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDirPrecedence(t *testing.T) {
	root := t.TempDir()
	write(t, root, ".git/info/exclude", "excluded\nall-exclude\n")
	write(t, root, ".gitignore", "gi\nall-gi\n!whitelisted-by-gi\nall-exclude-overridden\n!global-overridden\n")
	write(t, root, ".ignore", "ig\n!all-gi\n")
	write(t, root, ".rgignore", "rg\n!ig\n")
	write(t, root, "sub/.gitignore", "!gi\nsub-only\n")
	global := ParseRules([]byte("glob-ignored\nglobal-overridden\n"))
	d := Root(root, global)
	sub := d.Child(filepath.Join(root, "sub"))
	for _, tc := range []struct {
		dir  *Dir
		path string
		want Match
	}{
		{d, "gi", Ignore},
		{d, "excluded", Ignore},
		{d, "glob-ignored", Ignore},
		{d, "global-overridden", Whitelist}, // .gitignore beats the global file
		{d, "ig", Whitelist},                // .rgignore beats .ignore
		{d, "all-gi", Whitelist},            // .ignore beats .gitignore
		{d, "rg", Ignore},
		{d, "nothing", None},
		{sub, "sub/gi", Whitelist}, // the nearer .gitignore decides
		{sub, "sub/sub-only", Ignore},
		{d, "sub-only", None}, // sub's rules do not apply above it
		{sub, "sub/excluded", Ignore},
	} {
		if got := tc.dir.Match(filepath.Join(root, tc.path), false); got != tc.want {
			t.Errorf("Match(%s) = %v, want %v", tc.path, got, tc.want)
		}
	}
}

func TestGitRulesNeedARepository(t *testing.T) {
	root := t.TempDir()
	write(t, root, ".gitignore", "gi\n")
	write(t, root, ".ignore", "ig\n")
	d := Root(root, ParseRules([]byte("glob\n")))
	if d.Match(filepath.Join(root, "gi"), false) != None || d.Match(filepath.Join(root, "glob"), false) != None {
		t.Error("git ignore rules apply outside a git repository")
	}
	if d.Match(filepath.Join(root, "ig"), false) != Ignore {
		t.Error(".ignore does not apply outside a git repository")
	}
	// A .gitignore above a repository's root does not apply inside it.
	write(t, root, "repo/.git/HEAD", "")
	write(t, root, "repo/.gitignore", "inner\n")
	repo := d.Child(filepath.Join(root, "repo"))
	if repo.Match(filepath.Join(root, "repo/gi"), false) != None {
		t.Error("a .gitignore above the repository root applies inside it")
	}
	if repo.Match(filepath.Join(root, "repo/inner"), false) != Ignore || repo.Match(filepath.Join(root, "repo/glob"), false) != Ignore {
		t.Error("the repository's own .gitignore and the global excludes do not apply")
	}
	if !repo.HasRules() || repo.Path() != filepath.Join(root, "repo") {
		t.Errorf("HasRules %v, Path %q", repo.HasRules(), repo.Path())
	}
	empty := Root(t.TempDir(), nil)
	if empty.HasRules() {
		t.Error("a tree with no ignore files has rules")
	}
}

func TestRootLoadsAncestors(t *testing.T) {
	root := t.TempDir()
	write(t, root, ".git/HEAD", "")
	write(t, root, ".gitignore", "/a/b/anchored\nbase\n")
	d := Root(filepath.Join(root, "a"), nil)
	if d.Match(filepath.Join(root, "a/b/anchored"), false) != Ignore || d.Match(filepath.Join(root, "a/x/base"), false) != Ignore {
		t.Error("the repository root's .gitignore does not apply to a search starting below it")
	}
	if d.Match(filepath.Join(root, "a/anchored"), false) != None {
		t.Error("an anchored rule matched relative to the search root instead of its own directory")
	}
}

func TestOverride(t *testing.T) {
	o, err := CompileOverride("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path  string
		isDir bool
		want  Match
	}{
		{"a.go", false, Whitelist},
		{"src/a.go", false, Whitelist},
		{"a.txt", false, Ignore}, // a selecting glob excludes every other file
		{"src", true, None},      // but never a directory
	} {
		if got := o.Match(tc.path, tc.isDir); got != tc.want {
			t.Errorf("*.go: Match(%q) = %v, want %v", tc.path, got, tc.want)
		}
	}
	ex, _ := CompileOverride("!*_test.go")
	if ex.Match("a_test.go", false) != Ignore || ex.Match("a.go", false) != None || ex.Match("vendor", true) != None {
		t.Error("an excluding glob must exclude its matches and say nothing of the rest")
	}
	if (*Override)(nil).Match("x", false) != None {
		t.Error("a nil override matches")
	}
	if _, err := CompileOverride("[x"); err == nil {
		t.Error("a bad glob compiled")
	}
	if _, err := CompileOverride("#"); !errors.Is(err, ErrEmptyGlob) {
		t.Errorf("a comment-only glob: %v, want ErrEmptyGlob", err)
	}
}

func TestTypes(t *testing.T) {
	types := LoadTypes()
	if len(types) < 150 {
		t.Fatalf("%d types, want rg 13's 169", len(types))
	}
	for _, tc := range []struct {
		typ, name string
		want      Match
	}{
		{"go", "a.go", Whitelist},
		{"go", "a.py", Ignore},
		{"make", "Makefile", Whitelist},
		{"make", "GNUmakefile", Whitelist},
		{"c", "x.H", Whitelist},
		{"docker", "prod.Dockerfile", Whitelist},
		{"ts", "a.tsx", Whitelist},
	} {
		f, ok := types.Filter(tc.typ)
		if !ok {
			t.Fatalf("type %s unknown", tc.typ)
		}
		if got := f.Match(tc.name, false); got != tc.want {
			t.Errorf("type %s, %s = %v, want %v", tc.typ, tc.name, got, tc.want)
		}
	}
	goFilter, _ := types.Filter("go")
	if goFilter.Match("dir", true) != None || TypeFilter(nil).Match("a.go", false) != None {
		t.Error("a type filter must say nothing about directories, and an empty one nothing at all")
	}
	if _, ok := types.Filter("nope"); ok {
		t.Error("an unknown type has a filter")
	}
	// Every built-in glob compiles.
	for _, name := range types.Names() {
		types.Filter(name)
	}
	names := types.Names()
	if names[0] != "agda" || names[len(names)-1] != "zstd" {
		t.Errorf("names not sorted: %s … %s", names[0], names[len(names)-1])
	}
}

func TestGlobalExcludesPath(t *testing.T) {
	home := t.TempDir()
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	// Nothing configured: git's default under XDG_CONFIG_HOME, or ~/.config.
	if got := GlobalExcludesPath(env(map[string]string{"HOME": home})); got != filepath.Join(home, ".config/git/ignore") {
		t.Errorf("default = %q", got)
	}
	if got := GlobalExcludesPath(env(map[string]string{"HOME": home, "XDG_CONFIG_HOME": "/xdg"})); got != "/xdg/git/ignore" {
		t.Errorf("default with XDG_CONFIG_HOME = %q", got)
	}
	if got := GlobalExcludesPath(env(nil)); got != "" {
		t.Errorf("with no home = %q, want none", got)
	}
	// The XDG config is read when ~/.gitconfig does not set it.
	write(t, home, ".config/git/config", "[core]\n  excludesfile = /from/xdg\n")
	if got := GlobalExcludesPath(env(map[string]string{"HOME": home})); got != "/from/xdg" {
		t.Errorf("from the XDG config = %q", got)
	}
	// ~/.gitconfig wins; section and key are case-insensitive; the last
	// value wins; quotes and comments are handled; ~ expands.
	write(t, home, ".gitconfig", "[user]\n\texcludesFile = /not/core\n[Core]\n\tExcludesFile = /first\n\texcludesFile = \"~/my ignore\" ; comment\n[alias]\n\texcludesFile = /not/core/either\n")
	if got := GlobalExcludesPath(env(map[string]string{"HOME": home})); got != filepath.Join(home, "my ignore") {
		t.Errorf("from ~/.gitconfig = %q", got)
	}
}

func TestGitconfigValue(t *testing.T) {
	for in, want := range map[string]string{
		` plain `:            "plain",
		`"quoted # not" # c`: "quoted # not",
		`a\tb`:               "a\tb",
		`x ; comment`:        "x",
	} {
		if got := gitconfigValue(in); got != want {
			t.Errorf("gitconfigValue(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRelTo(t *testing.T) {
	for _, tc := range []struct {
		dir, path, rel string
		ok             bool
	}{
		{"/", "/a", "a", true},
		{"/", "/a/b", "a/b", true},
		{"/", "/", "", false},
		{"/a", "/a/b", "b", true},
		{"/a", "/a", "", false},
		{"/a", "/ab", "", false},
		{"/a/b", "/a", "", false},
		{"/a", "/b/c", "", false},
	} {
		rel, ok := relTo(tc.dir, tc.path)
		if rel != tc.rel || ok != tc.ok {
			t.Errorf("relTo(%q, %q) = %q, %v; want %q, %v", tc.dir, tc.path, rel, ok, tc.rel, tc.ok)
		}
	}
}

// TestLevelsWithOneKindOfRule checks directories that hold a single kind
// of rule, so no shortcut skips a level that has one.
func TestLevelsWithOneKindOfRule(t *testing.T) {
	root := t.TempDir()
	write(t, root, "a/.rgignore", "only-rg\n")
	write(t, root, "b/.ignore", "only-ignore\n")
	write(t, root, "repo/.git/HEAD", "")
	write(t, root, "repo/c/.gitignore", "only-git\n")
	global := ParseRules([]byte("only-global\n"))
	d := Root(root, global)
	a := d.Child(filepath.Join(root, "a"))
	b := d.Child(filepath.Join(root, "b"))
	repo := d.Child(filepath.Join(root, "repo"))
	c := repo.Child(filepath.Join(root, "repo/c"))
	for _, tc := range []struct {
		dir  *Dir
		path string
	}{
		{a, "a/only-rg"}, {b, "b/only-ignore"}, {c, "repo/c/only-git"},
		// The repository root has no ignore file of its own; the global
		// excludes still apply there.
		{repo, "repo/only-global"}, {c, "repo/c/only-global"},
	} {
		if got := tc.dir.Match(filepath.Join(root, tc.path), false); got != Ignore {
			t.Errorf("Match(%s) = %v, want Ignore", tc.path, got)
		}
	}
	// A repository root whose only rules are its own .gitignore, asked
	// directly.
	write(t, root, "repo2/.git/HEAD", "")
	write(t, root, "repo2/.gitignore", "own\n")
	repo2 := Root(filepath.Join(root, "repo2"), nil)
	if repo2.Match(filepath.Join(root, "repo2/own"), false) != Ignore {
		t.Error("a repository root's own .gitignore does not apply to its entries")
	}
	if d.HasRules() || a.Match(filepath.Join(root, "a/other"), false) != None {
		t.Error("rules apply where none are")
	}
}

func TestExcludesFileFrom(t *testing.T) {
	for _, tc := range []struct{ config, want string }{
		{"[core] excludesfile = /same/line\n", "/same/line"},
		{"[core\nexcludesfile = /broken/header\n", ""},
		{"[core]\nexcludesfile\n", ""},
		{"[core]\nexcludesfile = \"a\\nb\"\n", "a\nb"},
		{"[core]\nexcludesfile = ~\n", "/home/u"},
		{"[core]\n\texcludesfile = ~/x\n[other]\n\texcludesfile = /y\n", "/home/u/x"},
	} {
		if got := excludesFileFrom(tc.config, "/home/u"); got != tc.want {
			t.Errorf("excludesFileFrom(%q) = %q, want %q", tc.config, got, tc.want)
		}
	}
	if got := excludesFileFrom("[core]\nexcludesfile = ~/x\n", ""); got != "" {
		t.Errorf("~ with no home = %q, want none", got)
	}
}

// TestChildListed checks that the least name of a directory's entries
// only spares looking for ignore files that sort before it.
func TestChildListed(t *testing.T) {
	root := t.TempDir()
	write(t, root, ".git/HEAD", "")
	write(t, root, "d/.gitignore", "gi\n")
	write(t, root, "d/.ignore", "ig\n")
	write(t, root, "d/.rgignore", "rg\n")
	d := Root(root, nil)
	sub := filepath.Join(root, "d")
	for _, tc := range []struct {
		first string
		want  []string // the ignore files read
	}{
		{"", []string{"gi", "ig", "rg"}},
		{".editorconfig", []string{"gi", "ig", "rg"}},
		{".gitignore", []string{"gi", "ig", "rg"}},
		{".gitignorf", []string{"ig", "rg"}},
		{".ignore", []string{"ig", "rg"}},
		{".rgignore", []string{"rg"}},
		{"a.go", nil},
	} {
		c := d.ChildListed(sub, tc.first)
		for _, name := range []string{"gi", "ig", "rg"} {
			want := slices.Contains(tc.want, name)
			if got := c.Match(filepath.Join(sub, name), false) == Ignore; got != want {
				t.Errorf("first %q: %s ignored %v, want %v", tc.first, name, got, want)
			}
		}
	}
	// A directory with nothing of its own shares its parent's Dir.
	write(t, root, "plain/x", "")
	if c := d.Child(filepath.Join(root, "plain")); c != d {
		t.Error("a directory with no ignore files got a Dir of its own")
	}
}
