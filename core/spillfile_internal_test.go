package core

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"google.golang.org/protobuf/proto"

	"github.com/riot-tools/riot/shared"
)

// spilledCollector is a collector of budget characters that has been streamed text
// past it, so that its spill file exists for the plugin's announcements.
func spilledCollector(t *testing.T, budget int64, streamed string) *collector {
	t.Helper()
	h := budgetHost(t)
	c := newCollector(budget, h.results.spillPath("toolu_c"), h.results)
	c.offer()
	if err := c.add(textChunk([]byte(streamed))); err != nil || !c.spilled() {
		t.Fatalf("streaming %d bytes past a budget of %d: spilled %v, %v", len(streamed), budget, c.spilled(), err)
	}
	return c
}

func textChunk(p []byte) shared.CallEvent {
	return shared.CallEvent{Chunk: &shared.Chunk{Kind: shared.BlockText, Data: p}}
}

// announceAt writes data into c's spill file where its text ends, as the
// SDK does, and returns the announcement of length bytes there.
func announceAt(t *testing.T, c *collector, data []byte, length int) *shared.Chunk {
	t.Helper()
	f, err := os.OpenFile(scratchPath(c.spillPath), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(data, c.nbytes); err != nil {
		t.Fatal(err)
	}
	return &shared.Chunk{Kind: shared.BlockText, FileOffset: uint64(c.nbytes), FileLength: uint64(length)}
}

// midChars is the character count of d, a stretch whose head and tail riot
// reads, if its unread middle held extra characters more than it has bytes.
func midChars(d []byte, extra int) uint64 {
	head, tail := keepBytes-10, keepBytes
	return uint64(utf8.RuneCount(d[:head]) + utf8.RuneCount(d[len(d)-tail:]) + len(d) - head - tail + extra)
}

func counts(ch *shared.Chunk, chars, lines uint64) *shared.Chunk {
	ch.FileChars, ch.FileNewlines = proto.Uint64(chars), proto.Uint64(lines)
	return ch
}

func why(err error) string {
	var m *malformedError
	if !errors.As(err, &m) {
		return "not malformed: " + errString(err)
	}
	return m.Why
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// Counts that no text could have, or that the bytes riot reads contradict,
// make the output malformed, each with its own reason; so does a file
// shorter than announced, though riot reads only its end.
func TestCountedStretchRefused(t *testing.T) {
	big := []byte(strings.Repeat("abcdefghi\n", 3000)) // 30,000 bytes, more than the preview reads
	bigChars, bigLines := uint64(len(big)), uint64(3000)
	for _, tc := range []struct {
		name string
		// budget and streamed make the collector; data is written to the
		// file and ch announced.
		budget   int64
		streamed string
		data     []byte
		ch       func(c *collector, data []byte) *shared.Chunk
		why      string
	}{
		{"characters without newlines", 5, "0123456789", big, func(c *collector, d []byte) *shared.Chunk {
			ch := announceAt(t, c, d, len(d))
			ch.FileChars = proto.Uint64(bigChars)
			return ch
		}, "a spill file announcement that counts characters or newlines but not both"},
		{"newlines without characters", 5, "0123456789", big, func(c *collector, d []byte) *shared.Chunk {
			ch := announceAt(t, c, d, len(d))
			ch.FileNewlines = proto.Uint64(bigLines)
			return ch
		}, "a spill file announcement that counts characters or newlines but not both"},
		{"more characters than bytes", 5, "0123456789", big, func(c *collector, d []byte) *shared.Chunk {
			return counts(announceAt(t, c, d, len(d)), bigChars+1, bigLines)
		}, "an announcement of 30,001 characters in 30,000 bytes of the spill file"},
		{"more newlines than bytes", 5, "0123456789", big, func(c *collector, d []byte) *shared.Chunk {
			return counts(announceAt(t, c, d, len(d)), bigChars, bigChars+1)
		}, "an announcement of 30,001 newlines in 30,000 bytes of the spill file"},
		{"more newlines than characters", 5, "0123456789", big, func(c *collector, d []byte) *shared.Chunk {
			return counts(announceAt(t, c, d, len(d)), 10_000, 10_001)
		}, "an announcement of 10,001 newlines in 10,000 characters of the spill file"},
		{"no characters", 5, "0123456789", big, func(c *collector, d []byte) *shared.Chunk {
			return counts(announceAt(t, c, d, len(d)), 0, 0)
		}, "an announcement of no characters in 30,000 bytes of the spill file"},
		{"more than four bytes a character", 5, "0123456789", big, func(c *collector, d []byte) *shared.Chunk {
			return counts(announceAt(t, c, d, len(d)), 7499, 3000)
		}, "an announcement of 7,499 characters in 30,000 bytes of the spill file, more than 4 bytes a character"},
		{"not where the text ends", 5, "0123456789", big, func(c *collector, d []byte) *shared.Chunk {
			ch := counts(announceAt(t, c, d, len(d)), bigChars, bigLines)
			ch.FileOffset = 3
			return ch
		}, "text announced at byte 3 of the spill file, where its output so far ends at byte 10"},
		{"a file shorter than announced", 5, "0123456789", big, func(c *collector, d []byte) *shared.Chunk {
			return counts(announceAt(t, c, d, len(d)+5), bigChars+5, bigLines)
		}, "text announced up to byte 30,015 of the spill file, which holds 30,010"},
		{"a file shorter than the head riot reads", 5, "0123456789", big[:3], func(c *collector, d []byte) *shared.Chunk {
			return counts(announceAt(t, c, d, 30_000), bigChars, bigLines)
		}, "text announced up to byte 30,010 of the spill file, which holds 13"},
		{"a small stretch whose counts are not its own", 5, "01234\n6789", []byte("abc\ndé\n"), func(c *collector, d []byte) *shared.Chunk {
			return counts(announceAt(t, c, d, len(d)), 7, 1)
		}, "an announcement of 7 characters and 1 newlines in a stretch of the spill file that holds 7 and 2"},
		{"counts the head and tail contradict", 5, "0123456789", big, func(c *collector, d []byte) *shared.Chunk {
			return counts(announceAt(t, c, d, len(d)), bigChars, 100)
		}, "an announcement of 30,000 characters and 100 newlines in a stretch of the spill file whose first and last bytes riot read contradict them"},
		{"bad UTF-8 in the head riot reads", 5, "0123456789", append([]byte("ok \xff"), big...), func(c *collector, d []byte) *shared.Chunk {
			return counts(announceAt(t, c, d, len(d)), bigChars+4, bigLines)
		}, "text that is not valid UTF-8, at byte 13 of its output"},
		{"bad UTF-8 in the tail riot reads", 5, "0123456789", append(append([]byte(nil), big...), "ok \xff\n"...), func(c *collector, d []byte) *shared.Chunk {
			return counts(announceAt(t, c, d, len(d)), bigChars+5, bigLines+1)
		}, "text that is not valid UTF-8, at byte 30,013 of its output"},
		{"a stretch that ends inside a character", 5, "0123456789", append(append([]byte(nil), big...), "caf\xc3"...), func(c *collector, d []byte) *shared.Chunk {
			return counts(announceAt(t, c, d, len(d)), bigChars+4, bigLines)
		}, "text that is not valid UTF-8, at byte 30,013 of its output"},
		{"more characters than the unread middle holds", 5, "0123456789", []byte(strings.Repeat("é", 15_000)), func(c *collector, d []byte) *shared.Chunk {
			return counts(announceAt(t, c, d, len(d)), midChars(d, 1), 0)
		}, "an announcement of 23,750 characters and 0 newlines in a stretch of the spill file whose first and last bytes riot read contradict them"},
		{"fewer characters than the unread middle must hold", 5, "0123456789", []byte(strings.Repeat("é", 15_000)), func(c *collector, d []byte) *shared.Chunk {
			return counts(announceAt(t, c, d, len(d)), 6251+17498/4-1, 0)
		}, "an announcement of 10,624 characters and 0 newlines in a stretch of the spill file whose first and last bytes riot read contradict them"},
		{"more newlines than the unread middle's characters", 5, "0123456789", big, func(c *collector, d []byte) *shared.Chunk {
			return counts(announceAt(t, c, d, len(d)), bigChars, 1250+17498+1)
		}, "an announcement of 30,000 characters and 18,749 newlines in a stretch of the spill file whose first and last bytes riot read contradict them"},
		{"a tail that starts inside no character", 5, "0123456789", append(append([]byte(nil), big[:20_000]...), bytes.Repeat([]byte{0x80}, keepBytes)...), func(c *collector, d []byte) *shared.Chunk {
			return counts(announceAt(t, c, d, len(d)), 20_001, 2000)
		}, "text that is not valid UTF-8, at byte 20,014 of its output"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := spilledCollector(t, tc.budget, tc.streamed)
			defer c.discard()
			err := c.add(shared.CallEvent{Chunk: tc.ch(c, tc.data)})
			if got := why(err); got != tc.why {
				t.Fatalf("refused for %q, want %q", got, tc.why)
			}
		})
	}
}

// A counted stretch is taken as the same stretch read back would be: the
// counts, the preview's bytes and the end of line, with only the preview
// read, whether riot holds the head yet or not.
func TestCountedStretchTaken(t *testing.T) {
	line := strings.Repeat("é€😀", 33) + "\n"
	for _, tc := range []struct {
		name, streamed string
		budget         int64
		data           string
	}{
		{"the head held", strings.Repeat("x", 8000), 7000, strings.Repeat(line, 300) + "no newline"},
		{"the head not held", "0123456789", 5, strings.Repeat(line, 300)},
		{"a small stretch", "01234\n6789", 5, "abc\nd"},
		{"just past what the preview reads", "0123456789", 5, strings.Repeat("y", 2*keepBytes+1)},
		{"all newlines", "01234\n6789", 5, strings.Repeat("\n", 30_000)},
		// The head piece ends inside "€", the unread middle is its second
		// byte and the tail piece starts with its third.
		{"a character across the unread middle", "0123456789", 5, strings.Repeat("a", keepBytes-11) + "€" + strings.Repeat("a", keepBytes-1)},
		// The unread middle is as long as its characters allow: the three
		// bytes that end the "😀" the head piece cut, and one "😀" whole.
		{"the longest unread middle", "0123456789", 5, strings.Repeat("a", keepBytes-11) + "😀😀" + strings.Repeat("a", keepBytes)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := spilledCollector(t, tc.budget, tc.streamed)
			defer want.discard()
			if err := want.add(shared.CallEvent{Chunk: announceAt(t, want, []byte(tc.data), len(tc.data))}); err != nil {
				t.Fatal(err)
			}
			got := spilledCollector(t, tc.budget, tc.streamed)
			defer got.discard()
			ch := counts(announceAt(t, got, []byte(tc.data), len(tc.data)), uint64(utf8.RuneCountInString(tc.data)), uint64(strings.Count(tc.data, "\n")))
			if err := got.add(shared.CallEvent{Chunk: ch}); err != nil {
				t.Fatal(err)
			}
			sameCollected(t, got, want)
			if len(tc.data) > 2*keepBytes && got.reread > 2*keepBytes {
				t.Fatalf("read back %d bytes of a %d-byte stretch", got.reread, len(tc.data))
			}
			// riot's own writes and the plugin's share the file.
			got.finish()
			if data, err := os.ReadFile(got.spillPath); err != nil || string(data) != tc.streamed+tc.data {
				t.Fatalf("the spill file holds %d bytes, not the %d streamed and written: %v", len(data), len(tc.streamed)+len(tc.data), err)
			}
		})
	}
}

