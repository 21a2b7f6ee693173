package plugintest_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	hello "github.com/riot-tools/riot/examples/hello-tool"
	"github.com/riot-tools/riot/plugin"
	"github.com/riot-tools/riot/plugin/plugintest"
)

// TestFailsOnPurpose is run only by TestFailingTestPrintsNoPluginNoise,
// in a child test process.
func TestFailsOnPurpose(t *testing.T) {
	if os.Getenv("PLUGINTEST_FAIL_ON_PURPOSE") != "1" {
		t.Skip("run by TestFailingTestPrintsNoPluginNoise")
	}
	c := plugintest.Serve(t, []plugin.Handler{hello.Tool()})
	c.Call("Hello", map[string]any{"name": "riot"})
	t.Fatal("failing on purpose")
}

// A failing test shows its own failure, not go-plugin's transport chatter
// ("[DEBUG] stdio EOF, exiting copy loop") from its default logger.
func TestFailingTestPrintsNoPluginNoise(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestFailsOnPurpose$", "-test.count=1")
	cmd.Env = append(os.Environ(), "PLUGINTEST_FAIL_ON_PURPOSE=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the child test passed:\n%s", out)
	}
	if !strings.Contains(string(out), "failing on purpose") {
		t.Fatalf("the child test did not fail as meant:\n%s", out)
	}
	for _, noise := range []string{"[DEBUG]", "[TRACE]", "[ERROR]", "go-plugin", "plugin:"} {
		if strings.Contains(string(out), noise) {
			t.Errorf("a failing test prints %q:\n%s", noise, out)
		}
	}
}
