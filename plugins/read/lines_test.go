package read

import (
	"context"
	"math"
	"strings"
	"testing"
)

func TestLineReaderKeepsABoundedPrefix(t *testing.T) {
	lr := newLineReader(strings.NewReader(strings.Repeat("x", 100_000)+"\nshort\n"), 16, 40)
	l, ok, err := lr.next(context.Background())
	if err != nil || !ok || l.n != 100_000 || len(l.prefix) != 40 || cap(lr.prefix) != 40 {
		t.Fatalf("long line: ok=%v err=%v n=%d prefix %d (cap %d)", ok, err, l.n, len(l.prefix), cap(lr.prefix))
	}
	l, ok, err = lr.next(context.Background())
	if err != nil || !ok || string(l.prefix) != "short" || l.n != 5 || lr.pos != 100_007 {
		t.Fatalf("next line: %q n=%d pos=%d", l.prefix, l.n, lr.pos)
	}
	if _, ok, _ := lr.next(context.Background()); ok {
		t.Fatal("a line after the end")
	}
}

func TestScan(t *testing.T) {
	data := strings.Repeat("0123456789\n", 10) // 110 bytes, 10 lines
	tests := []struct {
		name     string
		data     string
		stop     int
		maxBytes int64
		lines    int
		eof      bool
		pos      int64
	}{
		{"stop after lines", data, 3, -1, 3, false, 33},
		{"stop at zero lines", data, 0, -1, 0, false, 0},
		{"to the end", data, math.MaxInt, -1, 10, true, 110},
		{"no bytes allowed", data, math.MaxInt, 0, 0, false, 0},
		{"byte limit across buffers", data, math.MaxInt, 25, 2, false, 25},
		{"byte limit exactly the input", data, math.MaxInt, 110, 10, true, 110},
		{"unterminated last line counts at the end", "a\nb", math.MaxInt, -1, 2, true, 3},
		{"unterminated line cut by the byte limit does not", "a\nbcd", math.MaxInt, 3, 1, false, 3},
		{"empty input", "", math.MaxInt, -1, 0, true, 0},
	}
	for _, tt := range tests {
		lr := newLineReader(strings.NewReader(tt.data), 16, 8)
		lines, eof, err := lr.scan(context.Background(), tt.stop, tt.maxBytes)
		if err != nil || lines != tt.lines || eof != tt.eof || lr.pos != tt.pos {
			t.Errorf("%s: lines=%d eof=%v pos=%d err=%v; want %d %v %d", tt.name, lines, eof, lr.pos, err, tt.lines, tt.eof, tt.pos)
		}
	}
}
