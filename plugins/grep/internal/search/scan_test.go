package search

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// referenceContent renders content mode the simplest way: every line
// tested on its own, context marked by line numbers, "--" between groups.
func referenceContent(lines []string, re *regexp.Regexp, before, after int, path string) (int, string) {
	show := make([]byte, len(lines)) // 0 none, '-' context, ':' match
	matches := 0
	for i, l := range lines {
		if re.MatchString(l) {
			matches++
			show[i] = ':'
			for j := max(0, i-before); j <= min(len(lines)-1, i+after); j++ {
				if show[j] == 0 {
					show[j] = '-'
				}
			}
		}
	}
	var b strings.Builder
	last := -1
	for i, s := range show {
		if s == 0 {
			continue
		}
		if (before > 0 || after > 0) && last >= 0 && i > last+1 {
			b.WriteString("--\n")
		}
		fmt.Fprintf(&b, "%s%c%d%c%s\n", path, s, i+1, s, lines[i])
		last = i
	}
	return matches, b.String()
}

func searchOne(t *testing.T, o Options) Result {
	t.Helper()
	return Search(context.Background(), o)
}

// TestChunkBoundaries searches a file several chunks long with matches
// on, just before and just after chunk boundaries, with context crossing
// them, and compares with the reference.
func TestChunkBoundaries(t *testing.T) {
	dir := t.TempDir()
	var lines []string
	size := 0
	for i := 1; size < 5*chunkSize; i++ {
		l := "line " + strconv.Itoa(i) + strings.Repeat(" filler", i%23)
		if i%97 == 0 || i%1000 < 3 {
			l += " MATCH"
		}
		lines = append(lines, l)
		size += len(l) + 1
	}
	writeFile(t, dir, "big.txt", strings.Join(lines, "\n")+"\n")
	// Lines at chunk starts: make sure some match lands right at one.
	re := regexp.MustCompile(`MATCH|^line 1[0-9]{3} `)
	for _, ctx := range [][2]int{{0, 0}, {2, 0}, {0, 3}, {4, 4}} {
		pat, _ := Compile(re.String(), PatternOptions{})
		res := searchOne(t, Options{Root: dir, Cwd: dir, Mode: Content, Pattern: pat, LineNumbers: true, Before: ctx[0], After: ctx[1]})
		wantN, wantOut := referenceContent(lines, re, ctx[0], ctx[1], "big.txt")
		if len(res.Files) != 1 {
			t.Fatalf("context %v: %d files, want 1", ctx, len(res.Files))
		}
		f := res.Files[0]
		if f.Matches != wantN || string(f.Out) != wantOut {
			t.Errorf("context %v: %d matches (want %d); output differs from the reference:\n%s", ctx, f.Matches, wantN, firstDiff(string(f.Out), wantOut))
		}
	}
}

func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) && i < len(w); i++ {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d: got  %q\n         want %q", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("got %d lines, want %d", len(g), len(w))
}

// TestLongLineMapped searches a line longer than the largest buffer,
// which goes through the memory map, with matches before, in and after it.
func TestLongLineMapped(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 17 MiB file")
	}
	dir := t.TempDir()
	long := strings.Repeat("x", 17<<20) // far over maxBufSize
	if len(long) <= maxBufSize {
		t.Fatal("the long line fits the largest buffer")
	}
	writeFile(t, dir, "long.txt", "needle one\n"+long+" needle two\nthree needle\n")
	pat, _ := Compile("needle", PatternOptions{})
	res := searchOne(t, Options{Root: dir, Cwd: dir, Mode: Count, Pattern: pat})
	if len(res.Files) != 1 || res.Files[0].Matches != 3 {
		t.Fatalf("count over a %d-byte line = %+v, want 3 matches in 1 file", len(long), res.Files)
	}
	res = searchOne(t, Options{Root: dir, Cwd: dir, Mode: Content, Pattern: pat, LineNumbers: true})
	out := string(res.Files[0].Out)
	if !strings.HasPrefix(out, "long.txt:1:needle one\nlong.txt:2:xxx") || !strings.HasSuffix(out, "long.txt:3:three needle\n") ||
		!strings.Contains(out, "[…line truncated: 17,825,803 chars]") {
		t.Errorf("content over a long line:\n%.300s…", out)
	}
}

