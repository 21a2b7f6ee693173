package core_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/riot-tools/riot/core"
)

// syncLog is a host log a test reads.
type syncLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

var writtenByPlugin = regexp.MustCompile(`spilled a result: .*bytes=(\d+) written_by_plugin=(\d+)`)

// A spilling SDK tool writes the bulk of its output into the host's spill
// file itself: the host's log says how much, and the file, the counts and
// the preview are what the stream would have given.
func TestSDKPluginWritesTheSpillFile(t *testing.T) {
	log := &syncLog{}
	h := newHost(t, func(o *core.Options) {
		o.Logger = hclog.New(&hclog.LoggerOptions{Output: log, Level: hclog.Debug})
	})
	line := strings.Repeat("é€😀", 33) + "\n" // 100 characters of 2, 3 and 4 bytes
	const lines = 30_000                     // 9 MB, several announcements
	// Writes of 1,001 bytes split characters, in the stream and in the file.
	r := runOne(t, h, "Stream", fmt.Sprintf(`{"bytes":%d,"line":%q,"piece":1001,"note":"(a note)"}`, lines*len(line), line))
	wantResult(t, r, core.StatusOK, "[Output too large for the context: 3,000,000 characters in 30,000 lines. The full output is saved at "+r.Spill.Path+".", "\n(a note)")
	if data := readSpill(t, r); !bytes.Equal(data, []byte(strings.Repeat(line, lines))) {
		t.Fatalf("the spill file holds %d bytes, not the output", len(data))
	}
	if !strings.HasPrefix(r.Text(), line) || strings.ContainsRune(r.Text(), '\uFFFD') {
		t.Fatalf("the preview does not start with whole characters:\n%.300s", r.Text())
	}
	m := writtenByPlugin.FindStringSubmatch(log.String())
	if m == nil {
		t.Fatalf("the host logged no spill:\n%s", log.String())
	}
	total, _ := strconv.Atoi(m[1])
	byPlugin, _ := strconv.Atoi(m[2])
	// The plugin streams until it finds the file, which riot creates once
	// it has read past the budget: gRPC's flow-control window (1 MiB per
	// call) bounds how far ahead of riot the plugin can be by then.
	if total != lines*len(line) || byPlugin < total-2<<20 {
		t.Fatalf("of %d bytes the plugin wrote %d into the spill file, want all but the budget and the window in flight", total, byPlugin)
	}
	if entries, _ := os.ReadDir(filepath.Dir(r.Spill.Path)); len(entries) != 2 {
		t.Fatalf("the results directory holds %v, want the lock and the spill file", entries)
	}
}

