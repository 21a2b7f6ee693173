// Package riotenv reads what riot takes from the environment before any
// config: where its state is, and which variables its config is read
// with. The CLI's quick paths (packages quick and quickrun) use it from
// init functions that run before riot's libraries initialise, so it
// imports package path alone: not even strings, which Go initialises late
// (package quick's doc).
package riotenv

import "path"

// QuickEnv set to 0 turns the CLI's quick paths off (package quick).
const QuickEnv = "RIOT_QUICK"

// ReadyEnv names the descriptor on which a session host started by `riot
// serve` in the background says it is ready (cmd/riot's serve).
const ReadyEnv = "RIOT_SERVE_READY_FD"

// own are the RIOT_ variables riot sets for its own processes, or that
// change how it runs but not its config.
var own = []string{ReadyEnv, "RIOT_HOST_LIFETIME", "RIOT_PROJECT_DIR", QuickEnv}

// ConfigEnv are the entries of environ the config is read with: HOME,
// XDG_CONFIG_HOME, XDG_STATE_HOME, XDG_DATA_HOME, and the RIOT_ variables
// riot does not set itself, in environ's order.
func ConfigEnv(environ []string) []string {
	var out []string
	for _, kv := range environ {
		name := kv
		for i := 0; i < len(kv); i++ {
			if kv[i] == '=' {
				name = kv[:i]
				break
			}
		}
		switch {
		case name == "HOME", name == "XDG_CONFIG_HOME", name == "XDG_STATE_HOME", name == "XDG_DATA_HOME":
		case hasPrefix(name, "RIOT_") && !isOwn(name):
		default:
			continue
		}
		out = append(out, kv)
	}
	return out
}

func isOwn(name string) bool {
	for _, o := range own {
		if name == o {
			return true
		}
	}
	return false
}

func hasPrefix(s, prefix string) bool { return len(s) >= len(prefix) && s[:len(prefix)] == prefix }

// StateDir is the state dir as the environment alone puts it:
// $RIOT_STATE_DIR (which outranks every config file), else
// $XDG_STATE_HOME/riot, else ~/.local/state/riot; ok is false when it
// takes more than the environment to know (no HOME where one is needed),
// and the caller reads the config (config.Config.ResolvedStateDir, which
// gives the same answer where this one has one: TestStateDirAsConfig).
func StateDir(getenv func(string) string) (dir string, ok bool) {
	if d := getenv("RIOT_STATE_DIR"); d != "" {
		return ExpandHome(getenv, d)
	}
	if d := getenv("XDG_STATE_HOME"); d != "" {
		return path.Join(d, "riot"), true
	}
	home := getenv("HOME")
	if home == "" {
		return "", false
	}
	return path.Join(home, ".local", "state", "riot"), true
}

// ExpandHome is p with a leading ~ for $HOME, as config.ExpandHome reads
// it; ok is false when p needs a home and HOME is unset.
func ExpandHome(getenv func(string) string, p string) (string, bool) {
	if p != "~" && !hasPrefix(p, "~/") {
		return p, true
	}
	home := getenv("HOME")
	if home == "" {
		return "", false
	}
	return path.Join(home, p[1:]), true
}
