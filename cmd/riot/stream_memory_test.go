package main_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestStreamMemoryBounded is issue 3's bound: 1 GB streamed through a
// spilling tool keeps riot's peak RSS under 64 MB, because the result is
// written to the spill file as it arrives. The measure is riot's VmHWM, its
// resident high-water mark, read from /proc while it runs. (The rusage of a
// child is no measure: Go starts children with vfork, and Linux charges
// the parent's resident size at the exec to the child's ru_maxrss.)
func TestStreamMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 1 GB; skipped with -short")
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc here to read riot's memory from")
	}
	const size = 1_000_000_000
	e := newEnv(t)
	var fs syscall.Statfs_t
	if err := syscall.Statfs(e.ws, &fs); err == nil && fs.Bavail*uint64(fs.Bsize) < 2*size {
		t.Skipf("the 1 GB spill file needs 2 GB free where the test writes, and there are %d MB", fs.Bavail*uint64(fs.Bsize)>>20)
	}
	e.enableTestkit()
	cmd := e.command("", "call", "Stream", fmt.Sprintf(`{"bytes":%d}`, size), "--json")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// VmHWM only grows, so the last reading before riot exits is its peak
	// but for the moment after it.
	status := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
	peakKB := 0
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for waiting := true; waiting; {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("riot call Stream: %v\n%s", err, out.String())
			}
			waiting = false
		case <-tick.C:
			peakKB = max(peakKB, vmHWM(status))
		}
	}
	if peakKB == 0 {
		t.Fatal("riot's memory was never read")
	}
	t.Logf("riot's peak RSS streaming 1 GB: %.1f MB", float64(peakKB)/1024)
	if peakKB > 64<<10 {
		t.Errorf("riot's peak RSS streaming 1 GB was %d MB, want at most 64 MB", peakKB>>10)
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

// vmHWM is the VmHWM of a /proc/PID/status file in KB, or 0 if the process
// is gone.
func vmHWM(status string) int {
	data, err := os.ReadFile(status)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return kb
		}
	}
	return 0
}
