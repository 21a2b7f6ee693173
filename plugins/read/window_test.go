package read

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// spec is a windowSpec with the real limits and a small buffer, so that
// lines straddle buffer boundaries.
func spec(offset, limit int) windowSpec {
	s := defaultSpec(offset, limit, 0)
	s.bufferSize = 16
	return s
}

func TestReadWindowShapes(t *testing.T) {
	tests := []struct {
		name                string
		data                string
		s                   windowSpec
		text                string
		first, last         int
		total               int // -1: not known
		pastEnd, more, crlf bool
	}{
		{"empty input", "", spec(1, 10), "", 1, 0, 0, true, false, false},
		{"one newline is one empty line", "\n", spec(1, 10), "     1\t\n", 1, 1, 1, false, false, false},
		{"unterminated line", "abc", spec(1, 10), "     1\tabc\n", 1, 1, 1, false, false, false},
		{"limit reached, more follow", "a\nb\nc\n", spec(1, 2), "     1\ta\n     2\tb\n", 1, 2, 3, false, true, false},
		{"limit reached exactly at the end", "a\nb\n", spec(1, 2), "     1\ta\n     2\tb\n", 1, 2, 2, false, false, false},
		{"offset past terminated end", "a\nb\n", spec(3, 2), "", 3, 2, 2, true, false, false},
		{"offset past unterminated end", "a\nb", spec(3, 2), "", 3, 2, 2, true, false, false},
		{"offset far past the end", "a\nb", spec(100, 2), "", 100, 99, 2, true, false, false},
		{"offset on the unterminated last line", "a\nb", spec(2, 2), "     2\tb\n", 2, 2, 2, false, false, false},
		{"offset 0 is 1", "a\n", spec(0, 1), "     1\ta\n", 1, 1, 1, false, false, false},
		{"limit 0 is 1", "a\nb\n", spec(1, 0), "     1\ta\n", 1, 1, 2, false, true, false},
		{"crlf", "a\r\nb\r\n", spec(1, 5), "     1\ta\n     2\tb\n", 1, 2, 2, false, false, true},
		{"a lone cr before eof is content", "a\r", spec(1, 5), "     1\ta\r\n", 1, 1, 1, false, false, false},
		{"an empty crlf line", "\r\n", spec(1, 5), "     1\t\n", 1, 1, 1, false, false, true},
		{"huge limit does not overflow", "a\n", spec(1, math.MaxInt), "     1\ta\n", 1, 1, 1, false, false, false},
		{"huge offset does not overflow", "a\n", spec(math.MaxInt, math.MaxInt), "", math.MaxInt, math.MaxInt - 1, 1, true, false, false},
		{"text exactly at the output cap is not cut", "aa\nbb\ncc\n", withCap(spec(1, 5), 20), "     1\taa\n     2\tbb\n", 1, 2, 3, false, true, false},
		{"one byte over the cap stops before the line", "aa\nbbb\ncc\n", withCap(spec(1, 5), 20), "     1\taa\n", 1, 1, 3, false, true, false},
		{"the first line is shown even over the cap", "aaaaaaaaaaaaaaaaaaaaaaaa\nb\n", withCap(spec(1, 5), 20), "     1\taaaaaaaaaaaaaaaaaaaaaaaa\n", 1, 1, 2, false, true, false},
		{"a seven-digit line number widens the column", strings.Repeat("\n", 1_000_000) + "x\n", spec(1_000_001, 1), "1000001\tx\n", 1_000_001, 1_000_001, 1_000_001, false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := readWindow(context.Background(), strings.NewReader(tt.data), tt.s)
			if err != nil {
				t.Fatal(err)
			}
			if string(w.text) != tt.text {
				t.Errorf("text = %q, want %q", w.text, tt.text)
			}
			total := -1
			if w.totalKnown {
				total = w.total
			}
			if w.first != tt.first || w.last != tt.last || total != tt.total || w.pastEnd != tt.pastEnd || w.more != tt.more || w.crlf != tt.crlf {
				t.Errorf("window %d–%d total %d pastEnd %v more %v crlf %v", w.first, w.last, total, w.pastEnd, w.more, w.crlf)
			}
		})
	}
}

func withCap(s windowSpec, maxOutput int) windowSpec {
	s.maxOutputBytes = maxOutput
	return s
}

// lineSource generates "000000001\n", "000000002\n"… without holding them,
// and counts the bytes read from it.
type lineSource struct {
	lines, next int
	pending     []byte
	read        int64
}

func (s *lineSource) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(s.pending) == 0 {
			if s.next >= s.lines {
				break
			}
			s.next++
			s.pending = append(strconv.AppendInt(s.pending[:0], int64(1_000_000_000+s.next), 10)[1:], '\n')
		}
		c := copy(p[n:], s.pending)
		s.pending = s.pending[c:]
		n += c
	}
	s.read += int64(n)
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}

