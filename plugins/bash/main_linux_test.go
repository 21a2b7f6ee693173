//go:build linux

package bash

import (
	"fmt"
	"os"
	"testing"

	"github.com/riot-tools/riot/internal/proctest"
)

// TestMain fails the run when a sandbox (bwrap, or the PID namespace's
// first process it leaves) outlives the tests: orphans are reparented here
// (a subreaper) so that one whose bwrap was killed is still found.
func TestMain(m *testing.M) {
	if err := proctest.Subreap(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(proctest.CheckSandboxes(m.Run()))
}
