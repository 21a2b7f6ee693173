package plugin

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"unicode/utf8"

	"github.com/riot-tools/riot/shared"
)

// wire is what an output sent, rebuilt as the host sees it: streamed text
// and announced stretches of the spill file, in order.
type wire struct {
	// mu orders send, which the output's ticker may call while the test
	// writes, against the test's reads in the middle of a stream.
	mu        sync.Mutex
	streamed  []byte
	announced [][2]uint64
	text      []byte // the output, taking each announced stretch from file
	file      string
	// miscounted are the announcements whose counts are missing or not
	// their stretch's.
	miscounted []string
}

func (w *wire) send(ev shared.CallEvent) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	ch := ev.Chunk
	if ch == nil {
		return nil
	}
	if n := ch.FileLength; n > 0 {
		w.announced = append(w.announced, [2]uint64{ch.FileOffset, n})
		data, _ := os.ReadFile(w.file)
		stretch := data[ch.FileOffset : ch.FileOffset+n]
		w.text = append(w.text, stretch...)
		chars, lines := uint64(utf8.RuneCount(stretch)), uint64(bytes.Count(stretch, []byte{'\n'}))
		if ch.FileChars == nil || ch.FileNewlines == nil || *ch.FileChars != chars || *ch.FileNewlines != lines {
			w.miscounted = append(w.miscounted, fmt.Sprintf("%d bytes at %d: %v characters and %v newlines, want %d and %d",
				n, ch.FileOffset, ch.FileChars, ch.FileNewlines, chars, lines))
		}
		return nil
	}
	w.streamed = append(w.streamed, ch.Data...)
	w.text = append(w.text, ch.Data...)
	return nil
}

// The output streams until the host's spill file exists past after_bytes,
// then writes it there at the offsets that follow, never splitting a
// character, and announces every byte by close.
func TestOutputWritesTheOfferedSpillFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".spill.part")
	w := &wire{file: path}
	o := newOutput(context.Background(), &sender{send: w.send}, &shared.SpillFile{Path: path, AfterBytes: 100})
	line := strings.Repeat("é€😀", 3) + "\n"
	var want []byte
	write := func(n int) {
		for range n {
			p := []byte(line)
			// Writes of 5 bytes cut characters.
			for len(p) > 0 {
				k := min(5, len(p))
				if _, err := o.Write(p[:k]); err != nil {
					t.Fatal(err)
				}
				want = append(want, p[:k]...)
				p = p[k:]
			}
		}
	}
	write(20_000) // 620 KB: past flushSize, with no file yet
	// Before the host creates the file, the output cannot have taken it.
	// (Asked after, the output's ticker may already have taken the file
	// the host made: a race of the test's, not the output's.)
	took := o.tookFile()
	// The host spills: it creates the file with what it received, while
	// nothing more arrives.
	w.mu.Lock()
	announced := len(w.announced)
	err := os.WriteFile(path, w.streamed, 0o600)
	w.mu.Unlock()
	if took || announced > 0 {
		t.Fatal("the output wrote to a spill file the host had not created")
	}
	if err != nil {
		t.Fatal(err)
	}
	write(200_000) // 6 MB
	if !o.tookFile() {
		t.Fatal("the output did not take the host's spill file")
	}
	if _, err := o.close(); err != nil {
		t.Fatal(err)
	}
	if string(w.text) != string(want) {
		t.Fatalf("the host gets %d bytes, not the %d written", len(w.text), len(want))
	}
	if len(w.announced) < 2 || int(w.announced[0][0]) != len(w.streamed) {
		t.Fatalf("announced %v after %d streamed bytes, want several stretches from there", w.announced, len(w.streamed))
	}
	if len(w.streamed) > 1<<20 {
		t.Fatalf("%d bytes streamed once the file existed", len(w.streamed))
	}
	if len(w.miscounted) > 0 {
		t.Fatalf("announcements without their stretch's counts: %v", w.miscounted)
	}
	if _, err := o.Write([]byte("late")); err == nil {
		t.Fatal("a write after close was taken")
	}
}

// Each announcement counts what the output wrote to the file: the bytes
// it made of invalid UTF-8 (U+FFFD) and characters cut between writes,
// which it counts in the stretch that holds them whole, a trickle the
// flusher announces, and a character cut off at close.
func TestOutputCountsWhatItWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".spill.part")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	w := &wire{file: path}
	o := newOutput(context.Background(), &sender{send: w.send}, &shared.SpillFile{Path: path})
	for _, p := range []string{strings.Repeat("x", flushSize), "bad \xff\xfe here\n", "cut \xe2\x82", "\xac done\n", "x \xc3"} {
		if _, err := o.Write([]byte(p)); err != nil {
			t.Fatal(err)
		}
		if !o.tookFile() {
			t.Fatal("the output did not take the spill file")
		}
		// What the flusher does on its tick.
		o.mu.Lock()
		err := o.flushLocked()
		o.mu.Unlock()
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, err := o.close(); err != nil {
		t.Fatal(err)
	}
	if want := strings.Repeat("x", flushSize) + "bad \uFFFD here\ncut € done\nx \uFFFD"; string(w.text) != want {
		t.Fatalf("the host gets %q", w.text[flushSize:])
	}
	if len(w.announced) != 5 || len(w.miscounted) > 0 {
		t.Fatalf("announced %v, miscounted %v", w.announced, w.miscounted)
	}
}

