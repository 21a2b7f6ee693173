package read

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/riot-tools/riot/plugin"
)

// The harness cannot deliver a call whose context is already over, so
// this calls the tool directly.
func TestCallStoppedByCancellation(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), []byte(strings.Repeat("some line\n", 100_000)), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	env := &plugin.Env{Cwd: dir, Roots: []string{dir}}
	out := Read{}.Call(ctx, Input{FilePath: "big.txt", Offset: new(50_000)}, env)
	want := "Read of big.txt was stopped before it finished (cancelled or out of time).\nRead a smaller window with `offset` and `limit`."
	if out.IsOk() || out.Message() != want {
		t.Fatalf("ok=%v message=%q", out.IsOk(), out.Message())
	}
}
