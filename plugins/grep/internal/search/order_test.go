package search

import (
	"slices"
	"strings"
	"testing"
)

// FuzzComparePaths: ComparePaths is the order of the paths' components,
// each compared as bytes, which is `rg --sort path`'s.
func FuzzComparePaths(f *testing.F) {
	for _, s := range [][2]string{{"sub/deep/d.go", "sub-x/a.txt"}, {"sub-x/a.txt", "sub.txt"}, {"a/b", "a/b"}, {"a", "a/b"}, {"a/", "a"}, {"", "/"}, {"é/x", "e/x"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		want := slices.Compare(strings.Split(a, "/"), strings.Split(b, "/"))
		got := ComparePaths(a, b)
		if sign(got) != want {
			t.Fatalf("ComparePaths(%q, %q) = %d, want the sign %d", a, b, got, want)
		}
		if sign(ComparePaths(b, a)) != -want {
			t.Fatalf("ComparePaths is not antisymmetric on %q, %q", a, b)
		}
	})
}

func sign(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}
