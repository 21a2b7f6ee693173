package atomicfile_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/riot-tools/riot/internal/atomicfile"
)

// Two openers of one scratch name share the file; Commit cuts it to the
// size given and puts it at its target; nothing is at the target before.
func TestScratchSharedThenCommittedCut(t *testing.T) {
	dir := t.TempDir()
	tmp, target := filepath.Join(dir, "sub", ".out.part"), filepath.Join(dir, "sub", "out")
	a, err := atomicfile.OpenScratch(tmp, target)
	if err != nil {
		t.Fatal(err)
	}
	b, err := atomicfile.OpenScratch(tmp, target)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Cleanup()
	if _, err := a.WriteAt([]byte("head "), 0); err != nil {
		t.Fatal(err)
	}
	if _, err := b.WriteAt([]byte("tail and more"), 5); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 9)
	if _, err := a.ReadAt(got, 0); err != nil || string(got) != "head tail" {
		t.Fatalf("read %q, %v", got, err)
	}
	if _, err := os.Stat(target); err == nil {
		t.Fatal("the target exists before the commit")
	}
	if err := a.Commit(9); err != nil {
		t.Fatal(err)
	}
	a.Cleanup()
	if data, _ := os.ReadFile(target); string(data) != "head tail" {
		t.Fatalf("committed %q, want the first 9 bytes", data)
	}
	if _, err := os.Stat(tmp); err == nil {
		t.Fatal("the scratch name is still there")
	}
	if err := a.Commit(9); err == nil {
		t.Fatal("a second commit succeeded")
	}
}

func TestScratchRefusesLinksAndCleansUp(t *testing.T) {
	dir := t.TempDir()
	elsewhere := filepath.Join(dir, "elsewhere")
	link := filepath.Join(dir, ".link.part")
	if err := os.Symlink(elsewhere, link); err != nil {
		t.Fatal(err)
	}
	if _, err := atomicfile.OpenScratch(link, filepath.Join(dir, "link")); err == nil {
		t.Fatal("a symbolic link was opened")
	}
	if _, err := os.Lstat(elsewhere); err == nil {
		t.Fatal("the link's target was created")
	}
	if _, err := atomicfile.OpenScratch(dir, filepath.Join(dir, "d")); err == nil {
		t.Fatal("a directory was opened")
	}
	tmp := filepath.Join(dir, ".gone.part")
	s, err := atomicfile.OpenScratch(tmp, filepath.Join(dir, "gone"))
	if err != nil {
		t.Fatal(err)
	}
	s.Cleanup()
	if _, err := os.Stat(tmp); err == nil {
		t.Fatal("Cleanup left the scratch file")
	}
}
