//go:build !riot_test_no_bwrap

package bwrap

// trustedBwrapPaths are where bwrap is looked for, in order: system
// directories only root can write. Never $PATH: a directory on it may be
// the user's (~/bin, ~/.local/bin), which an allowed command can write,
// and a bwrap planted there would run every later command unconfined.
func trustedBwrapPaths() []string {
	return []string{
		"/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap", "/usr/sbin/bwrap", "/sbin/bwrap",
		"/usr/libexec/bwrap", "/run/current-system/sw/bin/bwrap",
	}
}
