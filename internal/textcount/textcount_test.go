package textcount

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// charsSlow is the definition: one per byte that is not 10xxxxxx.
func charsSlow(p []byte) int64 {
	var n int64
	for _, b := range p {
		if b&0xC0 != 0x80 {
			n++
		}
	}
	return n
}

func TestChars(t *testing.T) {
	for _, s := range []string{
		"", "a", "abcdefgh", "abcdefghi", "héllo wörld, ünïcödé", strings.Repeat("日本語", 7), "🙂🙃x",
		"\x80\xbf\xc0\xff\x7f\x40", strings.Repeat("\x80", 17), "x" + strings.Repeat("é", 9),
	} {
		if got, want := Chars([]byte(s)), charsSlow([]byte(s)); got != want {
			t.Errorf("Chars(%q) = %d, want %d", s, got, want)
		}
		if utf8.ValidString(s) {
			if got, want := Chars([]byte(s)), int64(utf8.RuneCountInString(s)); got != want {
				t.Errorf("Chars(%q) = %d, but it has %d characters", s, got, want)
			}
		}
	}
	// A continuation byte at each place of a 32-byte block, past ASCII the
	// block skips whole.
	for i := range 96 {
		p := []byte(strings.Repeat("a", 96))
		p[i] = 0x80
		if got := Chars(p); got != 95 {
			t.Fatalf("one continuation byte at %d of 96: %d lead bytes, want 95", i, got)
		}
	}
	// Split anywhere, the sum is the same.
	s := []byte(strings.Repeat("aé日🙂", 50))
	for cut := range len(s) {
		if got := Chars(s[:cut]) + Chars(s[cut:]); got != int64(utf8.RuneCount(s)) {
			t.Fatalf("split at %d: %d characters, want %d", cut, got, utf8.RuneCount(s))
		}
	}
}

func FuzzChars(f *testing.F) {
	f.Add([]byte("héllo, 日本語 🙂"))
	f.Add([]byte{0x80, 0xbf, 0xc0, 0xff, 0x00, 0x7f, 0x40, 0x41, 0x80})
	f.Fuzz(func(t *testing.T, p []byte) {
		if got, want := Chars(p), charsSlow(p); got != want {
			t.Fatalf("Chars(%x) = %d, want %d", p, got, want)
		}
	})
}

func BenchmarkChars(b *testing.B) {
	p := []byte(strings.Repeat("the quick brown fox jumps over the lazy dog é\n", 1<<14))
	for _, impl := range []struct {
		name string
		f    func([]byte) int64
	}{{"word", Chars}, {"byte", charsSlow}} {
		b.Run("impl="+impl.name, func(b *testing.B) {
			b.SetBytes(int64(len(p)))
			for b.Loop() {
				impl.f(p)
			}
		})
	}
}

// TestScan: valid UTF-8 is counted as the host counts it, anything else is
// refused, whatever it holds.
func TestScan(t *testing.T) {
	for _, s := range []string{
		"", "\n", "a\nb\n", strings.Repeat("abcdefghijklmnopqrstuvwxyz0123456789\n", 9), "héllo\nwörld", "日本語\n🙂",
		"\xef\xbf\xbd", // U+FFFD itself is valid
	} {
		chars, nl, ok := Scan([]byte(s))
		if !ok || chars != int64(utf8.RuneCountInString(s)) || nl != int64(strings.Count(s, "\n")) {
			t.Errorf("Scan(%q) = %d, %d, %v; want %d, %d, true", s, chars, nl, ok, utf8.RuneCountInString(s), strings.Count(s, "\n"))
		}
	}
	for _, s := range []string{"\x80", "a\xffb", "日本語"[:4], strings.Repeat("a", 40) + "\xc0\xaf"} {
		if _, _, ok := Scan([]byte(s)); ok {
			t.Errorf("Scan(%q) took invalid UTF-8", s)
		}
	}
}

func FuzzScan(f *testing.F) {
	f.Add([]byte("héllo\n日本語 🙂\n"))
	f.Add([]byte{0x0a, 0x80, 0xbf, 0xc0, 0xff, 0x00, 0x7f})
	f.Fuzz(func(t *testing.T, p []byte) {
		chars, nl, ok := Scan(p)
		if ok != utf8.Valid(p) {
			t.Fatalf("Scan(%x) ok = %v", p, ok)
		}
		if ok && (chars != int64(utf8.RuneCount(p)) || nl != int64(strings.Count(string(p), "\n"))) {
			t.Fatalf("Scan(%x) = %d, %d", p, chars, nl)
		}
	})
}