// A plugin that streams everything, as one built before the spill file
// does, spills as before; one that misuses the file gets a Failed result
// that says how, from a plugin that stays up, and no file is left.
func TestSpillFileFaults(t *testing.T) {
	h := newHost(t, withConfig(testConfig(t, bypass)), withPlugins(wirefault()))
	r := runOne(t, h, "IgnoreSpillFile", `{}`)
	wantResult(t, r, core.StatusOK, "[Output too large for the context: 240,000 characters in 1 lines.")
	if data := readSpill(t, r); string(data) != strings.Repeat("x", 60_000)+strings.Repeat("y", 180_000) {
		t.Fatalf("the spill file holds %d bytes, not the output", len(data))
	}
	tail := runOne(t, h, "FileTail", `{}`)
	wantResult(t, tail, core.StatusOK, "[Output too large for the context: 60,019 characters in 2 lines.")
	if data := readSpill(t, tail); string(data) != strings.Repeat("x", 60_000)+"announced\nstreamed\n" {
		t.Fatalf("the spill file ends %q, want only the announced and streamed text", data[max(0, len(data)-40):])
	}
	if tail.Spill.Chars != 60_019 || tail.Spill.Lines != 2 {
		t.Fatalf("counted %d characters in %d lines, want 60,019 in 2", tail.Spill.Chars, tail.Spill.Lines)
	}
	pids := processesOf(bins.wirefault)
	for _, tc := range []struct{ tool, why string }{
		{"FileBeforeSpill", "text announced in the spill file before riot had created it"},
		{"FileWrongOffset", "text announced at byte 0 of the spill file, where its output so far ends at byte 60,000"},
		{"FileShort", "text announced up to byte 61,000 of the spill file, which holds 60,010"},
		{"FileBadUTF8", "text that is not valid UTF-8, at byte 60,005 of its output"},
		{"FileCutUTF8", "text that is not valid UTF-8, at byte 60,003 of its output"},
		{"FileImage", "an image announced in the spill file, which holds text only"},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			r := runOne(t, h, tc.tool, `{}`)
			wantResult(t, r, core.StatusFailed, fmt.Sprintf("The %s tool sent malformed output (%s), so riot discarded this call's result", tc.tool, tc.why))
			if r.Spill != nil || strings.Contains(r.Text(), "xxxxxxxx") {
				t.Fatalf("a malformed result kept its output: %+v", r.Spill)
			}
		})
	}
	if after := processesOf(bins.wirefault); len(pids) != 1 || len(after) != 1 || pids[0] != after[0] {
		t.Fatalf("the plugin was restarted: %v, then %v", pids, after)
	}
	// Only the two good spills are left: a discarded one leaves nothing.
	if entries, _ := os.ReadDir(filepath.Dir(r.Spill.Path)); len(entries) != 3 {
		t.Fatalf("the results directory holds %v, want the lock and two spill files", entries)
	}
}

var spillLogged = regexp.MustCompile(`spilled a result: .*bytes=(\d+) written_by_plugin=(\d+) read_back=(\d+)`)

// lastSpill is the byte counts of the last spill the host logged: the
// text, what the plugin wrote to the file, and what riot read back of it.
func lastSpill(t *testing.T, log *syncLog) (total, byPlugin, readBack int) {
	t.Helper()
	all := spillLogged.FindAllStringSubmatch(log.String(), -1)
	if len(all) == 0 {
		t.Fatalf("the host logged no spill:\n%.2000s", log.String())
	}
	m := all[len(all)-1]
	total, _ = strconv.Atoi(m[1])
	byPlugin, _ = strconv.Atoi(m[2])
	readBack, _ = strconv.Atoi(m[3])
	return total, byPlugin, readBack
}

