//go:build !mutation

// The heavy tests: left out of mutation runs (gremlins -t mutation), which
// run the suite once per mutant.

package read_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// bigLine is the filler of every generated line: 60 bytes in all with the
// number in front and the newline.
const bigLine = " the quick brown fox jumps over the lazy dog, again.\n"

// writeBig writes a file of numbered lines of 60 bytes each, about size
// bytes in all, and returns its line count. Each line starts with its own
// number, zero-padded to 7 digits, so a window's position can be checked.
func writeBig(tb testing.TB, path string, size int64) int {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	lines := int(size / 60)
	buf := make([]byte, 0, 64)
	for i := 1; i <= lines; i++ {
		buf = strconv.AppendInt(buf[:0], int64(10_000_000+i), 10)[1:]
		buf = append(buf, bigLine...)
		_, _ = w.Write(buf)
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	return lines
}

func bigLineText(n int) string {
	return strconv.Itoa(10_000_000 + n)[1:] + strings.TrimSuffix(bigLine, "\n")
}

// TestLargeFileBoundedMemory reads windows of a 200 MB file through the
// real gRPC path and checks what the whole process allocated: the tool
// runs in the test process, so TotalAlloc covers it.
func TestLargeFileBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 200 MB file")
	}
	c := serve(t)
	path := filepath.Join(c.Cwd, "big.log")
	lines := writeBig(t, path, 200<<20)
	size := int64(lines) * 60

	tests := []struct {
		name          string
		offset, limit int
		footer        string
	}{
		{"the start: the rest is too large to count", 1, 2000,
			fmt.Sprintf("\nShowing lines 1–2000; more lines follow (%s after line 2000; the file is too large to count them all); continue with offset=2001.\n", humanSize(size-2000*60))},
		{"the middle", lines / 2, 100,
			fmt.Sprintf("\nShowing lines %d–%d; more lines follow (%s after line %d; the file is too large to count them all); continue with offset=%d.\n",
				lines/2, lines/2+99, humanSize(size-int64(lines/2+99)*60), lines/2+99, lines/2+100)},
		{"near the end: the rest is counted", lines - 10_000, 2000,
			fmt.Sprintf("\nShowing lines %d–%d of %s; continue with offset=%d.\n", lines-10_000, lines-8001, commas(lines), lines-8000)},
		{"the last lines", lines - 4, 2000,
			fmt.Sprintf("\nShowing lines %d–%d of %s (the end of the file).\n", lines-4, lines, commas(lines))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			res := c.Call("Read", map[string]any{"file_path": "big.log", "offset": tt.offset, "limit": tt.limit})
			runtime.ReadMemStats(&after)
			if !res.Ok {
				t.Fatal(res.Message)
			}
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("allocated %d KiB for a %d MiB file", alloc>>10, size>>20)
			// The text is at most 2000 lines of 68 bytes (136 KB); it is
			// copied a few times on its way through gRPC and the harness.
			if alloc > 8<<20 {
				t.Errorf("allocated %d bytes reading a window of a %d-byte file", alloc, size)
			}
			first, _, _ := strings.Cut(res.Text, "\n")
			if want := fmt.Sprintf("%6d\t%s", tt.offset, bigLineText(tt.offset)); first != want {
				t.Errorf("first line %q, want %q", first, want)
			}
			if !strings.HasSuffix(res.Text, tt.footer) {
				t.Errorf("footer:\n%q\nwant\n%q", res.Text[max(0, len(res.Text)-200):], tt.footer)
			}
		})
	}
	// Past the end: the whole file is scanned, with no allocation for it.
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res := c.Call("Read", map[string]any{"file_path": "big.log", "offset": lines + 1})
	runtime.ReadMemStats(&after)
	want := fmt.Sprintf("`offset` %d is past the end of big.log, which has %s lines.\nUse an offset from 1 to %d.", lines+1, commas(lines), lines)
	if res.Ok || res.Message != want {
		t.Errorf("past the end: %q", res.Message)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
		t.Errorf("past the end: allocated %d bytes", alloc)
	}
}

// TestHugeDirectorySuggestions looks for names like a missing file's in a
// directory of more entries than Read scans.
func TestHugeDirectorySuggestions(t *testing.T) {
	if testing.Short() {
		t.Skip("creates 10,600 files")
	}
	c := serve(t)
	for i := range 10_600 {
		f, err := os.Create(filepath.Join(c.Cwd, fmt.Sprintf("f%05d", i)))
		if err != nil {
			t.Fatal(err)
		}
		_ = f.Close()
	}
	// Every name is one or two edits from "f0000x"; a bounded number are
	// looked at, and three come back.
	p := c.Prepare("Read", map[string]any{"file_path": "f0000x"})
	if !strings.HasPrefix(p.Rejected, "File does not exist: f0000x.\nDid you mean one of: f0000") || strings.Count(p.Rejected, ", ") != 2 {
		t.Fatalf("rejected = %q", p.Rejected)
	}
}

// commas and humanSize mirror the tool's formatting for expected texts.
func commas(n int) string {
	s := strconv.Itoa(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func humanSize(n int64) string {
	v := float64(n) / (1 << 20)
	s := strings.TrimRight(strings.TrimRight(strconv.FormatFloat(v, 'f', 2, 64), "0"), ".")
	return s + " MiB"
}
