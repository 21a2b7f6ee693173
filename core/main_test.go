package core_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core"
	"github.com/riot-tools/riot/internal/proctest"
)

// leakChecked marks the tests whose process-leak check is registered.
var leakChecked sync.Map

// bins are the test plugin binaries, built once for the package.
var bins struct {
	testkit, garbage, badcookie, wirefault, mcpserve string
}

// undeclared is testkit's environment for a manifest that declares
// nothing optional: no default or guessed Prepare, no plugin that starts
// no processes (testkit/undeclared.go).
var undeclared = map[string]string{"RIOT_TESTKIT_UNDECLARED": "1"}

func TestMain(m *testing.M) {
	// A sandbox a plugin left running fails the run (proctest): orphans
	// are reparented here, so one whose bwrap was killed is found.
	if err := proctest.Subreap(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	dir, err := os.MkdirTemp("", "riot-core-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := func() int {
		defer os.RemoveAll(dir)
		cmd := exec.Command("go", "build", "-o", dir+"/", "./testkit", "./garbage", "./badcookie", "./wirefault", "./mcpserve")
		cmd.Dir = "../internal/testplugins"
		if out, err := cmd.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "build: %v\n%s", err, out)
			return 1
		}
		for _, name := range []string{"testkit", "garbage", "badcookie", "wirefault", "mcpserve"} {
			if err := os.Rename(filepath.Join(dir, name), filepath.Join(dir, "riot-tool-"+name)); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
		}
		setBins(dir)
		return proctest.CheckSandboxes(m.Run())
	}()
	os.Exit(code)
}

// setBins points bins at dir's binaries.
func setBins(dir string) {
	for name, dst := range map[string]*string{"testkit": &bins.testkit, "garbage": &bins.garbage, "badcookie": &bins.badcookie, "wirefault": &bins.wirefault, "mcpserve": &bins.mcpserve} {
		*dst = filepath.Join(dir, "riot-tool-"+name)
	}
}

// testConfig is the embedded defaults with the state under t.TempDir().
func testConfig(t *testing.T, mutate ...func(*config.Config)) *config.Config {
	t.Helper()
	ws := t.TempDir()
	cfg, err := config.Load(config.Options{
		Workspace: ws,
		UserFile:  filepath.Join(ws, "no-user-config.toml"),
		Getenv:    func(string) string { return "" },
	})
	if err != nil {
		t.Fatal(err)
	}
	cfg.StateDir = t.TempDir()
	for _, m := range mutate {
		m(cfg)
	}
	return cfg
}

type hostOpt func(*core.Options)

func withPlugins(specs ...core.PluginSpec) hostOpt {
	return func(o *core.Options) { o.Plugins = specs }
}

func withConfig(cfg *config.Config) hostOpt { return func(o *core.Options) { o.Config = cfg } }

func testkit() core.PluginSpec { return core.PluginSpec{Name: "testkit", Path: bins.testkit} }

// newHost starts a host over the testkit plugin unless told otherwise, and
// checks at the end that it left no plugin process behind.
func newHost(t *testing.T, opts ...hostOpt) *core.Host {
	t.Helper()
	o := core.Options{
		Plugins: []core.PluginSpec{testkit()},
		Logger:  hclog.New(&hclog.LoggerOptions{Output: testLog{t}, Level: hclog.Debug}),
	}
	for _, f := range opts {
		f(&o)
	}
	if o.Config == nil {
		o.Config = testConfig(t)
	}
	o.Workspace = filepath.Dir(o.Config.StateDir)
	h, err := core.New(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if _, seen := leakChecked.LoadOrStore(t, true); !seen {
		// Registered before the first host's Close, so it runs after every
		// host of the test has closed.
		t.Cleanup(func() {
			assertNoProcesses(t, bins.testkit, bins.garbage, bins.badcookie, bins.wirefault, bins.mcpserve)
		})
	}
	t.Cleanup(func() { h.Close() })
	return h
}

type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// processesOf lists the live processes running one of the binaries.
func processesOf(paths ...string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		if err != nil {
			continue
		}
		exe = strings.TrimSuffix(exe, " (deleted)")
		if slices.Contains(paths, exe) && !isZombie(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

func isZombie(pid int) bool {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return true
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && i+2 < len(s) && s[i+2] == 'Z'
}

// assertNoProcesses fails if a plugin process outlives its host. Close
// waits for every plugin to be reaped, so none may be left at all.
func assertNoProcesses(t *testing.T, paths ...string) {
	t.Helper()
	if pids := processesOf(paths...); len(pids) > 0 {
		t.Errorf("plugin processes left running: %v", pids)
	}
}
