//go:build linux

package proctest

import (
	"fmt"
	"os"
	"testing"
)

// Main is a test package's TestMain that fails the run when a sandbox
// (bwrap, or the PID namespace's first process it leaves) outlives the
// tests: orphans are reparented to the test binary (Subreap), so that one
// whose bwrap was killed is still found (CheckSandboxes).
func Main(m *testing.M) {
	if err := Subreap(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(CheckSandboxes(m.Run()))
}
