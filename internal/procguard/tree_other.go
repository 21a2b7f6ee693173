//go:build !linux

package procguard

import (
	"fmt"
	"os"
)

// treeSupported: a child subreaper is Linux's.
const treeSupported = false

func runTree([]string) int {
	fmt.Fprintln(os.Stderr, "procguard: a tree guard runs only on Linux")
	return 127
}