func TestBinaryFiles(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "early.bin", "needle\x00rest")
	late := "needle first\n" + strings.Repeat("text line\n", chunkSize/10+10) + "\x00 needle after the NUL\n"
	writeFile(t, dir, "late.txt", late)
	writeFile(t, dir, "text.txt", "needle\n")
	writeFile(t, dir, "nul-first.bin", "\x00needle\n")
	pat, _ := Compile("needle", PatternOptions{})

	res := searchOne(t, Options{Root: dir, Cwd: dir, Mode: Count, Pattern: pat})
	got := map[string]int{}
	for _, f := range res.Files {
		got[f.Path] = f.Matches
	}
	// early.bin: a NUL in the first 64 KiB, skipped. late.txt: the NUL
	// comes later, so the search stops there, as rg's does, keeping the
	// match before it.
	if len(got) != 2 || got["late.txt"] != 1 || got["text.txt"] != 1 {
		t.Errorf("counts = %v, want late.txt:1 and text.txt:1 (early.bin skipped as binary)", got)
	}
	if res.Stats.Binary != 3 || res.Stats.Searched != 2 {
		t.Errorf("stats = %+v, want 3 binary (two skipped, one stopped) and 2 searched", res.Stats)
	}
	// Multiline reads files whole, with the same rule for the first 64 KiB.
	ml, _ := Compile("needle", PatternOptions{Multiline: true})
	res = searchOne(t, Options{Root: dir, Cwd: dir, Mode: Count, Pattern: ml})
	if len(res.Files) != 2 || res.Stats.Binary != 2 {
		t.Errorf("multiline: %d files, stats %+v; want late.txt and text.txt, 2 binary", len(res.Files), res.Stats)
	}

	// Named explicitly, a binary file is searched, and content mode says
	// it matches instead of printing its bytes.
	res = searchOne(t, Options{Root: filepath.Join(dir, "early.bin"), Cwd: dir, Mode: Content, Pattern: pat, LineNumbers: true})
	if !res.Explicit || len(res.Files) != 1 || string(res.Files[0].Out) != "early.bin: binary file matches (1 matching line)\n" {
		t.Errorf("explicit binary file: %+v", res.Files)
	}
}

func TestMultiline(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "a.go", "type T struct {\n\tName string\n\tAge int\n}\nfunc f() {}\n")
	for _, tc := range []struct {
		pattern string
		out     string
	}{
		{`struct \{\s+Name`, "a.go:1:type T struct {\na.go:2:\tName string\n"},
		{`(?U)\{.*\}`, "a.go:1:type T struct {\na.go:2:\tName string\na.go:3:\tAge int\na.go:4:}\na.go:5:func f() {}\n"},
		{`int\n\}\nfunc`, "a.go:3:\tAge int\na.go:4:}\na.go:5:func f() {}\n"},
		{`^\}$`, "a.go:4:}\n"},
	} {
		pat, err := Compile(tc.pattern, PatternOptions{Multiline: true})
		if err != nil {
			t.Fatal(err)
		}
		res := searchOne(t, Options{Root: dir, Cwd: dir, Mode: Content, Pattern: pat, LineNumbers: true})
		if len(res.Files) != 1 || string(res.Files[0].Out) != tc.out {
			t.Errorf("multiline %q: got %q, want %q", tc.pattern, outOf(res), tc.out)
		}
	}
	// Without multiline a newline in the pattern is an error, not a
	// silent miss.
	if _, err := Compile(`a\nb`, PatternOptions{}); !errors.Is(err, ErrNewline) {
		t.Errorf("Compile(a\\nb) = %v, want ErrNewline", err)
	}
}

func outOf(res Result) string {
	var b strings.Builder
	for _, f := range res.Files {
		b.Write(f.Out)
	}
	return b.String()
}