// TestReadCostIsBoundedByTheWindow checks the cost rule: reading lines
// [offset, offset+limit) reads the input up to the end of that range, plus
// one buffer, plus at most countAhead bytes to count the rest.
func TestReadCostIsBoundedByTheWindow(t *testing.T) {
	const lines = 2_000_000 // 10 bytes a line: 20 MB
	const size = lines * 10
	tests := []struct {
		name          string
		offset, limit int
		size          int64 // as stat would say
		countAhead    int64
		maxRead       int64
		total         int
		restBytes     int64
	}{
		{"start, size known and rest too large to count", 1, 2000, size, 1 << 20, 2000*10 + readBufferSize, -1, size - 2000*10},
		{"middle, size known and rest too large to count", 1_000_000, 10, size, 1 << 20, 1_000_010*10 + readBufferSize, -1, size - 1_000_009*10},
		{"size unknown: counts at most countAhead more", 1, 2000, 0, 1 << 20, 2000*10 + readBufferSize + 1<<20, -1, 0},
		{"size understated (the file grew): no size given", 1, 2000, 100_000, 1 << 20, 2000*10 + readBufferSize + 1<<20, -1, 0},
		{"rest small enough: counts it exactly", 1_950_000, 10, size, 1 << 20, size, lines, 0},
		{"rest exactly countAhead: counts it", 1_000_000, 10, size, size - 1_000_009*10, size, lines, 0},
		{"rest one byte over countAhead: does not", 1_000_000, 10, size, size - 1_000_009*10 - 1, 1_000_009*10 + readBufferSize, -1, size - 1_000_009*10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := &lineSource{lines: lines}
			s := defaultSpec(tt.offset, tt.limit, tt.size)
			s.countAhead = tt.countAhead
			w, err := readWindow(context.Background(), src, s)
			if err != nil {
				t.Fatal(err)
			}
			if src.read > tt.maxRead {
				t.Errorf("read %d bytes, more than %d", src.read, tt.maxRead)
			}
			total := -1
			if w.totalKnown {
				total = w.total
			}
			if total != tt.total || w.first != tt.offset || w.last != tt.offset+tt.limit-1 || !w.more {
				t.Errorf("window %d–%d of %d, more %v", w.first, w.last, total, w.more)
			}
			want := strconv.Itoa(1_000_000_000 + tt.offset)[1:]
			if !bytes.Contains(w.text, []byte("\t"+want+"\n")) {
				t.Errorf("line %d is not %s: %q", tt.offset, want, w.text[:min(40, len(w.text))])
			}
			if w.restBytes != tt.restBytes {
				t.Errorf("restBytes = %d, want %d", w.restBytes, tt.restBytes)
			}
		})
	}
}

// TestTextIsAllocatedOnce checks that the window's text is allocated at
// the capacity textCapacity promises and never grown by copying: the rest
// of the file plus 8 bytes of number a line, within the output cap plus
// one line of 4-byte characters and its marker.
func TestTextIsAllocatedOnce(t *testing.T) {
	wide := strings.Repeat(strings.Repeat("😀", 2000)+"\n", 300) // 8001 bytes a line
	short := strings.Repeat("0123456789\n", 3000)
	outputCap := int64(maxOutputBytes + 4*maxLineRunes + 128)
	tests := []struct {
		name     string
		data     string
		s        windowSpec
		capacity int64
	}{
		{"size known", short, defaultSpec(1, 2000, int64(len(short))), int64(len(short)) + 2000*8},
		{"size known, after an offset", short, defaultSpec(1001, 2000, int64(len(short))), int64(len(short)-1000*11) + 2000*8},
		{"size unknown", short, defaultSpec(1, 100, 0), 4096 + 100*8},
		{"size known and large: the output cap", wide, defaultSpec(1, 2000, int64(len(wide))), outputCap},
	}
	for _, tt := range tests {
		w, err := readWindow(context.Background(), strings.NewReader(tt.data), tt.s)
		if err != nil {
			t.Fatal(err)
		}
		if int64(cap(w.text)) != tt.capacity {
			t.Errorf("%s: capacity %d, want %d (text %d bytes)", tt.name, cap(w.text), tt.capacity, len(w.text))
		}
	}
}

func TestReadWindowStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, offset := range []int{1, 5000} {
		_, err := readWindow(ctx, &lineSource{lines: 100_000}, defaultSpec(offset, 10_000, 0))
		if !errors.Is(err, context.Canceled) {
			t.Errorf("offset %d: err = %v", offset, err)
		}
	}
	// Inside one huge line too.
	_, err := readWindow(ctx, strings.NewReader(strings.Repeat("x", 1<<20)), defaultSpec(1, 1, 0))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("huge line: err = %v", err)
	}
}

