package core

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// leadBytesSlow is the definition: one per byte that is not 10xxxxxx.
func leadBytesSlow(p []byte) int64 {
	var n int64
	for _, b := range p {
		if b&0xC0 != 0x80 {
			n++
		}
	}
	return n
}

func TestLeadBytes(t *testing.T) {
	for _, s := range []string{
		"", "a", "abcdefgh", "abcdefghi", "héllo wörld, ünïcödé", strings.Repeat("日本語", 7), "🙂🙃x",
		"\x80\xbf\xc0\xff\x7f\x40", strings.Repeat("\x80", 17), "x" + strings.Repeat("é", 9),
	} {
		if got, want := leadBytes([]byte(s)), leadBytesSlow([]byte(s)); got != want {
			t.Errorf("leadBytes(%q) = %d, want %d", s, got, want)
		}
		if utf8.ValidString(s) {
			if got, want := leadBytes([]byte(s)), int64(utf8.RuneCountInString(s)); got != want {
				t.Errorf("leadBytes(%q) = %d, but it has %d characters", s, got, want)
			}
		}
	}
	// A continuation byte at each place of a 32-byte block, past ASCII the
	// block skips whole.
	for i := range 96 {
		p := []byte(strings.Repeat("a", 96))
		p[i] = 0x80
		if got := leadBytes(p); got != 95 {
			t.Fatalf("one continuation byte at %d of 96: %d lead bytes, want 95", i, got)
		}
	}
	// Split anywhere, the sum is the same.
	s := []byte(strings.Repeat("aé日🙂", 50))
	for cut := range len(s) {
		if got := leadBytes(s[:cut]) + leadBytes(s[cut:]); got != int64(utf8.RuneCount(s)) {
			t.Fatalf("split at %d: %d characters, want %d", cut, got, utf8.RuneCount(s))
		}
	}
}

func FuzzLeadBytes(f *testing.F) {
	f.Add([]byte("héllo, 日本語 🙂"))
	f.Add([]byte{0x80, 0xbf, 0xc0, 0xff, 0x00, 0x7f, 0x40, 0x41, 0x80})
	f.Fuzz(func(t *testing.T, p []byte) {
		if got, want := leadBytes(p), leadBytesSlow(p); got != want {
			t.Fatalf("leadBytes(%x) = %d, want %d", p, got, want)
		}
	})
}

func BenchmarkLeadBytes(b *testing.B) {
	p := []byte(strings.Repeat("the quick brown fox jumps over the lazy dog é\n", 1<<14))
	for _, impl := range []struct {
		name string
		f    func([]byte) int64
	}{{"word", leadBytes}, {"byte", leadBytesSlow}} {
		b.Run("impl="+impl.name, func(b *testing.B) {
			b.SetBytes(int64(len(p)))
			for b.Loop() {
				impl.f(p)
			}
		})
	}
}
