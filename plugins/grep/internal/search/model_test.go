package search

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// randomText is lines of words, with empty lines, tabs and the literals
// the model patterns look for.
func randomText(rng *rand.Rand, lines int) string {
	words := []string{"alpha", "Beta", "GAMMA", "delta", "needle", "NEEDLE", "Needle", "x", "", "", "end", "start", "\t", "42", "a1", "zed", "Kelvin", "ZZ", "aa"}
	var b strings.Builder
	for range lines {
		for j := range rng.IntN(5) {
			if j > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[rng.IntN(len(words))])
		}
		b.WriteByte('\n')
	}
	if rng.IntN(2) == 0 {
		b.WriteString("last line without newline " + words[rng.IntN(len(words))])
	}
	return b.String()
}

var modelPatterns = []string{`needle`, `(?i)needle`, `^$`, `^end`, `end$`, `\bx\b`, `a+`, `[A-Z]{2}`, `Beta|GAMMA`, `(?i)kelvin|zz`, `^\s*$`, `e.d`, `\d+`, `.`}

// referenceLines renders content mode from lines the simplest way.
func referenceLines(text string, re *regexp.Regexp, before, after int) (int, string) {
	lines := strings.Split(text, "\n")
	if strings.HasSuffix(text, "\n") {
		lines = lines[:len(lines)-1]
	}
	return referenceContent(lines, re, before, after, "f")
}

// TestContentAgainstReference checks content and count mode, with every
// context, against the reference renderer, on random text.
func TestContentAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 60 {
		text := randomText(rng, 1+rng.IntN(40))
		for _, pattern := range modelPatterns {
			before, after := rng.IntN(4), rng.IntN(4)
			re := regexp.MustCompile("(?m)" + pattern)
			wantN, wantOut := referenceLines(text, re, before, after)
			p, err := Compile(pattern, PatternOptions{})
			if err != nil {
				t.Fatal(err)
			}
			gotN, gotOut := scanMemory(Options{Mode: Content, Pattern: p, LineNumbers: true, Before: before, After: after}, []byte(text))
			if gotN != wantN || gotOut != wantOut {
				t.Fatalf("round %d, %q -B%d -A%d on %q:\n%s", round, pattern, before, after, text, firstDiff(gotOut, wantOut))
			}
			if n, _ := scanMemory(Options{Mode: Count, Pattern: p}, []byte(text)); n != wantN {
				t.Fatalf("round %d, %q: count %d, want %d", round, pattern, n, wantN)
			}
			n, _ := scanMemory(Options{Mode: FilesWithMatches, Pattern: p}, []byte(text))
			if (n > 0) != (wantN > 0) || n > 1 {
				t.Fatalf("round %d, %q: files mode says %d, want %v", round, pattern, n, wantN > 0)
			}
		}
	}
}

// TestLinesCounted: every output line is counted, and Keep bounds what is
// kept per file without changing the count.
func TestLinesCounted(t *testing.T) {
	text := []byte("a\nneedle\nb\nc\nd\nneedle\ne\nf\ng\nh\nneedle\n")
	p, _ := Compile("needle", PatternOptions{})
	o := Options{Mode: Content, Pattern: p, LineNumbers: true, Before: 1, After: 1}
	e := &engine{o: o, ctx: context.Background(), col: newCollector(o)}
	o.MaxOutputBytes = DefaultMaxOutputBytes
	for _, keep := range []int{0, 1, 3, 5, 100} {
		o.Keep = keep
		e.o = o
		w := e.newWorker()
		fs := &fileState{display: "f", lineNo: 1}
		w.em.reset("f")
		w.region(text, 0, len(text), fs)
		all := strings.Count("f-1-a\nf:2:needle\nf-3-b\n--\nf-5-d\nf:6:needle\nf-7-e\n--\nf-10-h\nf:11:needle\n", "\n")
		wantKept := all
		if keep > 0 {
			wantKept = min(keep, all)
		}
		if w.em.lines != all || w.em.kept != wantKept || strings.Count(string(w.em.out), "\n") != wantKept {
			t.Errorf("keep %d: lines %d kept %d (%d in out), want %d and %d", keep, w.em.lines, w.em.kept, strings.Count(string(w.em.out), "\n"), all, wantKept)
		}
	}
}

