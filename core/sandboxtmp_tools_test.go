package core_test

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/riot-tools/riot/config"
	"github.com/riot-tools/riot/core"
	"github.com/riot-tools/riot/internal/proctest"
)

// fileToolBins builds the builtins that start no processes (Read, Grep and
// Glob, Edit and Write) once, beside the test plugins, by plugin name.
var fileToolBins = sync.OnceValues(func() (map[string]string, error) {
	out := map[string]string{}
	for _, name := range []string{"read", "grep", "edit"} {
		bin := filepath.Join(filepath.Dir(bins.testkit), "riot-tool-"+name)
		cmd := exec.Command("go", "build", "-o", bin, "./plugins/"+name+"/cmd/riot-tool-"+name)
		cmd.Dir = ".."
		if b, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("build the %s plugin: %w\n%s", name, err, b)
		}
		out[name] = bin
	}
	return out, nil
})

// fileToolHost is tmpHost with the file tools beside Bash.
func fileToolHost(t *testing.T, cfg *config.Config, session string, oneShot bool, asks *askRecorder) *core.Host {
	t.Helper()
	bash, err := bashBin()
	if err != nil {
		t.Fatal(err)
	}
	tools, err := fileToolBins()
	if err != nil {
		t.Fatal(err)
	}
	specs := []core.PluginSpec{{Name: "bash", Path: bash}}
	paths := []string{bash}
	for _, name := range []string{"grep", "read", "edit"} {
		specs = append(specs, core.PluginSpec{Name: name, Path: tools[name]})
		paths = append(paths, tools[name])
	}
	t.Cleanup(func() {
		for _, pid := range processesOf(paths...) {
			if cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); !proctest.WaitExit(pid, 10*time.Second) {
				t.Errorf("a plugin process outlived its host: %d %q", pid, cmd)
			}
		}
	})
	return newHost(t, withConfig(cfg), withPlugins(specs...), func(o *core.Options) {
		o.Prompter, o.SessionID, o.OneShot = asks, session, oneShot
	})
}

// freshTmpName is a name the host's /tmp does not have, which the sandbox
// shows from the session's /tmp.
func freshTmpName(t *testing.T) string {
	t.Helper()
	for range 100 {
		name := fmt.Sprintf("riot-test-%x", rand.Uint64())
		if _, err := os.Lstat("/tmp/" + name); errors.Is(err, fs.ErrNotExist) {
			return name
		}
	}
	t.Fatal("no free name in /tmp")
	return ""
}

// editingTmpHost is a fileToolHost in [sandbox] mode "required" and mode
// acceptEdits, whose prompter refuses and records every question.
func editingTmpHost(t *testing.T) (*core.Host, *askRecorder) {
	t.Helper()
	cfg := tmpConfig(t)
	cfg.Permissions.Mode = config.ModeAcceptEdits
	asks := &askRecorder{}
	return fileToolHost(t, cfg, "", false, asks), asks
}

// okText is the text of a result that must have succeeded, and must not
// name the host's directory of the session's /tmp.
func okText(t *testing.T, r core.ToolResult, what string) string {
	t.Helper()
	if r.IsError() {
		t.Fatalf("%s failed: %s", what, r.Text())
	}
	noHostTmp(t, r, what)
	return r.Text()
}

// noHostTmp fails when r names the host's directory of the session's /tmp.
func noHostTmp(t *testing.T, r core.ToolResult, what string) {
	t.Helper()
	if strings.Contains(r.Text(), "riot-tmp-") {
		t.Fatalf("%s shows the model the host's directory of the session's /tmp: %s", what, r.Text())
	}
}