func sameCollected(t *testing.T, got, want *collector) {
	t.Helper()
	if got.nbytes != want.nbytes || got.chars != want.chars || got.lines != want.lines || got.lastNL != want.lastNL ||
		!bytes.Equal(got.head, want.head) || !bytes.Equal(got.tail, want.tail) || got.fromFile != want.fromFile || got.at.off != want.at.off {
		t.Fatalf("counted: %d bytes, %d chars, %d lines, newline %v, head %d, tail %d, from file %d; read back: %d, %d, %d, %v, %d, %d, %d",
			got.nbytes, got.chars, got.lines, got.lastNL, len(got.head), len(got.tail), got.fromFile,
			want.nbytes, want.chars, want.lines, want.lastNL, len(want.head), len(want.tail), want.fromFile)
	}
	if g, w := got.body(), strings.ReplaceAll(want.body(), want.spillPath, got.spillPath); g != w {
		t.Fatalf("counted body:\n%s\nread back:\n%s", g, w)
	}
}

// A counted stretch of any bytes, with any counts: riot takes it only with
// counts some text could have, and then exactly as it takes the same bytes
// read back, but for the counts; with the true counts of valid UTF-8 it
// always takes it. The bytes are repeated so that stretches pass what the
// preview reads.
func FuzzCountedStretch(f *testing.F) {
	f.Add([]byte("abcdefghi\n"), uint16(3000), int16(0), int16(0), false)
	f.Add([]byte("é€😀\n"), uint16(2000), int16(1), int16(0), true)
	f.Add([]byte("ok \xff\n"), uint16(5), int16(0), int16(-1), false)
	f.Add([]byte("x"), uint16(1), int16(-1), int16(0), false)
	f.Fuzz(func(t *testing.T, piece []byte, repeat uint16, lieChars, lieLines int16, headHeld bool) {
		data := bytes.Repeat(piece, int(repeat%4000))
		budget, streamed := int64(5), "0123456789"
		if headHeld {
			budget, streamed = 7000, strings.Repeat("x", 8000)
		}
		want := spilledCollector(t, budget, streamed)
		defer want.discard()
		readErr := want.add(shared.CallEvent{Chunk: announceAt(t, want, data, len(data))})
		chars := int64(utf8.RuneCount(data)) + int64(lieChars)
		lines := int64(bytes.Count(data, []byte{'\n'})) + int64(lieLines)
		if chars < 0 || lines < 0 {
			return
		}
		got := spilledCollector(t, budget, streamed)
		defer got.discard()
		// Up to this many bytes, riot reads the stretch whole.
		whole := int64(keepBytes + max(0, keepBytes-len(got.head)))
		err := got.add(shared.CallEvent{Chunk: counts(announceAt(t, got, data, len(data)), uint64(chars), uint64(lines))})
		honest := lieChars == 0 && lieLines == 0
		switch {
		case readErr == nil && honest && err != nil:
			t.Fatalf("true counts of valid UTF-8 refused: %v", err)
		case err != nil:
			if why(err) == "not malformed: "+errString(err) {
				t.Fatalf("refused without a reason for the model: %v", err)
			}
			return
		}
		n := int64(len(data))
		if uint64(chars) > uint64(n) || lines > chars || (n > 0 && chars == 0) || n > 4*chars {
			t.Fatalf("took %d characters and %d newlines in %d bytes", chars, lines, n)
		}
		if readErr != nil {
			if n <= whole {
				t.Fatalf("took invalid UTF-8 it read whole: %v", readErr)
			}
			return
		}
		if honest {
			sameCollected(t, got, want)
			return
		}
		got.chars, got.lines = want.chars, want.lines
		sameCollected(t, got, want)
	})
}

