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
	"github.com/riot-tools/riot/shared"
)

// leakChecked marks the tests whose process-leak check is registered.
var leakChecked sync.Map

// bins are the test plugin binaries, built once for the package.
var bins struct {
	testkit, garbage, badcookie, wirefault, mcpserve string
	// testkitV2 is testkit built as against an SDK before protocol 3,
	// which declares no tool's Prepare the default one.
	testkitV2 string
}

// wantProtocol is the protocol version testkit and wirefault speak in this
// run: the newest, or 1 or 2 when TestSuitesOverProtocol1 or 2 runs the
// suites again with the builds of the riot_protocol1 or 2 tag.
var wantProtocol = shared.ProtocolVersion

// The environment of TestSuitesOverProtocolN's run: the protocol, and the
// directory of the binaries the parent built.
const (
	protocolEnv = "RIOT_CORE_TEST_PROTOCOL"
	binsEnv     = "RIOT_CORE_TEST_BINS"
)

func TestMain(m *testing.M) {
	if dir := os.Getenv(binsEnv); dir != "" {
		setBins(dir, os.Getenv(protocolEnv))
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "riot-core-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := func() int {
		defer os.RemoveAll(dir)
		builds := [][]string{{"-o", dir + "/", "./testkit", "./garbage", "./badcookie", "./wirefault", "./mcpserve"}}
		for _, v := range []string{"1", "2"} {
			builds = append(builds, []string{"-tags", "riot_protocol" + v, "-o", filepath.Join(dir, "v"+v) + "/", "./testkit", "./wirefault"})
		}
		for _, args := range builds {
			cmd := exec.Command("go", append([]string{"build"}, args...)...)
			cmd.Dir = "../internal/testplugins"
			if out, err := cmd.CombinedOutput(); err != nil {
				fmt.Fprintf(os.Stderr, "build %v: %v\n%s", args, err, out)
				return 1
			}
		}
		for _, name := range []string{"testkit", "garbage", "badcookie", "wirefault", "mcpserve"} {
			for _, sub := range []string{"", "v1", "v2"} {
				if _, err := os.Stat(filepath.Join(dir, sub, name)); err == nil {
					if err := os.Rename(filepath.Join(dir, sub, name), filepath.Join(dir, sub, "riot-tool-"+name)); err != nil {
						fmt.Fprintln(os.Stderr, err)
						return 1
					}
				}
			}
		}
		setBins(dir, "")
		return m.Run()
	}()
	os.Exit(code)
}

// setBins points bins at dir's binaries, testkit's and wirefault's of
// the protocols up to version if it is "1" or "2".
func setBins(dir string, version string) {
	for name, dst := range map[string]*string{"testkit": &bins.testkit, "garbage": &bins.garbage, "badcookie": &bins.badcookie, "wirefault": &bins.wirefault, "mcpserve": &bins.mcpserve} {
		*dst = filepath.Join(dir, "riot-tool-"+name)
	}
	bins.testkitV2 = filepath.Join(dir, "v2", "riot-tool-testkit")
	switch version {
	case "1", "2":
		wantProtocol = int(version[0] - '0')
		bins.testkit = filepath.Join(dir, "v"+version, "riot-tool-testkit")
		bins.wirefault = filepath.Join(dir, "v"+version, "riot-tool-wirefault")
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
