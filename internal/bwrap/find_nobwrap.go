//go:build riot_test_no_bwrap

package bwrap

// trustedBwrapPaths is empty in a binary built with riot_test_no_bwrap,
// which the end-to-end tests build to stand for a machine without bwrap:
// a build tag, so that no configuration or environment can reach it.
func trustedBwrapPaths() []string { return nil }
