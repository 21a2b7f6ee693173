package main_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sys/unix"
)

// run runs riot without touching t, for a goroutine.
func (e *env) run(args ...string) (result, error) {
	cmd := e.command("", args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return result{out.String(), errb.String(), ee.ExitCode()}, nil
	}
	return result{out.String(), errb.String(), 0}, err
}

// Concurrent riot processes, each in its own session after a Read of the
// same content, Edit one file at once: exactly one answers "Edited" and
// its line is in the file; every other is refused as changed since read
// (issue 30, item 1: Edits that answered "Edited" were lost).
func TestConcurrentEditsThroughRiot(t *testing.T) {
	e := newEnv(t)
	path := e.write("notes.txt", "anchor\n")
	const n = 8
	session := func(i int) string { return fmt.Sprintf("s%d", i) }
	for i := range n {
		e.riot("", "call", "--session", session(i), "Read", `{"file_path":"notes.txt"}`).want(t, 0, "anchor")
	}
	start := make(chan struct{})
	results := make([]result, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			in := fmt.Sprintf(`{"file_path":"notes.txt","old_string":"anchor\n","new_string":"anchor\nline %d\n"}`, i)
			results[i], errs[i] = e.run("call", "--session", session(i), "--mode", "acceptEdits", "Edit", in)
		}()
	}
	close(start)
	wg.Wait()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	edited := 0
	for i, r := range results {
		if errs[i] != nil {
			t.Fatalf("riot %d: %v", i, errs[i])
		}
		if r.code == 0 && strings.Contains(r.stdout, "Edited notes.txt") {
			edited++
			if !strings.Contains(string(got), fmt.Sprintf("line %d\n", i)) {
				t.Errorf("riot %d answered Edited, but its line is not in the file:\n%s", i, got)
			}
			continue
		}
		if r.code != 1 || !strings.Contains(r.stdout, "changed since you read it") || strings.Contains(r.stdout, "have not read") {
			t.Errorf("riot %d: exit %d, not refused as changed since read:\n%s%s", i, r.code, r.stdout, r.stderr)
		}
	}
	if edited != 1 {
		t.Fatalf("%d Edits of the same content answered Edited, want 1; the file:\n%s", edited, got)
	}
}

// Writes through riot of new files under a directory a background loop
// keeps swapping with a symlink to a directory outside the workspace:
// none lands outside, and each refusal says what to do (issue 29, class 8).
func TestWriteSymlinkSwapThroughRiot(t *testing.T) {
	e := newEnv(t)
	outside := filepath.Join(filepath.Dir(e.ws), "outside")
	for _, d := range []string{filepath.Join(e.ws, "d"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(e.ws, "swap")); err != nil {
		t.Fatal(err)
	}
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			select {
			case <-done:
				return
			default:
			}
			if err := unix.Renameat2(unix.AT_FDCWD, filepath.Join(e.ws, "d"), unix.AT_FDCWD, filepath.Join(e.ws, "swap"), unix.RENAME_EXCHANGE); err != nil {
				t.Errorf("exchange: %v", err)
				return
			}
		}
	}()
	created := 0
	for i := range 40 {
		r, err := e.run("call", "--mode", "acceptEdits", "Write", fmt.Sprintf(`{"file_path":"d/f%d.txt","content":"x\n"}`, i))
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case r.code == 0:
			created++
		case strings.Contains(r.stdout, "changed while Write was writing it") && strings.Contains(r.stdout, "Do not retry in a loop"):
		case strings.Contains(r.stdout, "outside the workspace"), strings.Contains(r.stdout, "Permission denied: the user has not granted permission for this call"):
			// The chain's own check saw the symlink, or the path changing
			// while it resolved it, and asked: without a terminal, denied.
		default:
			t.Errorf("Write %d: exit %d, neither written nor refused for the swap:\n%s%s", i, r.code, r.stdout, r.stderr)
		}
	}
	close(done)
	<-stopped
	if entries, _ := os.ReadDir(outside); len(entries) > 0 {
		t.Fatalf("%d files landed outside the workspace, such as %s", len(entries), entries[0].Name())
	}
	t.Logf("%d of 40 created", created)
}