// referenceBlocks is multiline matching done the plain way: a match
// reports every line it touches, and the search resumes on the first line
// it did not touch.
func referenceBlocks(text string, re *regexp.Regexp) []int {
	var lines []int
	starts := []int{0}
	for i := range len(text) {
		if text[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	lineOf := func(p int) int {
		i, _ := slices.BinarySearch(starts, p+1)
		return i // 1-based
	}
	for pos := 0; pos < len(text); {
		loc := re.FindStringIndex(text[pos:])
		if loc == nil {
			break
		}
		s, e := pos+loc[0], pos+loc[1]
		if s == len(text) && text[s-1] == '\n' {
			break
		}
		first, last := lineOf(s), lineOf(max(s, e-1))
		for l := first; l <= last; l++ {
			lines = append(lines, l)
		}
		if last >= len(starts) {
			break
		}
		pos = starts[last]
	}
	return lines
}

func TestMultilineAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	patterns := []string{`needle\s+\w+`, `start.*?end`, `(?m)^$\n^x`, `a\n`, `e\nn`, `end$`, `^\w`, `x*`, `\n\n`, `(?i)needle.*\n.*needle`}
	for round := range 60 {
		text := randomText(rng, 1+rng.IntN(30))
		for _, pattern := range patterns {
			re := regexp.MustCompile("(?ms)" + pattern)
			want := referenceBlocks(text, re)
			p, err := Compile(pattern, PatternOptions{Multiline: true})
			if err != nil {
				t.Fatal(err)
			}
			_, out := scanMemory(Options{Mode: Content, Pattern: p, LineNumbers: true}, []byte(text))
			var got []int
			for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
				var n int
				if _, err := fmt.Sscanf(l, "f:%d:", &n); err == nil {
					got = append(got, n)
				}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("round %d, %q on %q: lines %v, want %v", round, pattern, text, got, want)
			}
			if n, _ := scanMemory(Options{Mode: Count, Pattern: p}, []byte(text)); n != len(want) {
				t.Fatalf("round %d, %q: count %d, want %d", round, pattern, n, len(want))
			}
			if n, _ := scanMemory(Options{Mode: FilesWithMatches, Pattern: p}, []byte(text)); (n > 0) != (len(want) > 0) {
				t.Fatalf("round %d, %q: files mode %d, want %v", round, pattern, n, len(want) > 0)
			}
		}
	}
}

// TestFinderAgainstBruteForce calls find from every position of random
// buffers and checks what it returns against a plain search: an
// occurrence of one of the literals, at or after the position, in the
// first line that holds any (which is what a line search needs).
func TestFinderAgainstBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	alphabet := "aAzZbB xX\nkK09"
	sets := [][]lit{
		{{s: "ab"}},
		{{s: "za", fold: true}},
		{{s: "ab"}, {s: "xz"}},
		{{s: "az", fold: true}, {s: "bx", fold: true}},
		{{s: "a"}},
		{{s: "zz", fold: true}},
		{{s: "ba"}, {s: "ab", fold: true}},
		{{s: "9"}, {s: "a0"}},
	}
	var c cursor
	for round := range 400 {
		h := make([]byte, rng.IntN(60))
		for i := range h {
			h[i] = alphabet[rng.IntN(len(alphabet))]
		}
		for _, set := range sets {
			f := newFinder(set)
			c.reset(f, h)
			for from := 0; from <= len(h); from++ {
				got, gotEnd := c.find(from)
				earliest := -1
				for p := from; p < len(h) && earliest < 0; p++ {
					for _, l := range set {
						if p+len(l.s) <= len(h) && eqLit(h[p:p+len(l.s)], l) {
							earliest = p
						}
					}
				}
				if (got < 0) != (earliest < 0) {
					t.Fatalf("round %d, set %v, from %d in %q: find = %d, earliest occurrence %d", round, set, from, h, got, earliest)
				}
				if got < 0 {
					continue
				}
				isLit := false
				for _, l := range set {
					isLit = isLit || (gotEnd-got == len(l.s) && eqLit(h[got:gotEnd], l))
				}
				if !isLit || got < from || lineStart(h, got) != lineStart(h, earliest) {
					t.Fatalf("round %d, set %v, from %d in %q: find = %d,%d; earliest occurrence at %d", round, set, from, h, got, gotEnd, earliest)
				}
			}
		}
	}
}

func lineStart(h []byte, p int) int { return bytes.LastIndexByte(h[:p], '\n') + 1 }

func eqLit(b []byte, l lit) bool {
	if l.fold {
		return bytes.EqualFold(b, []byte(l.s))
	}
	return string(b) == l.s
}

