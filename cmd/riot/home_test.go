package main_test

import (
	"bytes"
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// riot runs without HOME when RIOT_STATE_DIR says where its state goes:
// a home is needed only for ~ paths.
func TestRunsWithoutHome(t *testing.T) {
	e := newEnv(t)
	e.write("a.txt", "alpha\n")
	state := filepath.Join(e.tmp, "riot-state")
	var env []string
	for _, kv := range e.environ() {
		if !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "XDG_") {
			env = append(env, kv)
		}
	}
	env = append(env, "RIOT_STATE_DIR="+state)
	run := func(args ...string) (string, int) {
		cmd := e.command("", args...)
		cmd.Env = env
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return out.String(), ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return out.String(), 0
	}
	if out, code := run("call", "Read", `{"file_path":"a.txt"}`); code != 0 || !strings.Contains(out, "alpha") {
		t.Fatalf("riot call without HOME: exit %d\n%s", code, out)
	}
	if out, code := run("config"); code != 0 || !strings.Contains(out, `state_dir = "`+state+`"`) {
		t.Fatalf("riot config without HOME: exit %d\n%s", code, out)
	}
}