// TestStopsWhenContextEnds cancels a search after its first file: it
// returns what it found, marked incomplete.
func TestStopsWhenContextEnds(t *testing.T) {
	dir := t.TempDir()
	for i := range 50 {
		writeFile(t, dir, fmt.Sprintf("d%d/f.txt", i), "needle\n")
	}
	pat, _ := Compile("needle", PatternOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res := Search(ctx, Options{Root: dir, Cwd: dir, Pattern: pat, Workers: 1, afterFile: cancel})
	if !res.Incomplete {
		t.Fatal("a search whose context ended is not marked incomplete")
	}
	if res.Stats.Searched < 1 || res.Stats.Searched >= 50 || len(res.Files) != res.Stats.Searched {
		t.Errorf("stopped search: searched %d, found %d; want at least the first file and not all 50", res.Stats.Searched, len(res.Files))
	}
}

// TestKeepBoundsMemory checks that content kept for a window is the same
// as the whole output's start, while files past it keep only counts.
func TestKeepBoundsMemory(t *testing.T) {
	dir := t.TempDir()
	for i := range 120 {
		writeFile(t, dir, fmt.Sprintf("f%03d.txt", i), strings.Repeat("needle\n", 1+i%7))
	}
	pat, _ := Compile("needle", PatternOptions{})
	all := searchOne(t, Options{Root: dir, Cwd: dir, Mode: Content, Pattern: pat, LineNumbers: true, Workers: 3})
	some := searchOne(t, Options{Root: dir, Cwd: dir, Mode: Content, Pattern: pat, LineNumbers: true, Workers: 3, Keep: 10})
	if len(all.Files) != 120 || len(some.Files) != 120 {
		t.Fatalf("files: %d and %d, want 120", len(all.Files), len(some.Files))
	}
	kept, stored := "", 0
	for i, f := range some.Files {
		if f.Matches != all.Files[i].Matches || f.Lines != all.Files[i].Lines {
			t.Fatalf("%s: counts changed with Keep: %d/%d vs %d/%d", f.Path, f.Matches, f.Lines, all.Files[i].Matches, all.Files[i].Lines)
		}
		kept += string(f.Out)
		if f.Out != nil {
			stored++
		}
	}
	want := strings.Join(strings.SplitAfter(outOf(all), "\n")[:10], "")
	if !strings.HasPrefix(kept, want) {
		t.Errorf("kept output does not start with the first 10 lines:\n%s", firstDiff(kept, want))
	}
	if stored > 10 {
		t.Errorf("%d files still hold output; at most 10 can be needed for 10 lines", stored)
	}
}

func TestContentLineText(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "t.txt", "crlf needle\r\nbad \xff needle\n"+strings.Repeat("é", 600)+" needle\n")
	pat, _ := Compile("needle", PatternOptions{})
	res := searchOne(t, Options{Root: dir, Cwd: dir, Mode: Content, Pattern: pat, LineNumbers: true})
	want := "t.txt:1:crlf needle\nt.txt:2:bad \uFFFD needle\nt.txt:3:" + strings.Repeat("é", 500) + " […line truncated: 607 chars]\n"
	if got := outOf(res); got != want {
		t.Errorf("content text:\n got %q\nwant %q", got, want)
	}
}

// TestPanicStopsTheSearch: a bug on a walker goroutine stops the search
// and is reported, instead of crashing the plugin.
func TestPanicStopsTheSearch(t *testing.T) {
	dir := t.TempDir()
	for i := range 20 {
		writeFile(t, dir, fmt.Sprintf("f%d.txt", i), "needle\n")
	}
	pat, _ := Compile("needle", PatternOptions{})
	res := Search(context.Background(), Options{Root: dir, Cwd: dir, Pattern: pat, afterFile: func() { panic("boom") }})
	if !strings.HasPrefix(res.Panic, "boom\n") || !strings.Contains(res.Panic, "goroutine") {
		t.Errorf("Panic = %q, want the panic and its stack", res.Panic)
	}
	res = Search(context.Background(), Options{Root: filepath.Join(dir, "f1.txt"), Cwd: dir, Pattern: pat, afterFile: func() { panic("boom") }})
	if !strings.HasPrefix(res.Panic, "boom\n") {
		t.Errorf("explicit file: Panic = %q", res.Panic)
	}
}
