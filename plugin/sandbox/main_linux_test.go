//go:build linux

package sandbox

import (
	"testing"

	"github.com/riot-tools/riot/internal/proctest"
)

// TestMain fails the run when a sandbox outlives the tests (proctest.Main).
func TestMain(m *testing.M) { proctest.Main(m) }
