package riotenv_test

import (
	"slices"
	"testing"

	"github.com/riot-tools/riot/cmd/riot/internal/riotenv"
)

// The config's environment is the variables the config reads, in
// environ's order, without those riot sets for itself.
func TestConfigEnv(t *testing.T) {
	environ := []string{"PATH=/bin", "HOME=/h", "RIOT_MODE=plan", "XDG_STATE_HOME=/s", "RIOT_HOST_LIFETIME=x",
		"RIOT_PROJECT_DIR=/p", "RIOT_SERVE_READY_FD=3", "XDG_CONFIG_HOME=/c", "XDG_DATA_HOME=/d", "XDG_CACHE_HOME=/k", "RIOT_=1", "RIOTX=2", "HOMEY=3", "RIOT_NOEQ"}
	want := []string{"HOME=/h", "RIOT_MODE=plan", "XDG_STATE_HOME=/s", "XDG_CONFIG_HOME=/c", "XDG_DATA_HOME=/d", "RIOT_=1", "RIOT_NOEQ"}
	if got := riotenv.ConfigEnv(environ); !slices.Equal(got, want) {
		t.Errorf("ConfigEnv = %q, want %q", got, want)
	}
}
