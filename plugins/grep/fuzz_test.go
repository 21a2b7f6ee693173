package grep

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/riot-tools/riot/plugins/grep/internal/search"
)

// FuzzPattern searches the fixture tree with any pattern, with and
// without the literal prefilter, in every mode, and requires the same
// result: the same files, counts and lines. (internal/search fuzzes the
// same property on arbitrary text, faster.)
func FuzzPattern(f *testing.F) {
	for _, p := range []string{`hello`, `(?i)HELLO`, `[A-Z][a-z]+ld\b`, `hel+o|item`, `^Step t`, `\w+\(`, `o{2,}`, `(?i)s`, `.`, `^$`, `\bk`, "\uFFFD"} {
		f.Add(p, false, false)
	}
	f.Add(`start.*\n.*middle`, false, true)
	f.Add(`(?U)\{.*\}`, true, true)
	dir := filepath.Join(f.TempDir(), "repo")
	writeFixture(f, dir, fixture)
	f.Fuzz(func(t *testing.T, pattern string, ignoreCase, multiline bool) {
		if len(pattern) > 48 {
			return
		}
		po := search.PatternOptions{IgnoreCase: ignoreCase, Multiline: multiline}
		with, err := search.Compile(pattern, po)
		if err != nil {
			return
		}
		po.NoPrefilter = true
		without, err := search.Compile(pattern, po)
		if err != nil {
			t.Fatalf("%q compiles with the prefilter only: %v", pattern, err)
		}
		for _, mode := range []search.Mode{search.FilesWithMatches, search.Count, search.Content} {
			o := search.Options{Root: dir, Cwd: dir, Mode: mode, LineNumbers: true, After: 1}
			o.Pattern = with
			got := summary(search.Search(context.Background(), o))
			o.Pattern = without
			want := summary(search.Search(context.Background(), o))
			if got != want {
				t.Fatalf("pattern %q (i=%v, multiline=%v, mode %d) differs with the prefilter:\n%s\nwithout:\n%s", pattern, ignoreCase, multiline, mode, got, want)
			}
		}
	})
}

func summary(r search.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%+v\n", r.Stats)
	for _, f := range r.Files {
		fmt.Fprintf(&b, "%s %d %d %d\n%s", f.Path, f.ModTime, f.Matches, f.Lines, f.Out)
	}
	return b.String()
}
