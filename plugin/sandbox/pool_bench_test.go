//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"testing"

	"github.com/riot-tools/riot/internal/bwrap"
)

// BenchmarkPoolTrue and BenchmarkExecTrue: `bash -c true` in a warm
// long-lived sandbox against a plain fork and exec, the cost of the pool
// itself (go test -bench 'True$' -count 6 ./plugin/sandbox/, benchstat).
func BenchmarkPoolTrue(b *testing.B) {
	bwrap, err := bwrap.Find()
	if err != nil {
		b.Skip(err)
	}
	pool := &Pool{}
	b.Cleanup(pool.Close)
	dir := b.TempDir()
	p := &Profile{Writable: true, WritePaths: []string{dir}}
	for b.Loop() {
		cmd := exec.Command("/bin/bash", "-c", "true")
		cmd.Dir, cmd.Env, cmd.Stdout = dir, os.Environ(), os.Stderr
		proc, err := pool.Start(bwrap, p, cmd)
		if err != nil {
			b.Fatal(err)
		}
		if err := proc.Wait(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkExecTrue(b *testing.B) {
	dir := b.TempDir()
	for b.Loop() {
		cmd := exec.Command("/bin/bash", "-c", "true")
		cmd.Dir, cmd.Env, cmd.Stdout = dir, os.Environ(), os.Stderr
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
	}
}
