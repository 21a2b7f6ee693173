//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"syscall"
	"testing"

	"github.com/riot-tools/riot/internal/benchrotate"
	"github.com/riot-tools/riot/internal/bwrap"
)

// BenchmarkPoolPath rotates, in one loop: a command in a warm pool
// sandbox, the same command forked and exec'd here, and forked here into
// PID and IPC namespaces of its own as the init does (root only).
func BenchmarkPoolPath(b *testing.B) {
	bwrap, err := bwrap.Find()
	if err != nil {
		b.Skip(err)
	}
	if os.Geteuid() != 0 {
		b.Skip("the namespace ways create PID namespaces without a user namespace: run as root")
	}
	for _, script := range []string{"true", "ls"} {
		b.Run(script, func(b *testing.B) {
			pool := &Pool{}
			b.Cleanup(pool.Close)
			dir := b.TempDir()
			p := &Profile{Writable: true, WritePaths: []string{dir}}
			devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
			if err != nil {
				b.Fatal(err)
			}
			defer devnull.Close()
			mk := func() *exec.Cmd {
				cmd := exec.Command("/bin/bash", "-c", script)
				cmd.Dir, cmd.Env, cmd.Stdout = dir, os.Environ(), devnull
				return cmd
			}
			pooled := func() {
				proc, err := pool.Start(bwrap, p, mk())
				if err != nil {
					b.Fatal(err)
				}
				if err := proc.Wait(); err != nil {
					b.Fatal(err)
				}
			}
			plain := func() {
				if err := mk().Run(); err != nil {
					b.Fatal(err)
				}
			}
			ns := func(flags uintptr) func() {
				return func() {
					cmd := mk()
					cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: flags, Setpgid: true}
					if err := cmd.Run(); err != nil {
						b.Fatal(err)
					}
				}
			}
			pooled()
			benchrotate.Run(b, []string{"pool", "exec", "newpid", "newpid+ipc"},
				[]func(){pooled, plain, ns(syscall.CLONE_NEWPID), ns(syscall.CLONE_NEWPID | syscall.CLONE_NEWIPC)})
		})
	}
}
