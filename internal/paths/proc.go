package paths

import "errors"

// ErrProcess is Resolve's error for a path through /proc/self,
// /proc/thread-self or /proc/<pid>: what such a path names depends on the
// process that opens it (its working directory, its root, its open
// files), so resolving it in riot's process says nothing about what a
// tool or a shell will reach through it. `cat /proc/self/cwd/x` after
// `cd /outside` reads /outside/x. Such a path is outside every root.
var ErrProcess = errors.New("the path goes through a process's own view of the filesystem (/proc/self, /proc/thread-self or /proc/<pid>), which depends on the process that opens it")

// isProcess reports whether c, a name directly under /proc, is a
// process's directory.
func isProcess(c string) bool {
	if c == "self" || c == "thread-self" {
		return true
	}
	for i := 0; i < len(c); i++ {
		if c[i] < '0' || c[i] > '9' {
			return false
		}
	}
	return c != ""
}
