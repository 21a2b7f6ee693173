package search

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// benchPatterns are the patterns of the benchmark in docs/tools/grep.md.
var benchPatterns = []struct{ name, pattern string }{
	{"literal", `func NewServer`},
	{"inner_literal", `[A-Z][a-z]+Transport\b`},
	{"fold_alternation", `(?i)(deadline|timeout) exceeded`},
}

// noLiteralPatterns have no literal worth a prefilter: the lazy DFA's
// case (issue 17).
var noLiteralPatterns = []struct{ name, pattern string }{
	{"no_literal", `\w+_\d+\(`},
	// No literal suffix either: the forward DFA alone.
	{"no_suffix", `\w+_\d+`},
}

// goroot is $(go env GOROOT)/src, the benchmark corpus.
func goroot(tb testing.TB) string {
	tb.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		tb.Skipf("go env GOROOT: %v; the benchmark needs the Go source tree", err)
	}
	return filepath.Join(strings.TrimSpace(string(out)), "src")
}

func searchFiles(tb testing.TB, root, pattern string, po PatternOptions) []string {
	tb.Helper()
	p, err := Compile(pattern, po)
	if err != nil {
		tb.Fatal(err)
	}
	res := Search(context.Background(), Options{Root: root, Cwd: root, Mode: FilesWithMatches, Pattern: p})
	out := make([]string, len(res.Files))
	for i, f := range res.Files {
		out[i] = f.Path
	}
	return out
}

func BenchmarkGOROOT(b *testing.B) {
	root := goroot(b)
	for _, bp := range append(benchPatterns[:len(benchPatterns):len(benchPatterns)], noLiteralPatterns...) {
		b.Run(bp.name, func(b *testing.B) {
			for b.Loop() {
				searchFiles(b, root, bp.pattern, PatternOptions{})
			}
		})
	}
}

func TestGOROOTMatchesRg(t *testing.T) {
	if testing.Short() {
		t.Skip("walks GOROOT/src; skipped with -short")
	}
	rg, err := exec.LookPath("rg")
	if err != nil {
		t.Skip("rg is not installed; install ripgrep to compare with it")
	}
	root := goroot(t)
	for _, bp := range benchPatterns {
		got := searchFiles(t, root, bp.pattern, PatternOptions{})
		cmd := exec.Command(rg, "--no-config", "-l", "--", bp.pattern)
		cmd.Dir = root
		out, _ := cmd.Output()
		want := strings.Fields(string(out))
		if !sameSet(got, want) {
			t.Errorf("%s: files differ from rg -l:\n got %v\nwant %v", bp.pattern, got, want)
		}
	}
}

// TestGOROOTNoLiteralMatchesRg is TestGOROOTMatchesRg for the patterns
// the lazy DFA decides.
func TestGOROOTNoLiteralMatchesRg(t *testing.T) {
	if testing.Short() {
		t.Skip("walks GOROOT/src; skipped with -short")
	}
	rg, err := exec.LookPath("rg")
	if err != nil {
		t.Skip("rg is not installed; install ripgrep to compare with it")
	}
	root := goroot(t)
	for _, bp := range noLiteralPatterns {
		got := searchFiles(t, root, bp.pattern, PatternOptions{})
		cmd := exec.Command(rg, "--no-config", "-l", "--", bp.pattern)
		cmd.Dir = root
		out, _ := cmd.Output()
		want := strings.Fields(string(out))
		if len(want) == 0 || !sameSet(got, want) {
			t.Errorf("%s: files differ from rg -l:\n got %v\nwant %v", bp.pattern, got, want)
		}
	}
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	m := map[string]bool{}
	for _, x := range a {
		m[x] = true
	}
	for _, x := range b {
		if !m[x] {
			return false
		}
	}
	return true
}
