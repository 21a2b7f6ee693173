//go:build !linux

package sandbox

// openPidfd: there is no bwrap, and no pidfd, elsewhere.
func openPidfd(int) int { return -1 }

func killPidfd(int) {}
