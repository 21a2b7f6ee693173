//go:build linux

package bash

import (
	"os"
	"os/exec"
	"testing"

	"github.com/riot-tools/riot/internal/benchrotate"
	"github.com/riot-tools/riot/plugin/plugintest"
	"github.com/riot-tools/riot/plugin/sandbox"
)

// BenchmarkBashCallPath is one warm Bash call of a short command through
// the real plugin over go-plugin gRPC, unsandboxed (plain) and in the
// long-lived sandbox pool (box), against the command's `bash -c` run from
// Go (exec) and the plugin's own bash command line, EXIT trap and
// directory report included, run from Go with its output in a pipe
// (trapped), all rotated in one loop: trapped - exec is what the trap
// costs bash, plain - trapped the plugin's path, box - plain the sandbox's
// (go test -run '^$' -bench BashCallPath -benchtime 300x -count 3).
func BenchmarkBashCallPath(b *testing.B) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		b.Skip("needs bubblewrap")
	}
	for _, command := range []string{"true", "ls"} {
		b.Run(command, func(b *testing.B) {
			plain := plugintest.Serve(b, Tools(), plugintest.WithProc(plugintest.RealProc(b)))
			boxed := plugintest.Serve(b, Tools(), plugintest.WithProc(plugintest.RealProc(b)))
			boxed.Sandbox = &sandbox.Profile{Writable: true, WritePaths: []string{boxed.Cwd}, Required: true, Reason: "bench"}
			call := func(c *plugintest.Client) func() {
				return func() {
					if res := c.Call("Bash", run(command)); !res.Ok {
						b.Fatal(res.Message)
					}
				}
			}
			dir := b.TempDir()
			direct := func() {
				cmd := exec.Command("bash", "-c", command)
				cmd.Dir = dir
				if err := cmd.Run(); err != nil {
					b.Fatal(err)
				}
			}
			bash, err := exec.LookPath("bash")
			if err != nil {
				b.Fatal(err)
			}
			trapped := func() {
				report, err := newCwdReport(dir)
				if err != nil {
					b.Fatal(err)
				}
				defer report.close()
				r, w, err := os.Pipe()
				if err != nil {
					b.Fatal(err)
				}
				cmd := shellCommand(bash, command, dir, report)
				cmd.Stdout, cmd.Stderr = w, w
				err = cmd.Start()
				_ = w.Close()
				if err != nil {
					b.Fatal(err)
				}
				copyOutput(discard{}, r)
				_ = r.Close()
				if err := cmd.Wait(); err != nil {
					b.Fatal(err)
				}
				if _, ok := report.read(); !ok {
					b.Fatal("no directory reported")
				}
			}
			call(boxed)()
			benchrotate.Run(b, []string{"exec", "trapped", "plain", "box"}, []func(){direct, trapped, call(plain), call(boxed)})
		})
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
