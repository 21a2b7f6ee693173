package main_test

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"syscall"
	"testing"
)

// TestStreamMemoryBounded is issue 3's bound: 1 GB streamed through a
// spilling tool keeps riot's peak RSS under 64 MB, because the result is
// written to the spill file as it arrives. The kernel's rusage is the
// measure: the peak of riot, or of a child it reaped if that was larger.
func TestStreamMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 1 GB; skipped with -short")
	}
	const size = 1_000_000_000
	e := newEnv(t)
	e.enableTestkit()
	cmd := e.command("", "call", "Stream", `{"bytes":1000000000}`, "--json")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, os.Stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("riot call Stream: %v\n%s", err, out.String())
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		t.Skip("no rusage on this platform")
	}
	if peak := ru.Maxrss * 1024; peak > 64<<20 {
		t.Errorf("riot's peak RSS streaming 1 GB was %d MB, want at most 64 MB", peak>>20)
	}
	var res struct {
		Content string `json:"content"`
		Spill   struct {
			Path string `json:"path"`
		} `json:"spill"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(res.Spill.Path)
	if err != nil {
		t.Fatalf("no spill file: %v\n%.500s", err, res.Content)
	}
	if info.Size() != size {
		t.Errorf("spill file holds %d bytes, want %d", info.Size(), size)
	}
	if !strings.Contains(res.Content, "1,000,000,000 characters") || !strings.Contains(res.Content, res.Spill.Path) {
		t.Errorf("the preview does not give the size and the path:\n%.3000s", res.Content)
	}
}