func TestFinderAnchorLimit(t *testing.T) {
	three := []lit{{s: "ab", fold: true}, {s: "cd", fold: true}, {s: "ef", fold: true}}
	if f := newFinder(three); f == nil || len(f.anchors) != 6 {
		t.Fatalf("three folded literals: %+v, want 6 anchors", f)
	}
	if f := newFinder(append(three, lit{s: "gh", fold: true})); f != nil {
		t.Errorf("four folded literals (8 anchors) gave a finder; more than %d anchors is slower than none", maxAnchors)
	}
	if f := newFinder([]lit{{s: "Transport"}}); f.one == nil {
		t.Error("a literal whose first byte is its rarest does not use bytes.Index")
	}
	if f := newFinder([]lit{{s: "func NewServer"}}); f.one != nil || f.anchors[0].c != 'w' {
		t.Errorf("func NewServer is not anchored on w, its rarest byte: %+v", f)
	}
}

func TestCollectorTrim(t *testing.T) {
	for _, tc := range []struct {
		sep  int
		want []string
	}{{1, []string{"a", "b"}}, {0, []string{"a", "b", "c"}}} {
		c := &collector{mode: Content, keep: 10, maxBytes: 1 << 20, sepLines: tc.sep}
		for _, name := range []string{"d", "b", "c", "a"} {
			c.add(File{Path: name, Lines: 4, Kept: 4, Out: []byte("1\n2\n3\n4\n")})
		}
		var kept []string
		for _, f := range c.files() {
			if f.Out != nil {
				kept = append(kept, f.Path)
			}
		}
		if !slices.Equal(kept, tc.want) {
			t.Errorf("separator lines %d: files keeping output %v, want %v", tc.sep, kept, tc.want)
		}
	}
	// The byte cap drops output the same way.
	c := &collector{mode: Content, maxBytes: 10}
	for _, name := range []string{"a", "b", "c"} {
		c.add(File{Path: name, Lines: 1, Kept: 1, Out: []byte("12345678\n")})
	}
	if fs := c.files(); fs[0].Out == nil || fs[1].Out == nil || fs[2].Out != nil {
		t.Errorf("byte cap: kept a %v b %v c %v, want a and b", fs[0].Out != nil, fs[1].Out != nil, fs[2].Out != nil)
	}
	// Adding trims as it goes, so memory stays bounded before the end.
	c = &collector{mode: Content, keep: 10, maxBytes: 1 << 20}
	for i := range 1000 {
		c.add(File{Path: fmt.Sprintf("f%04d", 1000-i), Lines: 1, Kept: 1, Out: []byte("x\n")})
		if len(c.stored) > 2*10+64+1 {
			t.Fatalf("after %d files %d still hold output", i+1, len(c.stored))
		}
	}
}

