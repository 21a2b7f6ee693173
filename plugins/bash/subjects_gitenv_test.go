package bash

import "testing"

// TestGitEnvConfigParameters: GIT_CONFIG_PARAMETERS is how `git -c k=v` reaches every git below it; inherited
// from the environment it is config riot does not read, as GIT_CONFIG_COUNT is.
func TestGitEnvConfigParameters(t *testing.T) {
	if got := gitEnv([]string{"PATH=/bin", "GIT_CONFIG_PARAMETERS='core.fsmonitor'='touch x'"}); got != "GIT_CONFIG_PARAMETERS" {
		t.Errorf("gitEnv = %q, want GIT_CONFIG_PARAMETERS", got)
	}
}
