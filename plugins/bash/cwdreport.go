package bash

import (
	"path/filepath"
)

// parseCwd reads what the EXIT trap wrote: one absolute directory and a
// newline, or nothing known.
func parseCwd(b []byte) (string, bool) {
	if len(b) == 0 || b[len(b)-1] != '\n' {
		return "", false
	}
	dir := string(b[:len(b)-1])
	if !filepath.IsAbs(dir) {
		return "", false
	}
	return dir, true
}
