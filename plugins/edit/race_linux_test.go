package edit_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/riot-tools/riot/plugin/plugintest"
)

// swapper exchanges two paths atomically (a directory and a symlink) in a
// loop until stopped, as a command left running in the background would:
// at every instant each name is one of the two.
func swapper(t *testing.T, a, b string) (stop func()) {
	t.Helper()
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			select {
			case <-done:
				return
			default:
			}
			if err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE); err != nil {
				t.Errorf("exchange: %v", err)
				return
			}
		}
	}()
	return func() { close(done); <-stopped }
}

// raceWorkspace is a workspace whose directory d a background loop keeps
// swapping with a symlink to a directory outside it.
func raceWorkspace(t *testing.T) (ws, outside string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, outside = filepath.Join(root, "ws"), filepath.Join(root, "outside")
	for _, d := range []string{filepath.Join(ws, "d"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(ws, "swap")); err != nil {
		t.Fatal(err)
	}
	return ws, outside
}

// rawErrno are texts of system errors that must never reach the model.
var rawErrno = []string{"too many levels", "no such file", "not a directory", "file exists", "errno"}

// A Write of a new file under a directory that is being swapped with a
// symlink to an outside directory never lands outside: it is made in the
// directory the check approved, or refused with an imperative message.
// Run with the write path the chain allowed, and with none (the fence).
func TestWriteRacingSymlinkSwap(t *testing.T) {
	for _, allowed := range []bool{true, false} {
		t.Run(fmt.Sprintf("allowed writes sent %v", allowed), func(t *testing.T) {
			ws, outside := raceWorkspace(t)
			c := serve(t)
			c.Cwd, c.Roots = ws, []string{ws}
			stop := swapper(t, filepath.Join(ws, "d"), filepath.Join(ws, "swap"))
			created, refused := 0, 0
			for i := range 200 {
				p := filepath.Join(ws, "d", fmt.Sprintf("f%d.txt", i))
				if allowed {
					c.AllowedWrites = []string{p} // as the chain resolved it, d a directory
				}
				res := c.Call("Write", map[string]any{"file_path": p, "content": "x\n"})
				if res.Ok {
					created++
					continue
				}
				refused++
				swapped := strings.Contains(res.Message, "changed while Write was writing it") && strings.Contains(res.Message, "Do not retry in a loop")
				outsideRoots := !allowed && strings.Contains(res.Message, "outside the workspace roots, and this call carries no permission")
				if !swapped && !outsideRoots {
					t.Errorf("refusal %d is not the swap's: %s", i, res.Message)
				}
				for _, raw := range rawErrno {
					if strings.Contains(strings.ToLower(res.Message), raw) {
						t.Errorf("refusal %d carries a system error: %s", i, res.Message)
					}
				}
			}
			stop()
			if entries, _ := os.ReadDir(outside); len(entries) > 0 {
				t.Fatalf("%d files landed outside the workspace, such as %s", len(entries), entries[0].Name())
			}
			inside := 0
			for _, d := range []string{"d", "swap"} {
				if entries, err := os.ReadDir(filepath.Join(ws, d)); err == nil {
					inside += len(entries)
				}
			}
			if inside != created {
				t.Fatalf("%d Writes reported Created, %d files are in the workspace's directory", created, inside)
			}
			t.Logf("%d created, %d refused", created, refused)
		})
	}
}

// An Edit of a file under the swapped directory never changes the file of
// the same name outside, even one the session has read as it is.
func TestEditRacingSymlinkSwap(t *testing.T) {
	ws, outside := raceWorkspace(t)
	c := serve(t)
	c.Cwd, c.Roots = ws, []string{ws}
	p := writeFile(t, ws, "d/e.txt", "a\n", 0o644)
	markRead(t, c, writeFile(t, outside, "e.txt", "a\n", 0o644), true)
	markRead(t, c, p, true)
	c.AllowedWrites = []string{p}
	stop := swapper(t, filepath.Join(ws, "d"), filepath.Join(ws, "swap"))
	for i := range 200 {
		res := c.Call("Edit", map[string]any{"file_path": p, "old_string": "a", "new_string": "ab"})
		if res.Ok {
			continue
		}
		for _, raw := range rawErrno {
			if strings.Contains(strings.ToLower(res.Message), raw) {
				t.Errorf("refusal %d carries a system error: %s", i, res.Message)
			}
		}
	}
	stop()
	if got, _ := os.ReadFile(filepath.Join(outside, "e.txt")); string(got) != "a\n" {
		t.Fatalf("the file outside the workspace was edited: %q", got)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 1 {
		t.Fatalf("the outside directory holds %d entries, want its one file", len(entries))
	}
}

// Concurrent Edits of one file, each after its own Read of the same
// content (separate sessions): exactly one succeeds and is in the file;
// every other is refused as changed since read, never as not read.
func TestConcurrentEditsNotLost(t *testing.T) {
	const n = 16
	dir := t.TempDir()
	p := writeFile(t, dir, "f.txt", "anchor\n", 0o644)
	clients := make([]*clientT, n)
	for i := range clients {
		c := serve(t)
		c.Cwd, c.Roots = dir, []string{dir}
		markRead(t, c, p, true)
		clients[i] = &clientT{c: c}
	}
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, ct := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			ct.res = ct.c.Call("Edit", map[string]any{"file_path": p, "old_string": "anchor\n", "new_string": fmt.Sprintf("anchor\nline %d\n", i)})
		}()
	}
	close(start)
	wg.Wait()
	got, _ := os.ReadFile(p)
	ok := 0
	for i, ct := range clients {
		line := fmt.Sprintf("line %d\n", i)
		if ct.res.Ok {
			ok++
			if !strings.Contains(string(got), line) {
				t.Errorf("Edit %d reported %q but the file lacks its line:\n%s", i, ct.res.Text, got)
			}
			continue
		}
		if !strings.Contains(ct.res.Message, "changed since you read it") || strings.Contains(ct.res.Message, "have not read") {
			t.Errorf("Edit %d refused for another reason: %s", i, ct.res.Message)
		}
	}
	if ok != 1 {
		t.Fatalf("%d Edits succeeded on the same content, want exactly 1; the file:\n%s", ok, got)
	}
}

type clientT struct {
	c   *plugintest.Client
	res plugintest.Result
}