// An announcement riot cannot take whatever its counts: each reason its
// own, counted or not.
func TestAnnouncementRefused(t *testing.T) {
	for _, withCounts := range []bool{false, true} {
		ann := func(ch *shared.Chunk) shared.CallEvent {
			if withCounts {
				ch = counts(ch, ch.FileLength, 0)
			}
			return shared.CallEvent{Chunk: ch}
		}
		for _, tc := range []struct {
			name string
			run  func(t *testing.T) error
			why  string
		}{
			{"not offered", func(t *testing.T) error {
				h := budgetHost(t)
				c := newCollector(5, h.results.spillPath("toolu_c"), h.results)
				return c.add(ann(&shared.Chunk{Kind: shared.BlockText, FileOffset: 0, FileLength: 10}))
			}, "text announced in a spill file riot did not offer for this call"},
			{"text carried too", func(t *testing.T) error {
				c := spilledCollector(t, 5, "0123456789")
				defer c.discard()
				return c.add(ann(&shared.Chunk{Kind: shared.BlockText, Data: []byte("x"), FileOffset: 10, FileLength: 10}))
			}, "a chunk that carries text and also announces text in the spill file"},
			{"before the file", func(t *testing.T) error {
				h := budgetHost(t)
				c := newCollector(50, h.results.spillPath("toolu_c"), h.results)
				c.offer()
				if err := c.add(textChunk([]byte("0123456789"))); err != nil {
					t.Fatal(err)
				}
				return c.add(ann(&shared.Chunk{Kind: shared.BlockText, FileOffset: 10, FileLength: 10}))
			}, "text announced in the spill file before riot had created it"},
			{"after a cut character", func(t *testing.T) error {
				c := spilledCollector(t, 5, "0123456789")
				defer c.discard()
				if err := c.add(textChunk([]byte("caf\xc3"))); err != nil {
					t.Fatal(err)
				}
				return c.add(ann(announceAt(t, c, []byte("\xa9"), 1)))
			}, "text that is not valid UTF-8, at byte 13 of its output"},
			{"too long", func(t *testing.T) error {
				c := spilledCollector(t, 5, "0123456789")
				defer c.discard()
				return c.add(ann(&shared.Chunk{Kind: shared.BlockText, FileOffset: 10, FileLength: maxAnnounced + 1}))
			}, "an announcement of 1,125,899,906,842,624 bytes in the spill file"},
			{"an image", func(t *testing.T) error {
				c := spilledCollector(t, 5, "0123456789")
				defer c.discard()
				return c.add(ann(&shared.Chunk{Kind: shared.BlockImage, FileOffset: 10, FileLength: 1}))
			}, "an image announced in the spill file, which holds text only"},
		} {
			t.Run(fmt.Sprintf("%s, counted %v", tc.name, withCounts), func(t *testing.T) {
				if got := why(tc.run(t)); got != tc.why {
					t.Fatalf("refused for %q, want %q", got, tc.why)
				}
			})
		}
	}
	// Counts alone, with no offset or length, still announce.
	c := spilledCollector(t, 5, "0123456789")
	defer c.discard()
	if got := why(c.add(shared.CallEvent{Chunk: counts(&shared.Chunk{Kind: shared.BlockText}, 1, 0)})); got != "text announced at byte 0 of the spill file, where its output so far ends at byte 10" {
		t.Fatalf("counts without a stretch: %q", got)
	}
}