func TestFilesSortedNewestFirst(t *testing.T) {
	dir := t.TempDir()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, name := range []string{"b.txt", "c.txt", "a.txt", "d.txt"} {
		p := writeFile(t, dir, name, "needle\n")
		if err := os.Chtimes(p, base, base.Add(time.Duration(i%3)*time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	p, _ := Compile("needle", PatternOptions{})
	var got []string
	for _, f := range Search(context.Background(), Options{Root: dir, Cwd: dir, Pattern: p}).Files {
		got = append(got, f.Path)
	}
	// a.txt is newest; b.txt and d.txt tie, by path.
	if want := []string{"a.txt", "c.txt", "b.txt", "d.txt"}; !slices.Equal(got, want) {
		t.Errorf("files mode order %v, want %v (newest first, then path)", got, want)
	}
	var counted []string
	for _, f := range Search(context.Background(), Options{Root: dir, Cwd: dir, Pattern: p, Mode: Count}).Files {
		counted = append(counted, f.Path)
	}
	if want := []string{"a.txt", "b.txt", "c.txt", "d.txt"}; !slices.Equal(counted, want) {
		t.Errorf("count mode order %v, want %v (by path)", counted, want)
	}
}

// TestWalkStats checks what a walk skips and counts, and the filters'
// order: a glob beats ignore and hidden rules for files, a type beats only
// the hidden rule.
func TestWalkStats(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, ".git/HEAD", "")
	writeFile(t, dir, ".gitignore", "ignored.go\nignored-dir/\n")
	for _, f := range []string{"a.go", "b.txt", ".hidden.go", "ignored.go", "ignored-dir/c.go", ".hdir/d.go", "sub/e.go"} {
		writeFile(t, dir, f, "needle\n")
	}
	writeFile(t, dir, "bin.go", "needle\x00")
	if err := os.Symlink("a.go", filepath.Join(dir, "link.go")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, _ := Compile("needle", PatternOptions{})
	for _, tc := range []struct {
		name  string
		glob  string
		typ   string
		files []string
		stats Stats
	}{
		{"plain", "", "", []string{"a.go", "b.txt", "sub/e.go"},
			Stats{Searched: 3, Binary: 1, Symlinks: 1, Special: 1, Ignored: 2, Hidden: 4}},
		{"glob", "*.go", "", []string{".hidden.go", "a.go", "ignored.go", "sub/e.go"},
			// .gitignore and b.txt fail the glob; the glob says nothing of
			// directories, so .hdir is hidden and ignored-dir ignored.
			Stats{Searched: 4, Binary: 1, Symlinks: 1, Special: 1, Ignored: 1, Hidden: 2, Filtered: 2}},
		{"type", "", "go", []string{".hidden.go", "a.go", "sub/e.go"},
			Stats{Searched: 3, Binary: 1, Symlinks: 1, Special: 1, Ignored: 2, Hidden: 2, Filtered: 2}},
	} {
		o := Options{Root: dir, Cwd: dir, Pattern: p, Mode: Count}
		if tc.glob != "" {
			o.Glob = mustOverride(t, tc.glob)
		}
		if tc.typ != "" {
			o.Type = goType(t)
		}
		res := Search(context.Background(), o)
		var got []string
		for _, f := range res.Files {
			got = append(got, f.Path)
		}
		if !slices.Equal(got, tc.files) {
			t.Errorf("%s: files %v, want %v", tc.name, got, tc.files)
		}
		if res.Stats != tc.stats {
			t.Errorf("%s: stats %+v, want %+v", tc.name, res.Stats, tc.stats)
		}
	}
}

func TestPathHelpers(t *testing.T) {
	for _, tc := range [][3]string{{"/a/b", "/a", "b"}, {"/x", "/", "x"}, {"/a/b/c", "/a/b", "c"}} {
		if d, b := splitPath(tc[0]); d != tc[1] || b != tc[2] {
			t.Errorf("splitPath(%q) = %q, %q", tc[0], d, b)
		}
	}
	e := &engine{cwdPrefix: cwdPrefix("/w")}
	for path, want := range map[string]string{"/w/a": "a", "/w/a/b": "a/b", "/wx/a": "/wx/a", "/other": "/other"} {
		if got := e.display(path); got != want {
			t.Errorf("display(%q) = %q, want %q", path, got, want)
		}
	}
	if got := e.globPath("/other/x"); got != "other/x" {
		t.Errorf("globPath outside Cwd = %q, want it without the leading slash", got)
	}
	if (&engine{}).display("/a") != "/a" {
		t.Error("with no Cwd a path is not shown absolute")
	}
	root := &engine{cwdPrefix: cwdPrefix("/")}
	if got := root.display("/a"); got != "a" {
		t.Errorf("display under / = %q", got)
	}
	if got := string(appendThousands(nil, 17825803)); got != "17,825,803" {
		t.Errorf("appendThousands = %q", got)
	}
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 123456: "123,456"} {
		if got := string(appendThousands(nil, n)); got != want {
			t.Errorf("appendThousands(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestExplicitMultilineBinary(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "b.bin", "needle one\x00\nneedle two\n")
	p, _ := Compile(`needle \w+`, PatternOptions{Multiline: true})
	res := Search(context.Background(), Options{Root: path, Cwd: dir, Pattern: p, Mode: Content, LineNumbers: true})
	if len(res.Files) != 1 || !res.Files[0].Binary || res.Files[0].Matches != 2 {
		t.Errorf("explicit binary file, multiline: %+v", res.Files)
	}
	first := writeFile(t, t.TempDir(), "first.bin", "\x00needle x\n")
	res = Search(context.Background(), Options{Root: first, Cwd: dir, Pattern: p, Mode: Content})
	if len(res.Files) != 1 || !res.Files[0].Binary {
		t.Errorf("explicit file starting with NUL, multiline: %+v", res.Files)
	}
	// Found by a walk, the same file is skipped as binary.
	res = Search(context.Background(), Options{Root: dir, Cwd: dir, Pattern: p, Mode: Content})
	if len(res.Files) != 0 || res.Stats.Binary != 1 || res.Stats.Searched != 0 {
		t.Errorf("walked binary file, multiline: %+v %+v", res.Files, res.Stats)
	}
}

// TestMatchOnFirstLine: a match at the very start of a file counts in
// every mode.
func TestMatchOnFirstLine(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "f.txt", "needle\nother\n")
	for _, po := range []PatternOptions{{}, {NoPrefilter: true}, {Multiline: true}} {
		p, _ := Compile("needle", po)
		for _, mode := range []Mode{FilesWithMatches, Count, Content} {
			res := Search(context.Background(), Options{Root: dir, Cwd: dir, Pattern: p, Mode: mode})
			if len(res.Files) != 1 || res.Files[0].Matches != 1 {
				t.Errorf("%+v, mode %d: %+v", po, mode, res.Files)
			}
		}
	}
}
