package plugin_test

import (
	"os/user"
	"path/filepath"
	"testing"

	"github.com/riot-tools/riot/plugin"
)

// Without $HOME, ~ is the user database's home, as bash and the host's
// permission chain take it, never a directory named ~ under Cwd.
func TestAbsWithoutHome(t *testing.T) {
	t.Setenv("HOME", "")
	u, err := user.Current()
	if err != nil || u.HomeDir == "" {
		t.Skip("no user database entry for this user")
	}
	env := &plugin.Env{Cwd: "/w"}
	if got, want := env.Abs("~/notes.txt"), filepath.Join(u.HomeDir, "notes.txt"); got != want {
		t.Fatalf("Abs(~/notes.txt) without HOME = %q, want %q", got, want)
	}
}
