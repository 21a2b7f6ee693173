package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// bins are the binaries the benchmarks run, built once.
var bins struct{ testkit, mcpnoop, automtls, riot string }

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "riot-bench-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := func() int {
		defer os.RemoveAll(dir)
		for pkg, dst := range map[string]*string{
			"github.com/riot-tools/riot/internal/testplugins/testkit": &bins.testkit,
			"github.com/riot-tools/riot/bench/internal/mcpnoop":       &bins.mcpnoop,
			"github.com/riot-tools/riot/bench/internal/automtls":      &bins.automtls,
			"github.com/riot-tools/riot/cmd/riot":                     &bins.riot,
		} {
			*dst = filepath.Join(dir, filepath.Base(pkg))
			if out, err := exec.Command("go", "build", "-o", *dst, pkg).CombinedOutput(); err != nil {
				fmt.Fprintf(os.Stderr, "build %s: %v\n%s", pkg, err, out)
				return 1
			}
		}
		return m.Run()
	}()
	os.Exit(code)
}
