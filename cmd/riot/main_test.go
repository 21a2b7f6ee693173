package main_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// bin holds the binaries built once for the package: riot itself and the
// testkit plugin.
var bin struct{ riot, testkit, dir string }

// binDirEnv hands the binaries TestMain built to the fuzz workers that
// `go test -fuzz` starts with its environment: FuzzStraceOracle runs riot,
// and each worker building them again would cost its start two builds.
const binDirEnv = "RIOT_CLI_TEST_BIN_DIR"

// netnsEnv marks the test binary that TestEgressInANetworkNamespace
// re-executes in namespaces of its own, which uses the binaries built
// for it too.
const netnsEnv = "RIOT_TEST_EGRESS_NETNS"

func TestMain(m *testing.M) {
	flag.Parse()
	if f := flag.Lookup("test.fuzzworker"); f != nil && f.Value.String() == "true" || os.Getenv(netnsEnv) != "" {
		if dir := os.Getenv(binDirEnv); dir != "" {
			setBins(dir)
		}
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "riot-cli-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := func() int {
		defer os.RemoveAll(dir)
		setBins(dir)
		if err := os.Setenv(binDirEnv, dir); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		for pkg, out := range map[string]string{
			"github.com/riot-tools/riot/cmd/riot":                     bin.riot,
			"github.com/riot-tools/riot/internal/testplugins/testkit": bin.testkit,
		} {
			if b, err := exec.Command("go", "build", "-o", out, pkg).CombinedOutput(); err != nil {
				fmt.Fprintf(os.Stderr, "build %s: %v\n%s", pkg, err, b)
				return 1
			}
		}
		return m.Run()
	}()
	os.Exit(code)
}

// setBins points bin at the binaries in dir.
func setBins(dir string) {
	bin.dir = dir
	bin.riot = filepath.Join(dir, "riot")
	bin.testkit = filepath.Join(dir, "plugins", "riot-tool-testkit")
}

// env is an isolated environment: its own home, config, state and data.
type env struct {
	t     *testing.T
	exe   string // the riot binary; bin.riot unless a test built its own
	home  string
	ws    string
	state string
	// scripts counts the scripts a test wrote with py.
	scripts int
	// tmp is riot's TMPDIR, so that what a riot killed by a test leaves
	// behind (its plugins' socket directory) is inside the test's own.
	tmp string
	// trusted says the test trusted the workspace (trust): write then
	// reviews each config file it writes with riot trust, as the user
	// whose own edit riot would otherwise ignore does.
	trusted bool
}

func newEnv(t *testing.T) *env {
	t.Helper()
	root := t.TempDir()
	e := &env{t: t, exe: bin.riot, home: filepath.Join(root, "home"), ws: filepath.Join(root, "ws"), state: filepath.Join(root, "state"), tmp: filepath.Join(root, "tmp")}
	for _, d := range []string{e.home, e.ws, e.tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

func (e *env) environ() []string {
	var out []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "RIOT_") || strings.HasPrefix(kv, "XDG_") || strings.HasPrefix(kv, "HOME=") || strings.HasPrefix(kv, "TMPDIR=") {
			continue
		}
		out = append(out, kv)
	}
	return append(out,
		"HOME="+e.home,
		"TMPDIR="+e.tmp,
		"XDG_CONFIG_HOME="+filepath.Join(e.home, ".config"),
		"XDG_DATA_HOME="+filepath.Join(e.home, ".local", "share"),
		"XDG_STATE_HOME="+e.state,
	)
}

// write puts a file in the workspace.
func (e *env) write(name, body string) string {
	e.t.Helper()
	p := filepath.Join(e.ws, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		e.t.Fatal(err)
	}
	if e.trusted && slices.Contains([]string{".riot/config.toml", ".riot/config.local.toml", ".mcp.json"}, name) {
		e.trust()
	}
	return p
}

// enableTestkit enables the testkit plugin in the user's config, which
// needs no workspace trust.
func (e *env) enableTestkit() {
	e.userConfig(fmt.Sprintf("plugin_dirs = [%q]\n\n[plugins.testkit]\nenabled = true\n", filepath.Dir(bin.testkit)))
}

// sandboxOff adds [sandbox] mode = "off" to the user's config, for tests of
// what holds where the sandbox is off (the process-group guard) or that
// follow a command by its pid, which a PID namespace renumbers.
func (e *env) sandboxOff() {
	e.t.Helper()
	p := filepath.Join(e.home, ".config", "riot", "config.toml")
	old, _ := os.ReadFile(p)
	e.userConfig(string(old) + "\n[sandbox]\nmode = \"off\"\n")
}

// userConfig writes $XDG_CONFIG_HOME/riot/config.toml.
func (e *env) userConfig(body string) string {
	e.t.Helper()
	p := filepath.Join(e.home, ".config", "riot", "config.toml")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		e.t.Fatal(err)
	}
	return p
}

// trust runs riot trust on the workspace.
func (e *env) trust() {
	e.t.Helper()
	e.riot("", "trust").want(e.t, 0, "trusted ")
	e.trusted = true
}

type result struct {
	stdout, stderr string
	code           int
}

// riot runs the riot binary in the workspace.
func (e *env) riot(stdin string, args ...string) result {
	e.t.Helper()
	return e.riotWith(nil, stdin, args...)
}

// riotWith runs the riot binary in the workspace with extra environment.
func (e *env) riotWith(extra []string, stdin string, args ...string) result {
	e.t.Helper()
	cmd := e.command(stdin, args...)
	cmd.Env = append(cmd.Env, extra...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatal(err)
	}
	return result{out.String(), errb.String(), code}
}

func (e *env) command(stdin string, args ...string) *exec.Cmd {
	cmd := exec.Command(e.exe, args...)
	cmd.Dir = e.ws
	cmd.Env = e.environ()
	cmd.Stdin = strings.NewReader(stdin)
	return cmd
}

func (r result) want(t *testing.T, code int, substrings ...string) {
	t.Helper()
	if r.code != code {
		t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", r.code, code, r.stdout, r.stderr)
	}
	all := r.stdout + r.stderr
	for _, s := range substrings {
		if !strings.Contains(all, s) {
			t.Fatalf("output lacks %q\nstdout: %s\nstderr: %s", s, r.stdout, r.stderr)
		}
	}
}