type failingReader struct{ after int }

var errDisk = errors.New("disk on fire")

func (f *failingReader) Read(p []byte) (int, error) {
	if f.after <= 0 {
		return 0, errDisk
	}
	n := min(len(p), f.after)
	for i := range n {
		p[i] = "ab\n"[i%3]
	}
	f.after -= n
	return n, nil
}

func TestReadWindowReportsReadErrors(t *testing.T) {
	for _, tt := range []struct{ after, offset, limit int }{
		{0, 1, 10},         // in the first line
		{100, 1000, 10},    // while skipping
		{1000, 1, 10_000},  // inside the window
		{100, 1, 5},        // while checking for more / counting
		{100_000, 1, 1000}, // counting the rest
	} {
		_, err := readWindow(context.Background(), &failingReader{after: tt.after}, spec(tt.offset, tt.limit))
		if !errors.Is(err, errDisk) {
			t.Errorf("%+v: err = %v", tt, err)
		}
	}
}

func TestAppendLine(t *testing.T) {
	tests := []struct {
		name     string
		l        line
		maxRunes int
		want     string
		cut      bool
		replaced bool
	}{
		{"plain", line{prefix: []byte("hi"), n: 2}, 5, "    42\thi\n", false, false},
		{"exactly at the limit", line{prefix: []byte("hello"), n: 5}, 5, "    42\thello\n", false, false},
		{"cut", line{prefix: []byte("hello world"), n: 11}, 5, "    42\thello… [line cut at 5 characters; it is 11 bytes long]\n", true, false},
		{"cut beyond the prefix", line{prefix: []byte("hello"), n: 123_456}, 5, "    42\thello… [line cut at 5 characters; it is 123,456 bytes long]\n", false || true, false},
		{"multibyte counted as characters", line{prefix: []byte("日本語"), n: 9}, 3, "    42\t日本語\n", false, false},
		{"invalid bytes replaced one each", line{prefix: []byte("a\xff\xfeb"), n: 4}, 10, "    42\ta\uFFFD\uFFFDb\n", false, true},
		{"a truncated rune at the end is replaced", line{prefix: []byte("a\xe6\x97"), n: 3}, 10, "    42\ta\uFFFD\uFFFD\n", false, true},
	}
	for _, tt := range tests {
		got, cut, replaced := appendLine(nil, 42, tt.l, tt.maxRunes)
		if string(got) != tt.want || cut != tt.cut || replaced != tt.replaced {
			t.Errorf("%s: %q cut=%v replaced=%v", tt.name, got, cut, replaced)
		}
	}
}

func TestFooter(t *testing.T) {
	tests := []struct {
		name string
		w    window
		want string
	}{
		{"whole file", window{first: 1, last: 5, total: 5, totalKnown: true}, ""},
		{"more, counted", window{first: 1, last: 2000, total: 48211, totalKnown: true, more: true},
			"\nShowing lines 1–2000 of 48,211; continue with offset=2001.\n"},
		{"more, not counted, size known", window{first: 1, last: 2000, more: true, restBytes: 3 << 30},
			"\nShowing lines 1–2000; more lines follow (3 GiB after line 2000; the file is too large to count them all); continue with offset=2001.\n"},
		{"more, not counted, size unknown", window{first: 1, last: 2000, more: true},
			"\nShowing lines 1–2000; more lines follow; continue with offset=2001.\n"},
		{"capped", window{first: 1, last: 130, total: 300, totalKnown: true, more: true, capped: true},
			"\nShowing lines 1–130 of 300 (the result stopped at 256 KiB of text, before `limit` lines); continue with offset=131.\n"},
		{"end of file from an offset", window{first: 10, last: 12, total: 12, totalKnown: true},
			"\nShowing lines 10–12 of 12 (the end of the file).\n"},
		{"everything", window{first: 1, last: 2, total: 9, totalKnown: true, more: true, cut: 2, replaced: true, crlf: true},
			"\nShowing lines 1–2 of 9; continue with offset=3.\n2 lines longer than 2,000 characters were cut where marked.\n" +
				"Bytes that are not valid UTF-8 are shown as U+FFFD (\uFFFD); the file may not be UTF-8 text.\n" +
				"The file has CRLF (\\r\\n) line endings; the \\r is not shown.\n"},
	}
	for _, tt := range tests {
		if got := footer(tt.w); got != tt.want {
			t.Errorf("%s:\n%q\nwant\n%q", tt.name, got, tt.want)
		}
	}
}

