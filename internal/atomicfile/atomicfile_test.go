package atomicfile_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/riot-tools/riot/internal/atomicfile"
)

func TestWriteReplacesWholeAndLeavesNoTemporaryFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "state.json")
	if err := atomicfile.Write(path, []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.Write(path, []byte("two"), 0o600); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	info, _ := os.Stat(path)
	if string(data) != "two" || info.Mode().Perm() != 0o640 {
		t.Fatalf("content %q mode %v, want \"two\" and the existing 0640", data, info.Mode().Perm())
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Fatalf("entries beside the file: %v", entries)
	}
}

// Concurrent writers of one path never mix their bytes: each reader sees
// one writer's whole content.
func TestConcurrentWritersNeverInterleave(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body := strings.Repeat(string(rune('a'+i)), 1<<16)
			if err := atomicfile.Write(path, []byte(body), 0o600); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	data, _ := os.ReadFile(path)
	if len(data) != 1<<16 || strings.Count(string(data), string(data[:1])) != len(data) {
		t.Fatalf("the file mixes writers: %d bytes starting %q", len(data), data[:8])
	}
}

func TestCleanupDiscardsAnUncommittedFile(t *testing.T) {
	dir := t.TempDir()
	f, err := atomicfile.Create(filepath.Join(dir, "x"), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.Write([]byte("partial"))
	f.Cleanup()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("left behind: %v", entries)
	}
}

func TestCommitScratch(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "spill.txt")
	f, err := atomicfile.Create(path, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.Write([]byte("whole"))
	if _, err := os.Stat(path); err == nil {
		t.Fatal("visible before the commit")
	}
	if err := f.CommitScratch(); err != nil {
		t.Fatal(err)
	}
	f.Cleanup()
	if data, _ := os.ReadFile(path); string(data) != "whole" {
		t.Fatalf("content %q", data)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("entries: %v", entries)
	}
}

// The oracle for durability: under strace, Write fsyncs the file before
// the rename and the directory after it; CommitScratch renames without
// fsync.
func TestWriteFsyncsUnderStrace(t *testing.T) {
	if os.Getenv("ATOMICFILE_HELPER") != "" {
		dir := os.Getenv("ATOMICFILE_HELPER")
		if err := atomicfile.Write(filepath.Join(dir, "state.json"), []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := atomicfile.Create(filepath.Join(dir, "spill.txt"), 0o600)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = f.Write([]byte("x"))
		if err := f.CommitScratch(); err != nil {
			t.Fatal(err)
		}
		return
	}
	strace, err := exec.LookPath("strace")
	if err != nil {
		t.Skip("strace is not installed (.ci/run installs it)")
	}
	dir := t.TempDir()
	out := filepath.Join(t.TempDir(), "trace")
	cmd := exec.Command(strace, "-f", "-qq", "-o", out, "-e", "trace=fsync,fdatasync,rename,renameat,renameat2,openat",
		os.Args[0], "-test.run=^TestWriteFsyncsUnderStrace$")
	cmd.Env = append(os.Environ(), "ATOMICFILE_HELPER="+dir)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	data, _ := os.ReadFile(out)
	var events []string
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case strings.Contains(line, "fsync("), strings.Contains(line, "fdatasync("):
			events = append(events, "fsync")
		case strings.Contains(line, "rename") && strings.Contains(line, "state.json"):
			events = append(events, "rename state")
		case strings.Contains(line, "rename") && strings.Contains(line, "spill.txt"):
			events = append(events, "rename spill")
		}
	}
	got := strings.Join(events, ", ")
	if want := "fsync, rename state, fsync, rename spill"; got != want {
		t.Fatalf("system calls: %s; want %s\n%s", got, want, data)
	}
}
