package sandbox

import (
	"slices"
	"strings"

	"github.com/riot-tools/riot/shared"
)

// Profile is one call's sandbox as the host sends it: the wire model's
// profile, which this package applies (Args, Wrap, Note).
type Profile = shared.SandboxProfile

// covers reports whether path is one of dirs or lies below one.
func covers(dirs []string, path string) bool {
	return slices.ContainsFunc(dirs, func(d string) bool { return within(path, d) })
}

func within(p, dir string) bool {
	return p == dir || dir == "/" || strings.HasPrefix(p, dir+"/")
}