func TestNumbers(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 7: "7", 999: "999", 1000: "1,000", 48211: "48,211", 1234567: "1,234,567", -1234: "-1,234"} {
		if got := commas(n); got != want {
			t.Errorf("commas(%d) = %q", n, got)
		}
	}
	for n, want := range map[int64]string{1: "1 byte", 812: "812 bytes", 1023: "1,023 bytes", 1024: "1 KiB", 1536: "1.5 KiB",
		256 << 10: "256 KiB", 1 << 60: "1048576 TiB", 1<<20 - 1: "1024 KiB", 1 << 20: "1 MiB", 1<<30 - 1: "1024 MiB", 3_932_160: "3.75 MiB", 13_002_342: "12.4 MiB", 3 << 30: "3 GiB", 5 << 40: "5 TiB"} {
		if got := humanBytes(n); got != want {
			t.Errorf("humanBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

// reference is the window computed the simple way, with the whole input
// in memory, for the fuzz test to compare against.
func reference(data []byte, s windowSpec) window {
	offset, limit := max(s.offset, 1), max(s.limit, 1)
	var lines [][]byte
	var crlf []bool
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			lines, crlf = append(lines, data), append(crlf, false)
			break
		}
		l := data[:i]
		cr := len(l) > 0 && l[len(l)-1] == '\r'
		if cr {
			l = l[:len(l)-1]
		}
		lines, crlf = append(lines, l), append(crlf, cr)
		data = data[i+1:]
	}
	w := window{first: offset, last: offset - 1, total: len(lines), totalKnown: true}
	if offset > len(lines) {
		w.pastEnd = true
		return w
	}
	for i := offset - 1; i < len(lines) && i-(offset-1) < limit; i++ {
		before := len(w.text)
		var cut, repl bool
		w.text, cut, repl = appendLine(w.text, i+1, line{prefix: lines[i], n: int64(len(lines[i]))}, s.maxLineRunes)
		if len(w.text) > s.maxOutputBytes && i+1 > offset {
			w.text, w.capped = w.text[:before], true
			break
		}
		w.last = i + 1
		w.crlf = w.crlf || crlf[i]
		w.replaced = w.replaced || repl
		if cut {
			w.cut++
		}
	}
	w.more = w.last < len(lines)
	return w
}

func FuzzReadWindow(f *testing.F) {
	seeds := []string{
		"", "\n", "a", "a\nb", "a\nb\n", "a\r\nb\r\n", "a\r", "\r\n\r\n",
		"caf\xe9\n\xff\xfe\n", "日本語\nテキスト\n", strings.Repeat("x", 300) + "\nshort\n",
		"line 1\nline 2\nline 3\nline 4\nline 5\n", "\xe6\x97\xa5\xe6\x97",
		"package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n",
	}
	for i, s := range seeds {
		f.Add([]byte(s), i%4, 1+i%3, uint8(1+i*7%40), uint16(16+i*13), uint16(20+i*37))
	}
	f.Fuzz(func(t *testing.T, data []byte, offset, limit int, maxRunes uint8, bufferSize, maxOutput uint16) {
		s := windowSpec{
			offset: offset, limit: limit,
			maxLineRunes: int(maxRunes%64) + 1, maxOutputBytes: int(maxOutput),
			countAhead: 1 << 20, bufferSize: int(bufferSize%4096) + 16,
		}
		w, err := readWindow(context.Background(), bytes.NewReader(data), s)
		if err != nil {
			t.Fatal(err)
		}
		if !utf8.Valid(w.text) {
			t.Fatalf("invalid UTF-8 passed through: %q", w.text)
		}
		shown := bytes.Count(w.text, []byte{'\n'})
		if shown > max(limit, 1) || shown != w.last-w.first+1 {
			t.Fatalf("%d lines shown for %d–%d, limit %d", shown, w.first, w.last, limit)
		}
		for i, l := range strings.SplitAfter(string(w.text), "\n")[:shown] {
			num, rest, ok := strings.Cut(l, "\t")
			if !ok || strings.TrimLeft(num, " ") != strconv.Itoa(w.first+i) || len(num) < numberWidth {
				t.Fatalf("line %d is numbered %q", w.first+i, num)
			}
			body, _, _ := strings.Cut(rest, "… [line cut at ")
			if utf8.RuneCountInString(strings.TrimSuffix(body, "\n")) > s.maxLineRunes {
				t.Fatalf("line %d is longer than %d characters: %q", w.first+i, s.maxLineRunes, body)
			}
		}
		want := reference(data, s)
		if !bytes.Equal(w.text, want.text) || w.first != want.first || w.last != want.last || w.pastEnd != want.pastEnd ||
			w.more != want.more || w.total != want.total || !w.totalKnown || w.capped != want.capped ||
			w.cut != want.cut || w.replaced != want.replaced || w.crlf != want.crlf {
			t.Fatalf("streamed and in-memory windows differ:\n%+v\n%+v", w, want)
		}
	})
}
