//go:build !linux

package proctest

// Subreap does nothing where there is no bwrap.
func Subreap() error { return nil }

// CheckSandboxes is code where there is no bwrap.
func CheckSandboxes(code int) int { return code }