// Only a limited call is offered the spill file, a budget of 0 among them.
func TestSpillFileOffered(t *testing.T) {
	h := budgetHost(t)
	if newCollector(-1, h.results.spillPath("a"), h.results).offer() != nil {
		t.Fatal("an unlimited call was offered the spill file")
	}
	if offer := newCollector(0, h.results.spillPath("b"), h.results).offer(); offer == nil || offer.AfterBytes != 0 {
		t.Fatalf("a call of budget 0 was offered %v", offer)
	}
	if newCollector(5, h.results.spillPath("c"), nil).offer() != nil {
		t.Fatal("a call without a results store was offered the spill file")
	}
}

// A stretch without counts, as an older SDK announces, is read back whole
// in pieces: the same as streamed where a piece cuts a character, refused
// where it ends inside one or holds a bad byte, at that byte.
func TestUncountedStretchReadBack(t *testing.T) {
	// "€" at every offset modulo 3, so that some piece boundary cuts one.
	valid := []byte(strings.Repeat("€", readPiece) + "a\n")
	got := spilledCollector(t, 5, "0123456789")
	defer got.discard()
	if err := got.add(shared.CallEvent{Chunk: announceAt(t, got, valid, len(valid))}); err != nil {
		t.Fatal(err)
	}
	want := spilledCollector(t, 5, "0123456789")
	defer want.discard()
	if err := want.add(textChunk(valid)); err != nil {
		t.Fatal(err)
	}
	want.fromFile = got.fromFile
	sameCollected(t, got, want)
	if got.fromFile != int64(len(valid)) {
		t.Fatalf("took %d of %d bytes from the file", got.fromFile, len(valid))
	}
	for _, tc := range []struct {
		name string
		data []byte
		why  string
	}{
		{"ends inside a character", append(append([]byte(nil), valid...), "caf\xc3"...), "text that is not valid UTF-8, at byte 786,447 of its output"},
		{"a bad byte past the first piece", append(append(append([]byte(nil), valid...), "ok \xff"...), valid...), "text that is not valid UTF-8, at byte 786,447 of its output"},
		{"a bad byte that ends the first piece", append([]byte(strings.Repeat("a", readPiece-1)), "\xffmore"...), "text that is not valid UTF-8, at byte 262,153 of its output"},
		{"a surrogate that ends the first piece", append([]byte(strings.Repeat("a", readPiece-3)), "\xed\xa0\x80more"...), "text that is not valid UTF-8, at byte 262,151 of its output"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := spilledCollector(t, 5, "0123456789")
			defer c.discard()
			if got := why(c.add(shared.CallEvent{Chunk: announceAt(t, c, tc.data, len(tc.data))})); got != tc.why {
				t.Fatalf("refused for %q, want %q", got, tc.why)
			}
		})
	}
}

// A text spilled under the bytes the preview keeps, as a small budget
// spills it, is previewed once: its head was once kept twice.
func TestSmallSpillPreviewedOnce(t *testing.T) {
	c := spilledCollector(t, 5, "0123456789\n")
	c.finish()
	if string(c.head) != "0123456789\n" || !strings.HasPrefix(c.body(), "0123456789\n\n[Output too large") {
		t.Fatalf("head %q, preview:\n%s", c.head, c.body())
	}
}
