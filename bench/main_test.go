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
	// testkitV1 and testkitV2 are testkit built with the riot_protocol1
	// and riot_protocol2 tags: plugins of an SDK before protocol 2 and 3,
	// for the host's call path over protocols 1 and 2.
	testkitV1, testkitV2 string
	standalone           map[string]string // builtin name → riot-tool-NAME
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
		for _, v := range []string{"1", "2"} {
			old := exec.Command("go", "build", "-tags", "riot_protocol"+v, "-o", filepath.Join(dir, "v"+v)+"/", "./internal/testplugins/testkit")
			old.Dir = ".."
			old.Env = cmd.Env
			if out, err := old.CombinedOutput(); err != nil {
				fmt.Fprintf(os.Stderr, "build: %v\n%s", err, out)
				return 1
			}
		}
		bins.testkitV1 = filepath.Join(dir, "v1", "testkit")
		bins.testkitV2 = filepath.Join(dir, "v2", "testkit")
		bins.testkit = filepath.Join(dir, "testkit")
		bins.mcpnoop = filepath.Join(dir, "mcpnoop")
		bins.bare = filepath.Join(dir, "bare")
		bins.riot = filepath.Join(dir, "riot")
		return m.Run()
	}()
	os.Exit(code)
}
