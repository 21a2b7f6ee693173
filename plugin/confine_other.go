//go:build !linux

package plugin

// confineReadOnly is a no-op where there is no Landlock.
func confineReadOnly() (struct{}, error) { return struct{}{}, nil }
