package main_test

import (
	"testing"
)

// A command naming a path under /proc runs in the sandbox: the path
// subject (/proc/self/..., riot's own pid once resolved) is never bound
// from the host, which made bwrap fail the whole sandbox after riot waited
// 10 s for it, with bwrap's text as the reason.
func TestSandboxedCommandNamingProc(t *testing.T) {
	requireSandbox(t)
	e := newEnv(t)
	e.trust()
	e.sandboxConfig("")
	e.riot("", "call", "Bash", `{"command":"head -1 /proc/self/status"}`, "--mode", "bypassPermissions").want(t, 0, "Name:")
	e.riot("", "call", "Bash", `{"command":"cat /proc/self/status /proc/self/mounts /dev/null > /dev/null"}`, "--mode", "bypassPermissions").want(t, 0)
}
