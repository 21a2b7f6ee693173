// Package riotenv says which of the environment's variables riot's config
// is read with, and names the one riot sets for a session host it starts.
package riotenv

import (
	"slices"
	"strings"
)

// ReadyEnv names the descriptor on which a session host started by `riot
// serve` in the background says it is ready (cmd/riot's serve).
const ReadyEnv = "RIOT_SERVE_READY_FD"

// own are the RIOT_ variables riot sets for its own processes, or that
// change how it runs but not its config.
var own = []string{ReadyEnv, "RIOT_HOST_LIFETIME", "RIOT_PROJECT_DIR"}

// ConfigEnv are the entries of environ the config is read with: HOME,
// XDG_CONFIG_HOME, XDG_STATE_HOME, XDG_DATA_HOME, and the RIOT_ variables
// riot does not set itself, in environ's order.
func ConfigEnv(environ []string) []string {
	var out []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case name == "HOME", name == "XDG_CONFIG_HOME", name == "XDG_STATE_HOME", name == "XDG_DATA_HOME":
		case strings.HasPrefix(name, "RIOT_") && !slices.Contains(own, name):
		default:
			continue
		}
		out = append(out, kv)
	}
	return out
}
