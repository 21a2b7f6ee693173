package bench

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// bins are the binaries the benchmarks run, built once.
var bins struct {
	testkit, mcpnoop, bare, riot string
	standalone                   map[string]string // builtin name → riot-tool-NAME
}

// builtins are riot's builtin tool sets, in the default order.
var builtins = []string{"bash", "grep", "read", "diagnostics", "edit"}

func TestMain(m *testing.M) {
	flag.Parse()
	if pingpongChild() {
		return // the other end of BenchmarkSocketPingPong
	}
	if flag.Lookup("test.bench").Value.String() == "" {
		os.Exit(m.Run()) // no benchmark asked for (go test ./... in CI): build nothing
	}
	dir, err := os.MkdirTemp("", "riot-bench-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := func() int {
		defer os.RemoveAll(dir)
		pkgs := []string{"./internal/testplugins/testkit", "./bench/internal/mcpnoop", "./bench/internal/bare", "./cmd/riot"}
		bins.standalone = map[string]string{}
		for _, name := range builtins {
			pkgs = append(pkgs, "./plugins/"+name+"/cmd/riot-tool-"+name)
			bins.standalone[name] = filepath.Join(dir, "riot-tool-"+name)
		}
		cmd := exec.Command("go", append([]string{"build", "-o", dir + "/"}, pkgs...)...)
		cmd.Dir = ".."
		// Static, as make builds them.
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "build: %v\n%s", err, out)
			return 1
		}
		bins.testkit = filepath.Join(dir, "testkit")
		bins.mcpnoop = filepath.Join(dir, "mcpnoop")
		bins.bare = filepath.Join(dir, "bare")
		bins.riot = filepath.Join(dir, "riot")
		return m.Run()
	}()
	os.Exit(code)
}
