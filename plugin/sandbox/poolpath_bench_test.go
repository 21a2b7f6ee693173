//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// BenchmarkPoolPath rotates, in one loop: a command in a warm pool
// sandbox, the same command forked and exec'd here, and forked here into
// PID and IPC namespaces of its own as the init does (root only).
func BenchmarkPoolPath(b *testing.B) {
	bwrap, err := (&Probe{}).Check(b.Context())
	if err != nil {
		b.Skip(err)
	}
	for _, script := range []string{"true", "ls"} {
		b.Run(script, func(b *testing.B) {
			pool := &Pool{}
			b.Cleanup(pool.Close)
			dir := b.TempDir()
			p := &Profile{Mode: Write, WritePaths: []string{dir}}
			devnull, _ := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
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
			names := []string{"pool", "exec", "newpid", "newpid+ipc"}
			ways := []func(){pooled, plain, ns(syscall.CLONE_NEWPID), ns(syscall.CLONE_NEWPID | syscall.CLONE_NEWIPC)}
			total := make([]time.Duration, len(ways))
			i := 0
			b.ResetTimer()
			for b.Loop() {
				for k := range ways {
					w := (i + k) % len(ways)
					start := time.Now()
					ways[w]()
					total[w] += time.Since(start)
				}
				i++
			}
			for k, name := range names {
				b.ReportMetric(float64(total[k].Microseconds())/1000/float64(b.N), name+"-ms/op")
			}
			b.ReportMetric(0, "ns/op")
		})
	}
}
