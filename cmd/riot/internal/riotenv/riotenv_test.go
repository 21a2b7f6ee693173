package riotenv_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/riot-tools/riot/cmd/riot/internal/riotenv"
	"github.com/riot-tools/riot/config"
)

// Where riotenv puts the state dir, config puts it too, whenever riotenv
// can tell from the environment alone; when it cannot, HOME is unset.
func TestStateDirAsConfig(t *testing.T) {
	for _, riot := range []string{"", "/abs/state", "~", "~/st", "rel/st", "~other/st", "/a/../b/./c/"} {
		for _, xdg := range []string{"", "/xdg", "rel-xdg", "/xdg/"} {
			for _, home := range []string{"", "/home/me", "/home/me/", "rel-home"} {
				t.Setenv("RIOT_STATE_DIR", riot)
				t.Setenv("XDG_STATE_HOME", xdg)
				t.Setenv("HOME", home)
				got, ok := riotenv.StateDir(os.Getenv)
				if !ok {
					if home != "" {
						t.Errorf("RIOT_STATE_DIR=%q XDG_STATE_HOME=%q HOME=%q: no state dir, though HOME is set", riot, xdg, home)
					}
					continue
				}
				want := (&config.Config{StateDir: os.Getenv("RIOT_STATE_DIR")}).ResolvedStateDir(nil)
				if got != want {
					t.Errorf("RIOT_STATE_DIR=%q XDG_STATE_HOME=%q HOME=%q: %q, config says %q", riot, xdg, home, got, want)
				}
			}
		}
	}
}

// ExpandHome reads ~ as config.ExpandHome does, and declines only without
// a HOME.
func FuzzExpandHomeAsConfig(f *testing.F) {
	for _, s := range []string{"~", "~/", "~/a/../b", "~x", "/abs", "rel", "", "~//", "a/~"} {
		f.Add(s, "/home/me")
		f.Add(s, "")
	}
	f.Fuzz(func(t *testing.T, p, home string) {
		if strings.ContainsRune(home, 0) {
			t.Skip("no environment variable holds a NUL")
		}
		t.Setenv("HOME", home)
		got, ok := riotenv.ExpandHome(os.Getenv, p)
		if !ok {
			if home != "" {
				t.Fatalf("ExpandHome(%q) declined with HOME=%q", p, home)
			}
			return
		}
		if want := config.ExpandHome(p); got != want {
			t.Fatalf("ExpandHome(%q) with HOME=%q = %q, config says %q", p, home, got, want)
		}
	})
}

// The config's environment is the variables the config reads, in
// environ's order, without those riot sets for itself.
func TestConfigEnv(t *testing.T) {
	environ := []string{"PATH=/bin", "HOME=/h", "RIOT_MODE=plan", "RIOT_QUICK=0", "XDG_STATE_HOME=/s", "RIOT_HOST_LIFETIME=x",
		"RIOT_PROJECT_DIR=/p", "RIOT_SERVE_READY_FD=3", "XDG_CONFIG_HOME=/c", "XDG_DATA_HOME=/d", "XDG_CACHE_HOME=/k", "RIOT_=1", "RIOTX=2", "HOMEY=3", "RIOT_NOEQ"}
	want := []string{"HOME=/h", "RIOT_MODE=plan", "XDG_STATE_HOME=/s", "XDG_CONFIG_HOME=/c", "XDG_DATA_HOME=/d", "RIOT_=1", "RIOT_NOEQ"}
	if got := riotenv.ConfigEnv(environ); !slices.Equal(got, want) {
		t.Errorf("ConfigEnv = %q, want %q", got, want)
	}
}