// A file the output must not write, a symbolic link, a directory or a
// FIFO (which would block the tool), keeps the text on the stream, whole.
func TestOutputStreamsWhenTheSpillFileIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "elsewhere")
	if err := os.WriteFile(target, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for name, make := range map[string]func(string) error{
		"symlink":   func(p string) error { return os.Symlink(target, p) },
		"directory": func(p string) error { return os.Mkdir(p, 0o700) },
		"fifo":      func(p string) error { return syscall.Mkfifo(p, 0o600) },
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			if err := make(path); err != nil {
				t.Fatal(err)
			}
			w := &wire{file: path}
			o := newOutput(context.Background(), &sender{send: w.send}, &shared.SpillFile{Path: path})
			want := strings.Repeat("0123456789abcdef", 64<<10) // 1 MiB
			if _, err := o.Write([]byte(want)); err != nil {
				t.Fatal(err)
			}
			if _, err := o.Write([]byte(want)); err != nil {
				t.Fatal(err)
			}
			if _, err := o.close(); err != nil {
				t.Fatal(err)
			}
			if len(w.announced) > 0 || string(w.streamed) != want+want {
				t.Fatalf("announced %v and streamed %d bytes, want everything streamed", w.announced, len(w.streamed))
			}
			if data, _ := os.ReadFile(target); len(data) > 0 {
				t.Fatal("the output wrote through the symbolic link")
			}
		})
	}
}

// Once the host has stopped the call, nothing more goes to the file.
func TestOutputStopsWritingTheSpillFileWhenCancelled(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".spill.part")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	w := &wire{file: path}
	o := newOutput(ctx, &sender{send: w.send}, &shared.SpillFile{Path: path})
	big := []byte(strings.Repeat("x", flushSize))
	if _, err := o.Write(big); err != nil {
		t.Fatal(err)
	}
	if _, err := o.Write(big); err != nil || !o.tookFile() {
		t.Fatalf("the output did not write the file: %v", err)
	}
	cancel()
	if _, err := o.Write(big); err == nil {
		t.Fatal("a write after the call was cancelled was taken")
	}
	_, _ = o.close()
	if info, _ := os.Stat(path); info.Size() != 2*flushSize {
		t.Fatalf("the file holds %d bytes, want the %d written before the cancel", info.Size(), 2*flushSize)
	}
}

// A write to the spill file that fails announces what was written and
// streams the rest: the host still gets every byte, once.
func TestOutputStreamsAfterASpillFileWriteFails(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".spill.part")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	w := &wire{file: path}
	o := newOutput(context.Background(), &sender{send: w.send}, &shared.SpillFile{Path: path})
	big := strings.Repeat("x", flushSize)
	want := big + "y" + big + "é" + big
	for _, p := range []string{big, "y", big, "é"[:1]} {
		if _, err := o.Write([]byte(p)); err != nil {
			t.Fatal(err)
		}
	}
	if !o.tookFile() {
		t.Fatal("the output did not take the spill file")
	}
	// The file's descriptor goes bad, as on a full or failing disk.
	_ = o.spill.f.Close()
	for _, p := range []string{"é"[1:], big} {
		if _, err := o.Write([]byte(p)); err != nil {
			t.Fatal(err)
		}
	}
	if o.tookFile() {
		t.Fatal("the output kept writing a file that fails")
	}
	if _, err := o.close(); err != nil {
		t.Fatal(err)
	}
	if string(w.text) != want {
		t.Fatalf("the host gets %d bytes, want the %d written", len(w.text), len(want))
	}
	if len(w.announced) != 1 || w.announced[0] != [2]uint64{flushSize, flushSize + 1} {
		t.Fatalf("announced %v, want the stretch written before the failure", w.announced)
	}
}

// The file is tried only past after_bytes, and a stretch of announceSize
// is announced at once, not at the next write.
func TestOutputSpillFileThresholds(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".spill.part")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	w := &wire{file: path}
	o := newOutput(context.Background(), &sender{send: w.send}, &shared.SpillFile{Path: path, AfterBytes: flushSize})
	if _, err := o.Write([]byte(strings.Repeat("x", flushSize))); err != nil {
		t.Fatal(err)
	}
	if o.tookFile() {
		t.Fatal("the file was opened at after_bytes, not past it")
	}
	if _, err := o.Write([]byte(strings.Repeat("x", flushSize))); err != nil {
		t.Fatal(err)
	}
	if !o.tookFile() {
		t.Fatal("the file was not opened past after_bytes")
	}
	if _, err := o.Write([]byte(strings.Repeat("y", announceSize))); err != nil {
		t.Fatal(err)
	}
	if len(w.announced) != 1 || w.announced[0] != [2]uint64{2 * flushSize, announceSize} {
		t.Fatalf("announced %v after %d bytes in the file, want them at once", w.announced, announceSize)
	}
	_, _ = o.close()
}

// tookFile reports whether the output writes to the host's spill file,
// read under the lock its ticker holds while it may take the file.
func (o *output) tookFile() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.spill.open()
}
