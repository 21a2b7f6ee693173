package ignore

import (
	"errors"
	"regexp"
	"testing"
)

func TestGlob(t *testing.T) {
	for _, tc := range []struct {
		glob string
		yes  []string
		no   []string
	}{
		{"*.go", []string{"a.go", ".go", "x.y.go"}, []string{"a/b.go", "/a.go", "a.goo", "go"}},
		{"main.go", []string{"main.go"}, []string{"src/main.go", "main.gox"}},
		{"build*", []string{"build", "builder.txt"}, []string{"build/x", "build/", "rebuild"}},
		{"?.txt", []string{"a.txt"}, []string{"ab.txt", "/.txt", ".txt"}},
		{"**/*.{ts,tsx}", []string{"a.ts", "src/a.tsx", "a/b/c.ts"}, []string{"a.js", "src/a.tsxx"}},
		{"src/**", []string{"src/a", "src/a/b"}, []string{"src", "lib/src/a"}},
		{"a/**/b", []string{"a/b", "a/x/b", "a/x/y/b"}, []string{"a/xb", "b"}},
		{"**", []string{"a", "a/b/c"}, nil},
		{"a**b", []string{"ab", "axxb"}, []string{"a/b", "ax"}},
		{"x/**", []string{"x/a", "x/a/b"}, []string{"x", "y/a"}},
		{"[abc].txt", []string{"a.txt", "c.txt"}, []string{"d.txt", "ab.txt"}},
		{"[!abc].txt", []string{"d.txt"}, []string{"a.txt", "/.txt"}},
		{"[a-c]x", []string{"bx"}, []string{"dx", "-x"}},
		{"[]a]", []string{"]", "a"}, []string{"b"}},
		{"[é-ë]", []string{"ê"}, []string{"e"}},
		{`\*.go`, []string{"*.go"}, []string{"a.go"}},
		{"*Dockerfile*", []string{"Dockerfile", "x.Dockerfile.dev"}, []string{"a/Dockerfile"}},
		{"[Gg][Nn][Uu]makefile", []string{"GNUmakefile", "gnumakefile"}, []string{"makefile"}},
		{"a,b", []string{"a,b"}, []string{"a"}},
		{"x*,y", []string{"xx,y", "x,y"}, []string{"x", "y"}},
		{"{a,b}*", []string{"a", "bb", "a,b"}, []string{"c", "ca"}},
		{`a\`, []string{`a\`}, []string{"a"}},
		{`*\`, []string{`x\`}, []string{"x"}},
		{`[\]]*`, []string{"]x"}, []string{`\x`}},
		{"[!a]", []string{"!", "b"}, []string{"a", "/"}},
		{"[^a]", []string{"^", "b"}, []string{"a"}},
		{"[a-]", []string{"a", "-"}, []string{"b"}},
		{"*{.ts,.tsx}", []string{"a.ts", "a.tsx"}, []string{"a.t"}},
		{"x}", []string{"x}"}, nil},
	} {
		g, err := CompileGlob(tc.glob)
		if err != nil {
			t.Fatalf("CompileGlob(%q): %v", tc.glob, err)
		}
		for _, p := range tc.yes {
			if !g.Match(p) {
				t.Errorf("%q does not match %q", tc.glob, p)
			}
		}
		for _, p := range tc.no {
			if g.Match(p) {
				t.Errorf("%q matches %q", tc.glob, p)
			}
		}
	}
	for glob, want := range map[string]error{"[ab": ErrUnclosedClass, "[": ErrUnclosedClass, "[!": ErrUnclosedClass, `[\`: ErrUnclosedClass,
		"{a,b": ErrUnclosedAlt, "{{a}": ErrUnclosedAlt, "": ErrEmptyGlob} {
		if _, err := CompileGlob(glob); !errors.Is(err, want) {
			t.Errorf("CompileGlob(%q) = %v, want %v", glob, err, want)
		}
	}
}

// FuzzGlobFastPaths checks that the shortcuts for literal, "*suffix" and
// "prefix*" globs match exactly what the general translation does.
func FuzzGlobFastPaths(f *testing.F) {
	for _, s := range [][2]string{{"*.go", "a.go"}, {"*.go", "a/b.go"}, {"build*", "build/x"}, {"x", "x"}, {"*", "a/b"}, {"*/", "a/"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, glob, path string) {
		g, err := CompileGlob(glob)
		if err != nil || g.kind == globRegexp {
			return
		}
		src, err := globRegexpSource(glob)
		if err != nil {
			t.Fatalf("fast path for %q, but the translation fails: %v", glob, err)
		}
		re, err := regexp.Compile(src)
		if err != nil {
			return // invalid UTF-8 in the glob
		}
		if got, want := g.Match(path), re.MatchString(path); got != want {
			t.Fatalf("glob %q on %q: fast path %v, translation %v", glob, path, got, want)
		}
	})
}

// FuzzRules feeds arbitrary ignore-file content and paths through the
// parser and the matcher: an ignore file is untrusted input read during a
// walk, where a panic would take the plugin down.
func FuzzRules(f *testing.F) {
	for _, s := range []string{"*.log\n!keep.log\n", "   \n\\ \n", "[\n{\n\\", "/a/**/b/\n#x\n\\#y", "\xef\xbb\xbf!\n!/\n"} {
		f.Add(s, "a/b.log", false)
	}
	f.Fuzz(func(t *testing.T, content, path string, isDir bool) {
		rs := ParseRules([]byte(content))
		rs.Match(path, isDir)
		if o, err := CompileOverride(content); err == nil {
			o.Match(path, isDir)
		}
	})
}