// Read, Edit, Write, Grep and Glob find at /tmp what the session's
// commands see there, without a question, and name it /tmp to the model.
func TestFileToolsSeeTheSessionTmp(t *testing.T) {
	requireSandbox(t)
	h, asks := editingTmpHost(t)
	d := "/tmp/" + freshTmpName(t)

	okText(t, runTool(t, h, "b1", "Bash", map[string]any{"command": "mkdir -p " + d + "/sub && echo 'hello from bash' > " + d + "/x.txt && echo 'a needle here' > " + d + "/sub/n.txt"}), "Bash")
	if got := okText(t, runTool(t, h, "r1", "Read", map[string]any{"file_path": d + "/x.txt"}), "Read"); !strings.Contains(got, "hello from bash") {
		t.Fatalf("Read of %s/x.txt does not show what Bash wrote there: %s", d, got)
	}
	okText(t, runTool(t, h, "e1", "Edit", map[string]any{"file_path": d + "/x.txt", "old_string": "hello", "new_string": "goodbye"}), "Edit")
	if got := okText(t, runTool(t, h, "b2", "Bash", map[string]any{"command": "cat " + d + "/x.txt"}), "Bash cat"); !strings.Contains(got, "goodbye from bash") {
		t.Fatalf("Bash does not see the Edit of x.txt: %s", got)
	}
	okText(t, runTool(t, h, "w1", "Write", map[string]any{"file_path": d + "/new.txt", "content": "written by Write\n"}), "Write")
	if got := okText(t, runTool(t, h, "b3", "Bash", map[string]any{"command": "cat " + d + "/new.txt"}), "Bash cat"); !strings.Contains(got, "written by Write") {
		t.Fatalf("Bash does not see the file Write made in /tmp: %s", got)
	}
	for _, in := range []map[string]any{
		{"pattern": "needle", "path": d},
		{"pattern": "needle", "path": "/tmp", "glob": "**/" + filepath.Base(d) + "/**"},
		{"pattern": "needle", "path": d, "output_mode": "content"},
		{"pattern": "needle", "path": d + "/sub/n.txt", "output_mode": "content"},
	} {
		if got := okText(t, runTool(t, h, "g", "Grep", in), "Grep"); !strings.Contains(got, d+"/sub/n.txt") {
			t.Fatalf("Grep %v does not list %s/sub/n.txt: %s", in, d, got)
		}
	}
	for _, in := range []map[string]any{
		{"pattern": "**/*.txt", "path": d},
		{"pattern": filepath.Base(d) + "/**/*.txt", "path": "/tmp"},
	} {
		got := okText(t, runTool(t, h, "gl", "Glob", in), "Glob")
		for _, want := range []string{d + "/sub/n.txt", d + "/x.txt", d + "/new.txt"} {
			if !strings.Contains(got, want) {
				t.Fatalf("Glob %v does not list %s: %s", in, want, got)
			}
		}
	}
	if r := runTool(t, h, "r2", "Read", map[string]any{"file_path": d + "/sub/missing.txt"}); !r.IsError() || !strings.Contains(r.Text(), d+"/sub/missing.txt") {
		t.Fatalf("Read of a missing file in /tmp: %s", r.Text())
	} else {
		noHostTmp(t, r, "Read of a missing file")
	}
	if r := runTool(t, h, "g2", "Grep", map[string]any{"pattern": "x", "path": d + "/nothing-here"}); !r.IsError() {
		t.Fatalf("Grep of a missing path in /tmp: %s", r.Text())
	} else {
		noHostTmp(t, r, "Grep of a missing path")
	}
	if q := asks.questions(); len(q) != 0 {
		t.Fatalf("the session's own /tmp was asked about: %q", q)
	}
	dir := core.SessionTempDir(h)
	if b, err := os.ReadFile(filepath.Join(dir, filepath.Base(d), "new.txt")); err != nil || string(b) != "written by Write\n" {
		t.Fatalf("Write did not write the session's directory: %q %v", b, err)
	}
	if _, err := os.Lstat(d); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a file tool wrote the host's /tmp: %v", err)
	}
}

// A Write to /tmp as a session's first call makes the session's /tmp, and
// Bash's next command finds the file; Edit then needs the Read first.
func TestWriteToTmpBeforeAnyCommand(t *testing.T) {
	requireSandbox(t)
	h, asks := editingTmpHost(t)
	f := "/tmp/" + freshTmpName(t)
	okText(t, runTool(t, h, "w", "Write", map[string]any{"file_path": f, "content": "one\n"}), "Write")
	if got := okText(t, runTool(t, h, "b", "Bash", map[string]any{"command": "cat " + f + " && echo two >> " + f}), "Bash"); !strings.Contains(got, "one") {
		t.Fatalf("Bash does not see what Write put in /tmp: %s", got)
	}
	// Bash changed the file since Write recorded it.
	r := runTool(t, h, "e1", "Edit", map[string]any{"file_path": f, "old_string": "two", "new_string": "three"})
	if !r.IsError() || !strings.Contains(r.Text(), f) {
		t.Fatalf("an Edit of a file changed since it was written was not refused by name: %s", r.Text())
	}
	noHostTmp(t, r, "the refused Edit")
	okText(t, runTool(t, h, "r", "Read", map[string]any{"file_path": f}), "Read")
	okText(t, runTool(t, h, "e2", "Edit", map[string]any{"file_path": f, "old_string": "two", "new_string": "three"}), "Edit after Read")
	if got := okText(t, runTool(t, h, "b2", "Bash", map[string]any{"command": "cat " + f}), "Bash"); !strings.Contains(got, "three") {
		t.Fatalf("Bash does not see the Edit: %s", got)
	}
	if q := asks.questions(); len(q) != 0 {
		t.Fatalf("the session's own /tmp was asked about: %q", q)
	}
	if _, err := os.Lstat(f); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a file tool wrote the host's /tmp: %v", err)
	}
}

