package plugin

import (
	"github.com/riot-tools/riot/internal/paths"
)

// Physical is path (made absolute as Abs makes it) with every symlink
// resolved and each `..` applied after the link before it: the form the
// host's fence and deny rules judge. A walker that follows no symlink can
// resolve its root once and append the rest of each walked path, to use
// DeniedPhysical. A broken or looping link, a component that cannot be
// examined, and a path through /proc/self or /proc/<pid> are errors.
func (e *Env) Physical(path string) (string, error) {
	return paths.Resolve(paths.OS{}, e.unclean(path))
}
