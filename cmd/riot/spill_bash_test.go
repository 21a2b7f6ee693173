package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/riot-tools/riot/shared"
)

// Bash's output past the budget reaches the spill file without crossing
// the RPC: the plugin writes it into the file riot created, and riot's log
// says how much, and that it read back of the file only what the preview
// shows, taking the counts the plugin announced. The file holds the
// command's output exactly.
func TestBashSpillWrittenByThePlugin(t *testing.T) {
	const size = 24_000_000
	e := newEnv(t)
	cmd := e.command("", "call", "Bash", `{"command":"yes abc | head -c 24000000"}`, "--mode", "bypassPermissions", "--json")
	cmd.Env = append(cmd.Env, "RIOT_LOG_LEVEL=debug")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("riot call Bash: %v\n%s", err, out)
	}
	var res struct {
		Status string `json:"status"`
		Spill  struct {
			Path  string `json:"path"`
			Chars int64  `json:"chars"`
		} `json:"spill"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(res.Spill.Path)
	if err != nil {
		t.Fatalf("no spill file: %v\n%.500s", err, out)
	}
	if res.Status != "ok" || res.Spill.Chars != size || string(data) != strings.Repeat("abc\n", size/4) {
		t.Fatalf("status %s, %d characters, a file of %d bytes; want ok and the output whole", res.Status, res.Spill.Chars, len(data))
	}
	logs, _ := filepath.Glob(filepath.Join(e.state, "riot", "logs", "*"))
	var all strings.Builder
	for _, l := range logs {
		b, _ := os.ReadFile(l)
		all.Write(b)
	}
	m := regexp.MustCompile(`spilled a result: .*bytes=(\d+) written_by_plugin=(\d+) read_back=(\d+)`).FindStringSubmatch(all.String())
	if m == nil {
		t.Fatalf("riot's log says nothing of the spill:\n%s", all.String())
	}
	// What the plugin streamed before it found the file is bounded by the
	// budget (well under a MiB), the connection's flow-control window and
	// the frames the host holds ahead of a call, however slowly the host
	// got to create the file: about a third of the output.
	inFlight := shared.ConnWindow + 2*shared.ChunkSize + 1<<20
	if byPlugin, _ := strconv.Atoi(m[2]); m[1] != strconv.Itoa(size) || byPlugin < size-inFlight {
		t.Fatalf("of %s bytes the plugin wrote %s into the spill file, want all but the budget and the window in flight", m[1], m[2])
	}
	// A head and a tail of about 6 KB for each announcement, one every 4
	// MiB or 50 ms.
	if readBack, _ := strconv.Atoi(m[3]); readBack > 1<<20 {
		t.Fatalf("riot read back %d bytes of the %s the plugin wrote, not only the preview's", readBack, m[2])
	}
}