// A name the host's /tmp has keeps its host meaning for the file tools, as
// for the sandbox: outside the workspace, asked about.
func TestFileToolsKeepTheHostsTmpNames(t *testing.T) {
	requireSandbox(t)
	hostDir, err := os.MkdirTemp("/tmp", "riot-host-name-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(hostDir) })
	if err := os.WriteFile(filepath.Join(hostDir, "h.txt"), []byte("host file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	asks := &askRecorder{}
	h := fileToolHost(t, tmpConfig(t), "", false, asks)
	okText(t, runTool(t, h, "b", "Bash", map[string]any{"command": "echo session > /tmp/" + freshTmpName(t)}), "Bash")
	r := runTool(t, h, "r", "Read", map[string]any{"file_path": filepath.Join(hostDir, "h.txt")})
	if !r.IsError() || len(asks.questions()) != 1 || !strings.Contains(asks.questions()[0], "outside the workspace: "+filepath.Join(hostDir, "h.txt")) {
		t.Fatalf("a read of a host /tmp name was not asked about as the host's: %q %s", asks.questions(), r.Text())
	}
}

// With the sandbox off, /tmp is the host's for every tool, as before.
func TestFileToolsUseTheHostsTmpWithoutASandbox(t *testing.T) {
	cfg := testConfig(t, func(c *config.Config) { c.Sandbox.Mode = config.SandboxOff })
	asks := &askRecorder{}
	h := fileToolHost(t, cfg, "", false, asks)
	if core.SessionTempDir(h) != "" {
		t.Fatal("a session without a sandbox has a temporary directory")
	}
	p := "/tmp/" + freshTmpName(t)
	r := runTool(t, h, "r", "Read", map[string]any{"file_path": p})
	if !r.IsError() || len(asks.questions()) != 1 || !strings.Contains(asks.questions()[0], "outside the workspace: "+p) {
		t.Fatalf("without a sandbox a read of /tmp was not asked about as the host's: %q %s", asks.questions(), r.Text())
	}
}

// A symlink a command leaves in the session's /tmp is judged by its
// target: one into riot's config directory reaches it only if the user
// allows it, whichever tool follows it.
func TestSessionTmpSymlinkIsJudgedByItsTarget(t *testing.T) {
	requireSandbox(t)
	// Built before HOME moves, which moves the go command's cache.
	if _, err := fileToolBins(); err != nil {
		t.Fatal(err)
	}
	if _, err := bashBin(); err != nil {
		t.Fatal(err)
	}
	// A home out of the workspace (which holds the test's directories).
	home, err := os.MkdirTemp("", "riot-home-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(home) })
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	cfgDir := config.UserConfigDir(os.Getenv)
	if err := os.MkdirAll(cfgDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfgDir, "config.toml"), []byte("# riot's own config\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	h, asks := editingTmpHost(t)
	lnk := "/tmp/" + freshTmpName(t)
	// The link is made as a command would make it; Bash's own analysis
	// would ask about the config path it names.
	okText(t, runTool(t, h, "b", "Bash", map[string]any{"command": "echo made > /tmp/" + freshTmpName(t)}), "Bash")
	if err := os.Symlink(cfgDir, filepath.Join(core.SessionTempDir(h), filepath.Base(lnk))); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		tool  string
		input map[string]any
	}{
		{"Read", map[string]any{"file_path": lnk + "/config.toml"}},
		{"Write", map[string]any{"file_path": lnk + "/config.toml", "content": "[permissions]\nmode = \"bypassPermissions\"\n"}},
		{"Grep", map[string]any{"pattern": "riot", "path": lnk}},
		{"Glob", map[string]any{"pattern": "*", "path": lnk}},
	} {
		before := len(asks.questions())
		r := runTool(t, h, "s", tc.tool, tc.input)
		q := asks.questions()
		if !r.IsError() || len(q) != before+1 || !strings.Contains(q[len(q)-1], cfgDir) {
			t.Fatalf("%s through a symlink in /tmp to riot's config was not asked about by its target: %q %s", tc.tool, q, r.Text())
		}
		noHostTmp(t, r, tc.tool+" through the symlink")
	}
	if b, err := os.ReadFile(filepath.Join(cfgDir, "config.toml")); err != nil || string(b) != "# riot's own config\n" {
		t.Fatalf("riot's config changed: %q %v", b, err)
	}
}