// The same bytes make the same result whichever way they come: written by
// the SDK to the spill file with their counts, written there without counts
// (as an SDK older than the counts does, and riot reads them back), or all
// streamed. The SDK's own output (its spill file, or the text when nothing
// spilled) is what the other ways replay, so they get the bytes the SDK
// made of invalid UTF-8 and of characters cut between writes.
func TestSpillWaysAgree(t *testing.T) {
	log := &syncLog{}
	h := newHost(t, withPlugins(testkit(), wirefault()), func(o *core.Options) {
		o.Logger = hclog.New(&hclog.LoggerOptions{Output: log, Level: hclog.Debug})
	})
	const budget = 50_000
	ascii := []byte(strings.Repeat("abcdefghijklmnopqrstuvwxyz0123456789\n", 1000)) // 37,000 bytes
	multi := []byte(strings.Repeat("é€😀\n", 2000))                                  // 20,000 bytes, 8,000 characters
	// Outputs of megabytes, so that the SDK surely finds the spill file: it
	// can be the RPC's flow-control window ahead of riot when riot creates it.
	for _, tc := range []struct {
		name   string
		in     map[string]any
		counts bool // whether the SDK wrote to the file, with counts
	}{
		{"ASCII", map[string]any{"writes": [][]byte{ascii}, "times": 260}, true}, // 9.6 MB, several announcements
		{"multibyte cut across writes", map[string]any{"writes": [][]byte{multi[:1001], multi[1001:3333], multi[3333:]}, "times": 200}, true},
		{"invalid bytes", map[string]any{"writes": [][]byte{ascii, []byte("bad \xff\xfe here\n"), []byte("cut \xe2\x82"), []byte("x and \xc3"), []byte("\xa9 then\n")}, "times": 100}, true},
		{"no final newline", map[string]any{"writes": [][]byte{ascii}, "times": 100, "then": [][]byte{[]byte("the end, no newline")}}, true},
		{"exactly at the budget", map[string]any{"writes": [][]byte{[]byte(strings.Repeat("x", budget-1) + "\n")}}, false},
		{"one past the budget", map[string]any{"writes": [][]byte{[]byte(strings.Repeat("y", budget) + "\n")}}, false},
		{"a trickle announced by the flusher", map[string]any{"writes": [][]byte{ascii}, "times": 100, "then": [][]byte{[]byte("one\n"), []byte("two é"), []byte("\nthree")}, "pause": true}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in, err := json.Marshal(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			counted := runOne(t, h, "Writes", string(in))
			wantResult(t, counted, core.StatusOK)
			var out []byte
			if counted.Spill != nil {
				out = readSpill(t, counted)
				total, byPlugin, readBack := lastSpill(t, log)
				if total != len(out) {
					t.Fatalf("the host logged %d bytes for a %d-byte spill file", total, len(out))
				}
				if tc.counts && (byPlugin == 0 || readBack > 2*(4*(1500+64))*(1+byPlugin/(1<<20))) {
					t.Fatalf("of %d bytes the plugin wrote %d and riot read back %d: the counts were not taken", total, byPlugin, readBack)
				}
			} else {
				out = []byte(counted.Text())
			}
			from := filepath.Join(t.TempDir(), "text")
			if err := os.WriteFile(from, out, 0o600); err != nil {
				t.Fatal(err)
			}
			// Past the budget of characters, where the host spills.
			stream := len(out)
			if counted.Spill != nil {
				stream = len(string([]rune(string(out))[:budget+1]))
			}
			for _, way := range []string{"streamed", "uncounted", "counted"} {
				if stream == len(out) && way != "streamed" {
					continue
				}
				r := runOne(t, h, "Replay", fmt.Sprintf(`{"from":%q,"way":%q,"stream":%d,"announce":%d}`, from, way, stream, 1<<20+3))
				sameResult(t, way, counted, r)
				if r.Spill == nil {
					continue
				}
				if _, byPlugin, readBack := lastSpill(t, log); way == "uncounted" && readBack < byPlugin {
					t.Fatalf("riot read back %d of the %d bytes written without counts", readBack, byPlugin)
				}
			}
		})
	}
}

// sameResult fails unless r is want, byte for byte, but for the spill
// file's name: its status, content, counts and the file's bytes.
func sameResult(t *testing.T, way string, want, r core.ToolResult) {
	t.Helper()
	if r.Status != want.Status || (r.Spill == nil) != (want.Spill == nil) {
		t.Fatalf("%s: %s, spilled %v; the SDK's: %s, spilled %v:\n%.500s", way, r.Status, r.Spill != nil, want.Status, want.Spill != nil, r.Text())
	}
	text, wantText := r.Text(), want.Text()
	if r.Spill != nil {
		text, wantText = strings.ReplaceAll(text, r.Spill.Path, "PATH"), strings.ReplaceAll(wantText, want.Spill.Path, "PATH")
		if r.Spill.Chars != want.Spill.Chars || r.Spill.Lines != want.Spill.Lines || r.Spill.Bytes != want.Spill.Bytes {
			t.Fatalf("%s: %+v, the SDK's %+v", way, *r.Spill, *want.Spill)
		}
		if got, exp := readSpill(t, r), readSpill(t, want); !bytes.Equal(got, exp) {
			t.Fatalf("%s: the spill file holds %d bytes, the SDK's %d", way, len(got), len(exp))
		}
	}
	if text != wantText {
		t.Fatalf("%s: the content differs from the SDK's:\n%s\n---\n%s", way, text, wantText)
	}
}
