package main_test

import (
	"debug/buildinfo"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBuiltinStandalone: riot serves a builtin from the riot-tool-NAME
// beside it only when both binaries are the same build, and `riot plugins`
// says which serves it and, when riot does, why. Unstamped builds are
// always refused; stamped builds are accepted from a clean tree and
// refused, as built from uncommitted changes, from a dirty one.
func TestBuiltinStandalone(t *testing.T) {
	if testing.Short() {
		t.Skip("builds riot and riot-tool-grep twice")
	}
	for _, vcs := range []string{"-buildvcs=false", "-buildvcs=auto"} {
		t.Run(vcs, func(t *testing.T) {
			dir := t.TempDir()
			exe, sibling := filepath.Join(dir, "riot"), filepath.Join(dir, "riot-tool-grep")
			goBuild(t, vcs, exe, "github.com/riot-tools/riot/cmd/riot")
			goBuild(t, vcs, sibling, "github.com/riot-tools/riot/plugins/grep/cmd/riot-tool-grep")
			bi, err := buildinfo.ReadFile(exe)
			if err != nil {
				t.Fatal(err)
			}
			v := bi.Main.Version
			clean := v != "" && v != "(devel)" && !strings.HasSuffix(v, "+dirty")
			t.Logf("built as %q; the standalone binary should serve Grep: %v", v, clean)

			e := newEnv(t)
			e.exe = exe
			r := e.riot("", "plugins")
			switch {
			case clean:
				r.want(t, 0, "standalone: "+sibling+", which serves it")
			case vcs == "-buildvcs=false":
				r.want(t, 0, "standalone: "+sibling+", not used: ", "has no version")
			default:
				r.want(t, 0, "standalone: "+sibling+", not used: ", "uncommitted changes")
			}

			e.write("a.go", "package a // needle\n")
			e.riot("", "call", "Grep", `{"pattern":"needle"}`).want(t, 0, "a.go")
			served := exe
			if clean {
				served = sibling
			}
			log, err := os.ReadFile(filepath.Join(e.state, "riot", "logs", "riot.log"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(log), "plugin started: path="+served+" ") {
				t.Fatalf("the log does not say %s served Grep:\n%s", served, log)
			}
		})
	}
}

func goBuild(t *testing.T, vcs, out, pkg string) {
	t.Helper()
	if b, err := exec.Command("go", "build", vcs, "-o", out, pkg).CombinedOutput(); err != nil {
		t.Fatalf("build %s: %v\n%s", pkg, err, b)
	}
}
